/**
 * The OpenTelemetry SDK's own diagnostics (OTEL_LOG_LEVEL, which docs/operations.md says applies as usual) are log lines like
 * every other: one JSON object per line, never plain text amid the JSON logs, and never on --once's stdout, which carries the
 * metrics (a textfile or a pipe that a diagnostic line would break).
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { spawnCli, writeConfig } from '../support/cli-process';

let dir: string;
let sim: RunningSimulator;
let receiver: Server;
let endpoint: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tracing-diag-'));
  sim = await startSimulator({ seed: 9, size: { replicatedVms: 6, replicationClusters: 1 } });
  // An OTLP/HTTP endpoint on loopback that takes every batch.
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A line of the Prometheus text format: a comment or a sample. */
const EXPOSITION_LINE = /^(#.*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \S+( -?\d+)?)$/;

it('--once with OTEL_LOG_LEVEL=debug: stdout holds only the metrics, and the diagnostics are JSON lines on stderr', async () => {
  const config = join(dir, 'once.yaml');
  writeConfig(config, [{ name: 'repl', kind: 'replication', url: sim.urls.replication, username: sim.username, password: '${SIM_PASSWORD}' }]);
  const cli = spawnCli(['--config', config, '--once'], { SIM_PASSWORD: sim.password, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_LOG_LEVEL: 'debug' });
  expect(await cli.exited).toBe(0);
  const stdout = cli.stdout().split('\n').filter((line) => line !== '');
  expect(stdout).toContain('dataprotect_up{target="repl",kind="replication"} 1');
  expect(stdout.filter((line) => !EXPOSITION_LINE.test(line))).toEqual([]);
  const stderr = cli.stderr().split('\n').filter((line) => line !== '');
  expect(stderr.filter((line) => !line.startsWith('{') || !isJson(line))).toEqual([]);
  // The diagnostics asked for are there, as log lines.
  expect(cli.logs.some((line) => line.level === 'debug' && String(line.msg).includes('@opentelemetry/api: Registered a global'))).toBe(true);
}, 60_000);

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
