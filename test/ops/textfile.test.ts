/**
 * Textfile mode: `--once --output FILE` collects every target once, writes the
 * exposition atomically for node_exporter's textfile collector and exits 0 when
 * every collector succeeded, 1 when one failed (the file is written either way)
 * and 2 when nothing was written (invalid configuration, output not writable).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { promtoolCheckMetrics } from '../support/promtool';
import { spawnCli, writeConfig } from '../support/cli-process';

let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, size: { replicatedVms: 10, replicationClusters: 2, storageSystems: 1 } });
  dir = mkdtempSync(join(tmpdir(), 'textfile-'));
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const target = (name: string, kind: string, url: string) => ({ name, kind, url, username: sim.username, password: '${SIM_PASSWORD}' });

describe('--once --output FILE', () => {
  it('writes the whole exposition atomically and exits 0 when every collector succeeded', async () => {
    const config = join(dir, 'ok.yaml');
    const output = join(dir, 'dataprotect.prom');
    writeConfig(config, [target('repl', 'replication', sim.urls.replication), target('dd', 'storage', sim.urls.storageAppliance)]);
    writeFileSync(output, 'old content\n'); // replaced whole, never appended to
    const cli = spawnCli(['--config', config, '--once', '--output', output], { SIM_PASSWORD: sim.password });
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toBe(''); // metrics go to the file, logs to stderr
    const text = readFileSync(output, 'utf8');
    expect(text).not.toContain('old content');
    expect(text).toContain('dataprotect_up{target="repl",kind="replication"} 1');
    expect(text).toContain('dataprotect_up{target="dd",kind="storage"} 1');
    expect(text).toMatch(/dataprotect_collector_success\{target="repl",collector="[a-z-]+"\} 1/);
    expect(text).not.toMatch(/dataprotect_collector_success\{[^}]*\} 0/);
    expect(text.endsWith('\n')).toBe(true);
    // the textfile collector reads *.prom: no temporary file may be left beside it
    expect(readdirSync(dir).filter((name) => name.includes('.tmp'))).toEqual([]);
    const ours = text.split('\n').filter((line) => line.includes('dataprotect_')).join('\n') + '\n';
    expect(promtoolCheckMetrics(ours)).toBe('');
  });

  it('exits 1 when a collector failed, still writing the file with the failure in it', async () => {
    const config = join(dir, 'failing.yaml');
    const output = join(dir, 'failing.prom');
    const closedPort = 'http://127.0.0.1:9'; // discard port: nothing listens there
    writeConfig(config, [target('repl', 'replication', sim.urls.replication), { ...target('gone', 'replication', closedPort), maxAttempts: 1 }]);
    const cli = spawnCli(['--config', config, '--once', '--output', output], { SIM_PASSWORD: sim.password });
    expect(await cli.exited).toBe(1);
    const text = readFileSync(output, 'utf8');
    expect(text).toContain('dataprotect_up{target="repl",kind="replication"} 1');
    expect(text).toContain('dataprotect_up{target="gone",kind="replication"} 0');
    expect(text).toMatch(/dataprotect_collector_success\{target="gone",collector="[a-z-]+"\} 0/);
    const failed = cli.logs.find((line) => line.msg === 'collection failed' && line.target === 'gone');
    // its class and a message, not {"type":"Object","stack":""}
    expect(failed?.err).toEqual(expect.objectContaining({ type: 'ApiError', message: expect.stringMatching(/\S/) }));
  });

  it('exits 2, naming the file, when the output cannot be written, and leaves nothing behind', async () => {
    const config = join(dir, 'unwritable.yaml');
    writeConfig(config, [target('repl', 'replication', sim.urls.replication)]);
    const output = join(dir, 'no-such-directory', 'x.prom');
    const cli = spawnCli(['--config', config, '--once', '--output', output], { SIM_PASSWORD: sim.password });
    expect(await cli.exited).toBe(2);
    const failure = cli.logs.find((line) => line.msg === 'textfile not written');
    expect(failure).toMatchObject({ level: 'error', file: output });
    expect(String((failure!.err as { message: string }).message)).toContain('ENOENT');
    expect(readdirSync(dir).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('exits 2 and writes nothing when the configuration is invalid', async () => {
    const config = join(dir, 'invalid.yaml');
    const output = join(dir, 'invalid.prom');
    writeFileSync(config, 'targets:\n  - name: x\n    kind: tape\n');
    const cli = spawnCli(['--config', config, '--once', '--output', output]);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain(`${config}: invalid configuration`);
    expect(readdirSync(dir)).not.toContain('invalid.prom');
  });

  it('prints to stdout without --output, and refuses --output without --once', async () => {
    const config = join(dir, 'stdout.yaml');
    writeConfig(config, [target('repl', 'replication', sim.urls.replication)]);
    const once = spawnCli(['--config', config, '--once'], { SIM_PASSWORD: sim.password });
    expect(await once.exited).toBe(0);
    expect(once.stdout()).toContain('dataprotect_up{target="repl",kind="replication"} 1');
    const misuse = spawnCli(['--config', config, '--output', join(dir, 'x.prom')]);
    expect(await misuse.exited).toBe(2);
    expect(misuse.stderr()).toContain('--output only applies with --once');
  });
});
