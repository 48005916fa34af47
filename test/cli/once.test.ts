/**
 * The CLI as a user runs it: `--once` against the simulator prints the
 * exposition with values equal to the simulator's data, `--check-config`
 * validates without collecting, and a bad file lists every mistake.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { promtoolCheckMetrics } from '../support/promtool';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { spawnCli, writeConfig } from '../support/cli-process';
import { generateSelfSignedCert } from '../../simulator/core/tls';

const dir = mkdtempSync(join(tmpdir(), 'dp-cli-'));

/** Runs the CLI to its end; the environment holds only what the test gives (no secret from the parent). */
async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = spawnCli(args, env);
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** The value of the series whose full label set is given, parsed from exposition text. */
function seriesValues(text: string, name: string): Array<{ labels: string; value: number }> {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => {
      const cut = line.lastIndexOf(' ');
      return { labels: line.slice(name.length, cut), value: Number(line.slice(cut + 1)) };
    });
}

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, size: { assets: 300, replicatedVms: 40, storageSystems: 2 } });
});
afterAll(() => sim.close());

function configFile(name: string, targets: object[]): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ collection: { rpoByPolicy: {} }, targets }));
  return file;
}

describe('dataprotect-exporter --once', () => {
  it('prints every kind of metric with the simulator values, clean for promtool, and exits 0', async () => {
    const file = configFile('all.yaml', [
      { name: 'backup', kind: 'management', url: sim.urls.management, username: sim.username, password: '${SIM_PASSWORD}' },
      { name: 'replication', kind: 'replication', url: sim.urls.replication, username: sim.username, password: '${SIM_PASSWORD}' },
      { name: 'storage', kind: 'storage', url: sim.urls.storageCenter, username: sim.username, password: '${SIM_PASSWORD}' },
    ]);
    const { code, stdout, stderr } = await runCli(['--config', file, '--once'], { SIM_PASSWORD: sim.password });
    expect(stderr).not.toContain(sim.password);
    expect(stdout).not.toContain(sim.password);
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    expect(promtoolCheckMetrics(stdout)).toBe('');

    const live = sim.estate.management.assets().filter((asset) => !asset.deleted);
    expect(seriesValues(stdout, 'dataprotect_asset_info')).toHaveLength(live.length);
    const counted = seriesValues(stdout, 'dataprotect_assets').reduce((sum, s) => sum + s.value, 0);
    expect(counted).toBe(live.length);
    const withTime = live.find((asset) => asset.lastAvailableCopyTime);
    const lastCopy = seriesValues(stdout, 'dataprotect_asset_last_copy_timestamp_seconds').find((s) => s.labels.includes(`asset_id="${withTime!.id}"`));
    expect(lastCopy!.value).toBeGreaterThanOrEqual(Date.parse(withTime!.lastAvailableCopyTime!) / 1000);
    const size = seriesValues(stdout, 'dataprotect_asset_size_bytes').find((s) => s.labels.includes(`asset_id="${withTime!.id}"`));
    expect(size!.value).toBe(withTime!.size);

    for (const target of ['backup', 'replication', 'storage']) {
      expect(stdout).toContain(`dataprotect_up{target="${target}",kind="`);
      expect(seriesValues(stdout, 'dataprotect_up').find((s) => s.labels.includes(`target="${target}"`))!.value).toBe(1);
    }
    expect(seriesValues(stdout, 'dataprotect_collector_success').every((s) => s.value === 1)).toBe(true);
    expect(stdout).toMatch(/dataprotect_api_requests_total\{target="backup",endpoint="\/api\/v2\/assets",code="200"\} \d+/);
    expect(stdout).toContain('dataprotect_exporter_build_info{version="');
    expect(stdout).toContain(`dataprotect_replication_vm_info{target="replication"`);
    expect(stdout).toContain(`dataprotect_storage_physical_used_bytes{target="storage"`);
  });

  it('exits 1 when a collector fails, and reports the unreachable target as down', async () => {
    const file = configFile('down.yaml', [
      { name: 'backup', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password },
      { name: 'gone', kind: 'replication', url: 'http://127.0.0.1:1', username: 'u', password: 'p', maxAttempts: 1 },
    ]);
    const { code, stdout } = await runCli(['--config', file, '--once']);
    expect(code).toBe(1);
    expect(stdout).toContain('dataprotect_up{target="gone",kind="replication"} 0');
    expect(stdout).toContain('dataprotect_up{target="backup",kind="management"} 1');
    expect(stdout).toMatch(/dataprotect_collector_success\{target="gone",collector="[a-z-]+"\} 0/);
  });
});

describe('dataprotect-exporter --check-config and --help', () => {
  it('validates a good file without collecting', async () => {
    const file = configFile('good.yaml', [{ name: 'b', kind: 'management', url: 'http://127.0.0.1:1', username: 'u', password: 'p' }]);
    const { code, stdout } = await runCli(['--config', file, '--check-config']);
    expect(code).toBe(0);
    expect(stdout).toContain('configuration is valid (1 targets)');
  });

  it('prints every mistake of a bad file, one per line with its field path, and exits 2', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'web:\n  port: -1\ntargets:\n  - name: x\n    kind: tape\n    url: nope\n    username: u\n');
    const { code, stderr } = await runCli(['--config', file, '--check-config']);
    expect(code).toBe(2);
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toBe(`${file}: invalid configuration`);
    expect(lines.slice(1).sort()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^web\.port: /),
        expect.stringMatching(/^targets\[0\]\.kind: /),
        expect.stringMatching(/^targets\[0\]\.url: /),
        expect.stringMatching(/^targets\[0\]\.password: /),
      ]),
    );
  });

  it('refuses a TLS certificate or key that cannot serve, naming the setting and the file', async () => {
    const first = await generateSelfSignedCert();
    const other = await generateSelfSignedCert();
    const write = (name: string, content: string): string => {
      const file = join(dir, name);
      writeFileSync(file, content);
      return file;
    };
    const cert = write('tls.crt', first.cert);
    const key = write('tls.key', first.key);
    const garbage = write('garbage.pem', 'not a PEM file\n');
    const otherKey = write('other.key', other.key);
    const check = async (tls: { certFile: string; keyFile: string }) => {
      const file = join(dir, 'tls.yaml');
      writeFileSync(file, JSON.stringify({ web: { tls }, targets: [{ name: 'b', kind: 'management', url: 'http://127.0.0.1:1', username: 'u', password: 'p' }] }));
      const { code, stdout, stderr } = await runCli(['--config', file, '--check-config']);
      return { code, out: (stdout + stderr).trim().split('\n').at(-1) };
    };
    expect(await check({ certFile: cert, keyFile: key })).toEqual({ code: 0, out: expect.stringContaining('configuration is valid') });
    expect(await check({ certFile: garbage, keyFile: key })).toEqual({ code: 2, out: expect.stringMatching(`^web\\.tls\\.certFile: ${garbage} holds no usable PEM certificate`) });
    expect(await check({ certFile: cert, keyFile: garbage })).toEqual({ code: 2, out: expect.stringMatching(`^web\\.tls\\.keyFile: ${garbage} holds no usable unencrypted PEM private key`) });
    expect(await check({ certFile: cert, keyFile: otherKey })).toEqual({
      code: 2,
      out: `web.tls.keyFile: the key in ${otherKey} does not belong to the certificate in ${cert}`,
    });
  });

  it('reports a fatal start-up error as a JSON log line naming its class, and exits 2', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const file = join(dir, 'port-taken.yaml');
      writeConfig(file, [{ name: 'b', kind: 'management', url: 'http://127.0.0.1:1', username: 'u', password: 'p' }], {
        web: { listenAddress: '127.0.0.1', port: (taken.address() as AddressInfo).port },
      });
      const cli = spawnCli(['--config', file]);
      expect(await cli.exited).toBe(2);
      const fatal = cli.logs.find((line) => line.level === 'fatal');
      expect(fatal).toMatchObject({ msg: 'fatal error', service: 'dataprotect-exporter', err: { type: 'Error', code: 'EADDRINUSE' } });
      expect(cli.stdout() + cli.stderr()).not.toMatch(/^fatal: /m);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('documents its flags', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const flag of ['--config', '--check-config', '--once', '--output', '--help']) expect(stdout).toContain(flag);
    // the exit codes a systemd unit or a script tells apart
    expect(stdout).toMatch(/^\s+0\s+every collector succeeded/m);
    expect(stdout).toMatch(/^\s+1\s+a collector failed; the metrics were still written/m);
    expect(stdout).toMatch(/^\s+2\s+nothing was written/m);
  });
});
