/**
 * Stop and reload over real sockets, with the real command line against the
 * simulator: SIGTERM ends the process within its deadline whatever holds a
 * connection (idle, a request half sent, a TLS handshake never made) or a
 * collection (a source that never answers); a reload that restarts a target
 * stuck on a silent source applies at once while /metrics keeps answering.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { generateSelfSignedCert } from '../../simulator/core/tls';
import { STOP_DEADLINE_MS } from '../../src/stop-deadline';
import { eventually, spawnCli, writeConfig, type CliProcess } from '../support/cli-process';

let sim: RunningSimulator;
let dir: string;
let blackHole: Server;
/** the connections the black hole accepted, and whether a request's bytes arrived on one */
const held = new Set<Socket>();
let requestsHeld = 0;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, size: { replicatedVms: 4, replicationClusters: 1 } });
  dir = mkdtempSync(join(tmpdir(), 'stop-'));
  // A source that accepts connections and never answers.
  blackHole = createServer((socket) => {
    held.add(socket);
    socket.once('data', () => (requestsHeld += 1));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => blackHole.close(resolve));
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const replication = (name: string) => ({ name, kind: 'replication', url: sim.urls.replication, username: sim.username, password: '${SIM_PASSWORD}' });
const silent = (name: string) => ({ ...replication(name), url: `http://127.0.0.1:${(blackHole.address() as { port: number }).port}` });

async function started(name: string, targets: object[], extra: Record<string, unknown> = {}): Promise<{ cli: CliProcess; file: string; port: number }> {
  const file = join(dir, `${name}.yaml`);
  writeConfig(file, targets, extra);
  const cli = spawnCli(['--config', file], { SIM_PASSWORD: sim.password });
  const address = String((await cli.waitForLog((line) => line.msg === 'listening')).address);
  return { cli, file, port: Number(new URL(address).port) };
}

/** The exit code after SIGTERM; rejects when the process is still there well past the deadline (a generous bound, not a timing). */
async function stopped(cli: CliProcess): Promise<number | null> {
  cli.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('still running past the stop deadline')), STOP_DEADLINE_MS + 10_000)));
  try {
    return await Promise.race([cli.exited, overdue]);
  } catch (error) {
    await cli.stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A client connection to the exporter, and a promise of its closing by the server. */
async function connection(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

describe('stop', () => {
  it('SIGTERM with an idle connection and a request half sent: both closed, exit 0', async () => {
    const { cli, port } = await started('connections', [replication('repl')]);
    const idle = await connection(port);
    const halfSent = await connection(port);
    halfSent.socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // the headers never end
    expect(await stopped(cli)).toBe(0);
    await Promise.all([idle.closed, halfSent.closed]);
    expect(cli.logs.some((line) => line.msg === 'stop cut short')).toBe(false);
  });

  it('SIGTERM with a TLS connection that never starts its handshake: exit 0', async () => {
    const pair = await generateSelfSignedCert();
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    writeFileSync(certFile, pair.cert);
    writeFileSync(keyFile, pair.key);
    const { cli, port } = await started('tls', [replication('repl')], { web: { listenAddress: '127.0.0.1', port: 0, tls: { certFile, keyFile } } });
    const silentClient = await connection(port);
    expect(await stopped(cli)).toBe(0);
    await silentClient.closed;
  });

  it('SIGTERM while a collection waits on a source that never answers: the run is aborted, exit 0', async () => {
    const before = requestsHeld;
    const { cli } = await started('hung', [silent('stuck')]);
    await eventually(() => requestsHeld > before, 20_000, 'a request reaching the silent source');
    expect(await stopped(cli)).toBe(0);
    expect(cli.logs.find((line) => line.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM', deadlineSeconds: STOP_DEADLINE_MS / 1000 });
  });
});

describe('stop with spans for a dead OTLP endpoint', () => {
  /** The daemon with its spans held for a minute, to be flushed at the stop to the black hole, once a round was collected. */
  async function tracedToBlackHole(name: string): Promise<CliProcess> {
    const file = join(dir, `${name}.yaml`);
    writeConfig(file, [replication('repl')]);
    const cli = spawnCli(['--config', file], {
      SIM_PASSWORD: sim.password,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(blackHole.address() as { port: number }).port}`,
      OTEL_BSP_SCHEDULE_DELAY: '60000',
    });
    const address = String((await cli.waitForLog((line) => line.msg === 'listening')).address);
    await eventually(async () => (await (await fetch(`${address}/metrics`)).text()).includes('\ndataprotect_exporter_first_round_complete 1\n'), 20_000, 'first round');
    return cli;
  }

  it('exits 1 and names what it cut short', async () => {
    const cli = await tracedToBlackHole('cut-short');
    expect(await stopped(cli)).toBe(1);
    expect(cli.logs.find((line) => line.msg === 'stop cut short')).toMatchObject({ level: 'error', cutShort: ['exporting the last spans'] });
  });

  it('a second signal exits at once', async () => {
    const cli = await tracedToBlackHole('second-signal');
    cli.child.kill('SIGTERM');
    await cli.waitForLog((line) => line.msg === 'shutting down');
    expect(await stopped(cli)).toBe(1);
    expect(cli.logs.some((line) => line.msg === 'second signal: exiting at once')).toBe(true);
    expect(cli.logs.some((line) => line.msg === 'stop cut short')).toBe(false);
  });
});

describe('reload past a silent source', () => {
  it('restarting a target stuck on a silent source applies at once, and /metrics answers meanwhile', async () => {
    const before = requestsHeld;
    const { cli, file, port } = await started('reload', [replication('repl'), silent('stuck')]);
    try {
      const metrics = async (): Promise<string> => {
        const response = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(response.status).toBe(200);
        return response.text();
      };
      await eventually(async () => (await metrics()).includes('dataprotect_up{target="repl",kind="replication"} 1'), 20_000, 'repl collected');
      await eventually(() => requestsHeld > before, 20_000, 'a request reaching the silent source');
      // A new user name: a changed source, so the target restarts; its run on the silent source is cut off.
      writeConfig(file, [replication('repl'), { ...silent('stuck'), username: 'someone-else' }]);
      cli.child.kill('SIGHUP');
      // Far below the run's request time limit (30 s), which the reload used to wait for.
      const applied = await cli.waitForLog((line) => line.msg === 'configuration reloaded' && line.trigger === 'SIGHUP', 8_000);
      expect(applied).toMatchObject({ restarted: ['stuck'], added: [], removed: [] });
      expect(await metrics()).toContain('dataprotect_up{target="repl",kind="replication"} 1');
    } finally {
      expect(await stopped(cli)).toBe(0);
    }
  });
});
