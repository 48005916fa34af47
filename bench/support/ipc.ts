/**
 * Request/response over a forked child's IPC channel: the benchmark and the
 * soak keep the simulator and the exporter in processes of their own (so that
 * one's memory and CPU are not counted as the other's) and drive them with
 * small commands.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inCgroup } from './memory-cgroup';

interface Request {
  id: number;
  command: string;
  args: unknown;
}

type Response = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export type Handlers = Record<string, (args: never) => unknown>;

/** In the child: answers the parent's commands with `handlers`; then tells the parent it is ready with `hello`. */
export function serve(handlers: Handlers, hello: unknown): void {
  if (!process.send) throw new Error('not started with an IPC channel (use startChild)');
  process.on('message', (message: Request) => {
    const handler = handlers[message.command] as ((args: unknown) => unknown) | undefined;
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown command ${message.command}`);
        return handler(message.args);
      })
      .then(
        (result) => process.send?.({ id: message.id, ok: true, result } satisfies Response),
        (error: unknown) => process.send?.({ id: message.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Response),
      );
  });
  // The parent going away ends the child: no orphan servers.
  process.on('disconnect', () => process.exit(0));
  process.send({ id: 0, ok: true, result: hello } satisfies Response);
}

export interface Child<H> {
  readonly process: ChildProcess;
  readonly hello: H;
  call<T = unknown>(command: string, args?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export interface ChildOptions {
  nodeArgs?: string[];
  readyTimeoutMs?: number;
  /** a memory cgroup (memory-cgroup.ts) the child starts in */
  cgroupDir?: string;
}

/** Forks a module, a TypeScript one through tsx, and waits for its hello. */
export async function startChild<H>(modulePath: string, argument: unknown, options: ChildOptions = {}): Promise<Child<H>> {
  const nodeArgs = [...(modulePath.endsWith('.ts') ? ['--require', 'tsx/cjs'] : []), ...(options.nodeArgs ?? [])];
  const child = fork(path.resolve(modulePath), [JSON.stringify(argument)], {
    ...(options.cgroupDir ? inCgroup(options.cgroupDir, nodeArgs) : { execArgv: nodeArgs }),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let exited = false;
  const exitError = (code: number | null, signal: NodeJS.Signals | null) => new Error(`${path.basename(modulePath)} exited (code ${code}, signal ${signal})`);

  const hello = await new Promise<H>((resolve, reject) => {
    const readyTimeoutMs = options.readyTimeoutMs ?? 300_000;
    let late = false;
    // A child that is late is ended, and the promise settles once it has exited: no process (and no cgroup) outlives the failure.
    const timer = setTimeout(() => {
      late = true;
      child.kill('SIGKILL');
    }, readyTimeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(late ? new Error(`${modulePath} did not start within ${readyTimeoutMs} ms`) : exitError(code, signal));
    });
    child.on('message', (message: Response) => {
      if (message.id === 0 && message.ok) {
        clearTimeout(timer);
        resolve(message.result as H);
        return;
      }
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new Error(message.error));
    });
  });
  child.on('exit', (code, signal) => {
    exited = true;
    for (const waiter of pending.values()) waiter.reject(exitError(code, signal));
    pending.clear();
  });

  return {
    process: child,
    hello,
    call<T>(command: string, args?: unknown): Promise<T> {
      if (exited) return Promise.reject(new Error(`${modulePath} is not running`));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, command, args } satisfies Request);
      });
    },
    async stop(): Promise<void> {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** The argument the parent passed to startChild. */
export function childArgument<T>(): T {
  return JSON.parse(process.argv[2] ?? 'null') as T;
}
