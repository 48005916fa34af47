/**
 * Runs the real command line (src/main.ts through tsx) as a child process, for
 * the end-to-end tests of reload, textfile mode and tracing start-up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

const ROOT = join(__dirname, '..', '..');

export type LogLine = Record<string, unknown> & { msg?: string };

export interface CliProcess {
  child: ChildProcess;
  /** JSON log lines (stdout for the daemon, stderr with --once) */
  logs: LogLine[];
  stdout(): string;
  stderr(): string;
  /** resolves with the exit code */
  exited: Promise<number | null>;
  /** the first log line (seen or to come) matching `predicate` */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** SIGTERM, then SIGKILL if it is still there after a while */
  stop(): Promise<void>;
}

export function spawnCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const logs: LogLine[] = [];
  const waiters: Array<{ predicate: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  const collect = (buffer: { text: string }, chunk: Buffer): void => {
    buffer.text += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffer.text.indexOf('\n')) >= 0) {
      const line = buffer.text.slice(0, newline);
      buffer.text = buffer.text.slice(newline + 1);
      if (!line.startsWith('{')) continue;
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line) as LogLine;
      } catch {
        continue; // a metrics line or other output
      }
      logs.push(parsed);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(parsed)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(parsed);
        }
      }
    }
  };
  const outLines = { text: '' };
  const errLines = { text: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    collect(outLines, chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    collect(errLines, chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    logs,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForLog(predicate, timeoutMs = 20_000) {
      const seen = logs.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching log line within ${timeoutMs} ms; stdout:\n${out.slice(-3000)}\nstderr:\n${err.slice(-3000)}`));
        }, timeoutMs);
        const waiter = {
          predicate,
          resolve: (line: LogLine) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        waiters.push(waiter);
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Writes a config file: the given targets, the web server on a free loopback port. */
export function writeConfig(file: string, targets: object[], extra: Record<string, unknown> = {}): void {
  writeFileSync(file, stringify({ web: { listenAddress: '127.0.0.1', port: 0 }, logLevel: 'info', ...extra, targets }));
}

/** Polls `check` until it returns a value other than undefined/false. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
