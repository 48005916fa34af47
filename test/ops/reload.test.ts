/**
 * Reload: the configuration file is re-read on SIGHUP and when it changes
 * (an editor's rename, a Kubernetes ConfigMap `..data` symlink swap); a bad
 * file is rejected with a log line while the running configuration keeps
 * serving; targets are added and removed without touching the others.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import pino from 'pino';
import { loadConfigFile, type ExporterConfig } from '../../src/config/load';
import { ConfigReloader } from '../../src/reloader';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { eventually, spawnCli, type CliProcess, type LogLine } from '../support/cli-process';

let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, size: { replicatedVms: 8, replicationClusters: 2 } });
  dir = mkdtempSync(join(tmpdir(), 'reload-'));
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const replication = (name: string) => ({ name, kind: 'replication', url: sim.urls.replication, username: sim.username, password: '${SIM_PASSWORD}' });

/** dataprotect_config_last_reload_successful and its timestamp, as /metrics shows them. */
async function reloadSeries(address: string): Promise<{ successful: number; at: number }> {
  const text = await (await fetch(`${address}/metrics`)).text();
  const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return { successful: value('dataprotect_config_last_reload_successful'), at: value('dataprotect_config_last_reload_success_timestamp_seconds') };
}

/** The set of targets /metrics shows dataprotect_up for. */
async function targetsUp(address: string): Promise<string[]> {
  const response = await fetch(`${address}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  const text = await response.text();
  return [...text.matchAll(/^dataprotect_up\{target="([^"]+)",kind="replication"\} 1$/gm)].map((match) => match[1] as string).sort();
}

const reloaded = (trigger: string, count: number) => (cli: CliProcess) =>
  eventually(() => cli.logs.filter((line) => line.msg === 'configuration reloaded' && line.trigger === trigger).length >= count && cli.logs.filter((line) => line.msg === 'configuration reloaded').at(-1), 15_000, `reload #${count} by ${trigger}`);

describe('configuration reload of the running exporter', () => {
  it('follows ConfigMap symlink swaps and editor renames, rejects a broken file and keeps serving', async () => {
    // The layout of a ConfigMap volume: config.yaml -> ..data/config.yaml, ..data -> ..<timestamp>
    const volume = join(dir, 'configmap');
    mkdirSync(volume);
    let generation = 0;
    const publish = (content: string): void => {
      const version = `..v${++generation}`;
      mkdirSync(join(volume, version));
      writeFileSync(join(volume, version, 'config.yaml'), content);
      symlinkSync(version, join(volume, '..data_tmp'));
      renameSync(join(volume, '..data_tmp'), join(volume, '..data')); // the atomic swap kubelet does
      if (generation > 1) rmSync(join(volume, `..v${generation - 1}`), { recursive: true });
    };
    const document = (targets: object[], logLevel = 'info') => stringify({ web: { listenAddress: '127.0.0.1', port: 0 }, logLevel, targets });
    publish(document([replication('alpha'), replication('beta')]));
    symlinkSync(join('..data', 'config.yaml'), join(volume, 'config.yaml'));
    const file = join(volume, 'config.yaml');

    const cli = spawnCli(['--config', file], { SIM_PASSWORD: sim.password });
    try {
      const address = String((await cli.waitForLog((line) => line.msg === 'listening')).address);
      expect(await eventually(async () => (await targetsUp(address)).length === 2 && targetsUp(address), 20_000, 'first collection')).toEqual(['alpha', 'beta']);
      const atStart = await reloadSeries(address);
      expect(atStart.successful).toBe(1);
      expect(atStart.at).toBeGreaterThan(0);

      // 1. ConfigMap update: beta removed, gamma added; alpha keeps running untouched.
      publish(document([replication('alpha'), replication('gamma')]));
      const change: LogLine = await reloaded('file change', 1)(cli);
      expect(change).toMatchObject({ added: ['gamma'], removed: ['beta'], restarted: [] });
      expect(await eventually(async () => (await targetsUp(address)).includes('gamma') && targetsUp(address), 20_000, 'gamma collected')).toEqual(['alpha', 'gamma']);
      expect(await (await fetch(`${address}/metrics`)).text()).not.toContain('target="beta"');
      const afterUpdate = await reloadSeries(address);
      expect(afterUpdate.successful).toBe(1);
      expect(afterUpdate.at).toBeGreaterThanOrEqual(atStart.at);

      // 2. A broken file: rejected with the problem, the exporter keeps serving the last good configuration.
      publish(document([replication('alpha'), { ...replication('delta'), url: 'not a url' }]));
      const rejected = await cli.waitForLog((line) => String(line.msg).startsWith('configuration reload rejected'), 15_000);
      expect(rejected).toMatchObject({ level: 'error', trigger: 'file change' });
      expect(rejected.problems).toEqual(['targets[1].url: must be an http:// or https:// URL']);
      expect(await targetsUp(address)).toEqual(['alpha', 'gamma']);
      expect((await fetch(`${address}/probe?target=delta`)).status).toBe(400);
      // Visible to monitoring: the last load failed, the last success is still the update's.
      expect(await reloadSeries(address)).toEqual({ successful: 0, at: afterUpdate.at });

      // 3. SIGHUP re-reads the file even though it did not change: rejected again.
      cli.child.kill('SIGHUP');
      await eventually(() => cli.logs.some((line) => String(line.msg).startsWith('configuration reload rejected') && line.trigger === 'SIGHUP'), 15_000, 'SIGHUP rejection');
      expect(await targetsUp(address)).toEqual(['alpha', 'gamma']);

      // 4. An editor saves by writing a new file and renaming it over the old one (here over the symlink).
      //    It also changes logLevel, which waits for a restart: the reload says so.
      writeFileSync(join(volume, '.config.yaml.swp'), document([replication('gamma')], 'debug'));
      renameSync(join(volume, '.config.yaml.swp'), file);
      const edit = await reloaded('file change', 2)(cli);
      expect(edit).toMatchObject({ added: [], removed: ['alpha'], restarted: [] });
      expect(await targetsUp(address)).toEqual(['gamma']);
      expect(cli.logs.filter((line) => line.msg === 'changed settings take effect at the next restart').map((line) => line.settings)).toEqual([['logLevel']]);
      expect((await reloadSeries(address)).successful).toBe(1);

      // Secrets never reach the logs.
      expect(cli.stdout()).not.toContain(sim.password);
    } finally {
      await cli.stop();
    }
    expect(await cli.exited).toBe(0);
  });
});

describe('ConfigReloader', () => {
  const logger = pino({ level: 'silent' });
  const valid = (names: string[]): string =>
    stringify({ targets: names.map((name) => ({ name, kind: 'replication', url: 'http://127.0.0.1:9', username: 'u', password: 'p' })) });
  const read = (file: string): ExporterConfig => loadConfigFile(file);

  it('applies a burst of writes once, after the writes stop, and ignores events that do not change the text', async () => {
    const file = join(dir, 'burst.yaml');
    writeFileSync(file, valid(['a']));
    const applied: string[][] = [];
    // Fake timers: the debounce moves only when the test moves the clock, so a slow machine
    // cannot stretch a gap between two writes past it. File events and setImmediate stay real.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const reloader = new ConfigReloader({
      file,
      read,
      apply: async (config) => {
        applied.push(config.targets.map((target) => target.name));
        return {};
      },
      logger,
      debounceMs: 150,
    });
    reloader.watch();
    // A second watch on the directory: libuv hands each event to every watch of the directory
    // in one go, so once this one has seen it and the loop has turned, the reloader has too.
    let events = 0;
    const observer = watch(dir, { persistent: false }, () => (events += 1));
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const write = async (path: string, text: string): Promise<void> => {
      const before = events;
      writeFileSync(path, text);
      while (events === before) await turn();
      await turn();
    };
    try {
      for (let i = 0; i < 5; i++) {
        await write(file, valid(['a', `b${i}`]));
        await jest.advanceTimersByTimeAsync(100); // less than the debounce: the next write restarts it
      }
      await jest.advanceTimersByTimeAsync(49);
      await turn();
      expect(applied).toEqual([]); // 149 ms after the last write
      while (applied.length === 0) {
        await jest.advanceTimersByTimeAsync(1);
        await turn();
      }
      expect(applied).toEqual([['a', 'b4']]);

      await write(file, valid(['a', 'b4'])); // same text: no reload
      await write(join(dir, 'unrelated.txt'), 'x'); // another file of the directory
      await jest.advanceTimersByTimeAsync(1_000);
      await turn();
      expect(applied).toHaveLength(1);
      expect(await reloader.reload('SIGHUP')).toBe('applied'); // SIGHUP always re-applies
      expect(applied).toHaveLength(2);
    } finally {
      observer.close();
      await reloader.close();
      jest.useRealTimers();
    }
  });

  it('rejects a configuration that apply refuses, and runs reloads one at a time', async () => {
    const file = join(dir, 'serial.yaml');
    writeFileSync(file, valid(['a']));
    let running = 0;
    let overlapped = false;
    const reloader = new ConfigReloader({
      file,
      read,
      apply: async () => {
        running += 1;
        overlapped ||= running > 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
        running -= 1;
        if (readFileSync(file, 'utf8').includes('refused')) throw new Error('web.tls.certFile: cannot read /nope (ENOENT)');
        return {};
      },
      logger,
    });
    expect(await Promise.all([reloader.reload('SIGHUP'), reloader.reload('SIGHUP'), reloader.reload('SIGHUP')])).toEqual(['applied', 'applied', 'applied']);
    expect(overlapped).toBe(false);
    writeFileSync(file, valid(['refused']));
    expect(await reloader.reload('SIGHUP')).toBe('rejected');
    writeFileSync(file, 'targets: [');
    expect(await reloader.reload('SIGHUP')).toBe('rejected');
    await reloader.close();
  });
});
