import { gunzipSync } from 'node:zlib';
import { familyMember } from '../../src/exporters/prepared';
/**
 * A reload that removes or restarts a target while its first round of
 * collections is still going on: once applyConfig has returned, none of the
 * old target's collectors runs any more (it would run on a closing client and
 * report into the records of the restarted target, or into records already
 * removed, an unhandled rejection).
 */
import { parseConfig } from '../../src/config/load';
import { defineCollector, type CollectorDefinition } from '../../src/collectors/types';
import { ExporterRuntime } from '../../src/runtime';
import { silentLogger } from '../support/collect';

function config(url: string, names: string[]) {
  return parseConfig({ targets: names.map((name) => ({ name, kind: 'management', url, username: 'u', password: 'p' })) });
}

interface Call {
  target: string;
  collector: string;
  url: string;
}

/**
 * Collectors that record each call; `first` waits for `gate` on the targets named in `gated`,
 * and the others wait for it in a first round (`after`), as readers of a published list do.
 */
function collectors(calls: Call[], gate: Promise<void>, gated: (target: string, url: string) => boolean): CollectorDefinition[] {
  return ['first', 'second', 'third'].map((name, index, names) =>
    defineCollector<'management', undefined>({
      name,
      kind: 'management',
      description: 'test collector',
      defaultSchedule: '0 0 1 1 *',
      metrics: ['dataprotect_assets'],
      ...(index > 0 ? { after: [names[index - 1] as string] } : {}),
      async collect(ctx) {
        calls.push({ target: ctx.target.name, collector: name, url: ctx.target.url });
        if (name === 'first' && gated(ctx.target.name, ctx.target.url)) await gate;
        return { samples: [{ name: 'dataprotect_assets', labels: { target: ctx.target.name, asset_type: ctx.target.url, protection_status: name }, value: 1 }] };
      },
    }),
  );
}

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition` holds, however long the machine takes (the test's time limit bounds it). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await tick(5);
}

describe('reload while a target is in its first round', () => {
  let rejections: unknown[];
  const onRejection = (reason: unknown): void => void rejections.push(reason);
  beforeEach(() => {
    rejections = [];
    process.on('unhandledRejection', onRejection);
  });
  afterEach(() => {
    process.off('unhandledRejection', onRejection);
  });

  it('restarted target: the old jobs run no more, the new ones report alone', async () => {
    const calls: Call[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const oldUrl = 'http://127.0.0.1:9';
    const newUrl = 'http://127.0.0.1:10';
    const runtime = new ExporterRuntime(config(oldUrl, ['t']), {
      logger: silentLogger,
      collectorsFor: () => collectors(calls, gate, (_, url) => url === oldUrl),
    });
    runtime.start();
    await until(() => calls.length === 1); // the old `first` is waiting
    const applying = runtime.applyConfig(config(newUrl, ['t']));
    await tick(20);
    release();
    expect(await applying).toEqual({ added: [], removed: [], restarted: ['t'], rescheduled: [] });
    await until(() => runtime.store.get('t', 'third')?.lastRunEndAt !== undefined); // the new round ends
    await runtime.stop();
    expect(calls.filter((call) => call.url === oldUrl).map((call) => call.collector)).toEqual(['first']);
    expect(calls.filter((call) => call.url === newUrl).map((call) => call.collector)).toEqual(['first', 'second', 'third']);
    for (const name of ['first', 'second', 'third']) {
      const record = runtime.store.get('t', name);
      expect(record?.runs).toBe(1);
      expect(gunzipSync(familyMember(record!.result!, 'dataprotect_assets')!).toString('utf8')).toContain(`asset_type="${newUrl}"`);
    }
    expect(rejections).toEqual([]);
  });

  it('removed target: its remaining collectors never start', async () => {
    const calls: Call[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const url = 'http://127.0.0.1:9';
    const runtime = new ExporterRuntime(config(url, ['keep', 'gone']), {
      logger: silentLogger,
      collectorsFor: () => collectors(calls, gate, (target) => target === 'gone'),
    });
    runtime.start();
    await until(() => calls.some((call) => call.target === 'gone')); // the gone target's `first` is waiting
    const applying = runtime.applyConfig(config(url, ['keep']));
    await tick(20);
    release();
    expect(await applying).toEqual({ added: [], removed: ['gone'], restarted: [], rescheduled: [] });
    await until(() => runtime.store.get('keep', 'third')?.lastRunEndAt !== undefined); // the kept target's round ends
    await runtime.stop();
    expect(calls.filter((call) => call.target === 'gone').map((call) => call.collector)).toEqual(['first']);
    expect(calls.filter((call) => call.target === 'keep').map((call) => call.collector)).toEqual(['first', 'second', 'third']);
    expect(runtime.store.all().map((record) => record.target)).toEqual(['keep', 'keep', 'keep']);
    expect(rejections).toEqual([]);
  });

  it('shutdown during the first round: nothing starts after stop()', async () => {
    const calls: Call[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const runtime = new ExporterRuntime(config('http://127.0.0.1:9', ['t']), {
      logger: silentLogger,
      collectorsFor: () => collectors(calls, gate, () => true),
    });
    runtime.start();
    await until(() => calls.length === 1); // `first` is waiting
    const stopping = runtime.stop();
    await tick(20);
    release();
    await stopping;
    await tick(50);
    expect(calls.map((call) => call.collector)).toEqual(['first']);
    expect(rejections).toEqual([]);
  });
});
