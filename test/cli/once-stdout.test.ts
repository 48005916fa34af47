/**
 * `--once` without --output writes the exposition to stdout, a pipe written asynchronously; with tracing on, main.ts ends the process
 * itself (a dead OTLP endpoint must not hold it), and it must first let the pipe take the whole exposition.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';

const ROOT = join(__dirname, '..', '..');
let sim: RunningSimulator;
let otlp: Server;

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, size: { assets: 300, replicatedVms: 40, storageSystems: 2 } });
  // An OTLP endpoint on loopback that takes every batch.
  otlp = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  otlp.listen(0, '127.0.0.1');
  await once(otlp, 'listening');
});
afterAll(async () => {
  otlp.closeAllConnections();
  otlp.close();
  await sim.close();
});

/** Runs the CLI with its stdout a pipe the reader leaves unread for a moment (a slow consumer: `| gzip`, `| ssh`, a log shipper). */
async function runOnceSlowReader(file: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--config', file, '--once'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // The exposition is written only once every collector ran: read nothing until the process has logged its end or a moment passed.
  child.stdout.pause();
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdout.resume();
  await once(child.stdout, 'close');
  return { code: await exited, stdout: Buffer.concat(chunks).toString('utf8'), stderr };
}

function configFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'once-stdout-')), 'config.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      targets: [{ name: 'backup', kind: 'management', url: sim.urls.management, username: sim.username, password: '${SIM_PASSWORD}' }],
    }),
  );
  return file;
}

/** The exposition's last family is the exporter's own build info (self-metrics come last): a cut one ends anywhere before. */
function expectWhole(stdout: string): void {
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout).toMatch(/\ndataprotect_exporter_build_info\{version="[^"]+",nodejs_version="[^"]+"\} 1\n/);
}

it('(control) --once without tracing writes the whole exposition to a slow pipe and exits 0', async () => {
  const { code, stdout } = await runOnceSlowReader(configFile(), { SIM_PASSWORD: sim.password });
  expect(code).toBe(0);
  expectWhole(stdout);
}, 90_000);

it('--once with tracing on writes the whole exposition to a slow pipe before it exits 0', async () => {
  const { code, stdout } = await runOnceSlowReader(configFile(), {
    SIM_PASSWORD: sim.password,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(otlp.address() as AddressInfo).port}`,
  });
  expect(code).toBe(0);
  expectWhole(stdout); // not cut where the pipe stopped taking it, with the exit code still 0
}, 90_000);
