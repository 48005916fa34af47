import { gunzipSync } from 'node:zlib';
import { parseConfig, type ExporterConfig } from '../../src/config/load';
import { defineCollector, type CollectorDefinition } from '../../src/collectors/types';
import { Exporter } from '../../src/exporter';
import { ExporterRuntime } from '../../src/runtime';
import { SelfMetrics } from '../../src/exporters/self-metrics';
import { MetricsRenderer } from '../../src/exporters/renderer';
import { familyMember } from '../../src/exporters/prepared';
import type { CollectorRecord } from '../../src/snapshot/store';
import { ApiError } from '../../src/clients/errors';
import { silentLogger } from '../support/collect';
import { promtoolCheckMetrics } from '../support/promtool';

/** A controllable management collector: each run does what `behaviour` says. */
function fakeCollector(name: string, behaviour: { next: 'ok' | 'fail' | 'unreachable' | 'hang' | 'badlabels'; assets: string[] }) {
  return defineCollector<'management', number>({
    name,
    kind: 'management',
    description: 'test collector',
    defaultSchedule: '0 0 1 1 *',
    metrics: ['dataprotect_asset_size_bytes'],
    async collect(ctx, signal) {
      const runs = (ctx.state ?? 0) + 1;
      if (behaviour.next === 'fail') throw new ApiError('parse', '/api/v2/assets', 'malformed JSON');
      if (behaviour.next === 'unreachable') throw new ApiError('network', '/api/v2/assets', 'ECONNREFUSED');
      if (behaviour.next === 'hang') await new Promise(() => undefined); // ignores its signal on purpose
      if (behaviour.next === 'badlabels') return { samples: [{ name: 'dataprotect_asset_size_bytes', labels: { target: ctx.target.name }, value: 1 }] };
      signal.throwIfAborted();
      return {
        state: runs,
        samples: behaviour.assets.map((id) => ({
          name: 'dataprotect_asset_size_bytes' as const,
          labels: { target: ctx.target.name, asset_id: id, asset_name: `vm "${id}"\\\n`, asset_type: 'VM', policy: 'Gold' },
          value: runs * 100,
        })),
      };
    },
  });
}

function config(targets: string[], collection: Record<string, unknown> = {}): ExporterConfig {
  return parseConfig({
    web: { listenAddress: '127.0.0.1', port: 0 },
    collection,
    targets: targets.map((name) => ({ name, kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' })),
  });
}

function harness(targets: string[], collectors: CollectorDefinition[], collection: Record<string, unknown> = {}, now = { t: Date.now() }) {
  const first = config(targets, collection);
  const runtime = new ExporterRuntime(first, {
    logger: silentLogger,
    collectorsFor: (kind) => (kind === 'management' ? collectors : []),
  });
  const renderer = new MetricsRenderer(() => runtime.store, new SelfMetrics({ processMetrics: false }), () => first.collection.staleAfter, () => now.t);
  return { runtime, renderer, now };
}

describe('runtime: snapshot, staleness, time limits', () => {
  it('publishes a run, keeps the last good series while failing, then drops them after staleAfter', async () => {
    const behaviour = { next: 'ok' as 'ok' | 'fail', assets: ['a', 'b'] };
    const { runtime, renderer, now } = harness(['t1'], [fakeCollector('fake', behaviour)], { staleAfter: '10m' });
    expect(await runtime.runOnce()).toEqual(['success']);
    let text = await renderer.render();
    expect(text).toContain('dataprotect_asset_size_bytes{target="t1",asset_id="a",asset_name="vm \\"a\\"\\\\\\n",asset_type="VM",policy="Gold"} 100');
    expect(text).toContain('dataprotect_collector_success{target="t1",collector="fake"} 1');
    expect(text).toContain('dataprotect_up{target="t1",kind="management"} 1');
    expect(promtoolCheckMetrics(text)).toBe('');

    behaviour.assets = ['a']; // b disappeared from the source: its series go at the next collection
    await runtime.runOnce();
    text = await renderer.render();
    expect(text).toContain('asset_id="a"');
    expect(text).not.toContain('asset_id="b"');
    expect(text).toMatch(/dataprotect_asset_size_bytes\{[^}]*asset_id="a"[^}]*\} 200/);

    behaviour.next = 'fail';
    expect(await runtime.runOnce()).toEqual(['failure']);
    text = await renderer.render();
    expect(text).toContain('dataprotect_collector_success{target="t1",collector="fake"} 0');
    expect(text).toContain('dataprotect_collector_failures_total{target="t1",collector="fake"} 1');
    expect(text).toMatch(/dataprotect_asset_size_bytes\{[^}]*\} 200/); // last good value kept
    expect(text).toContain('dataprotect_up{target="t1",kind="management"} 1'); // the API answered, with bad data

    now.t += 11 * 60_000;
    text = await renderer.render();
    expect(text).not.toContain('dataprotect_asset_size_bytes{');
    expect(text).toContain('dataprotect_collector_success{target="t1",collector="fake"} 0');

    behaviour.next = 'ok';
    await runtime.runOnce();
    now.t = Date.now();
    text = await renderer.render();
    expect(text).toMatch(/dataprotect_asset_size_bytes\{[^}]*\} 300/); // the state of failed runs was not kept
    await runtime.stop();
  });

  it('marks a target down when its source is unreachable, without touching another target', async () => {
    const behaviours: Record<string, { next: 'ok' | 'unreachable'; assets: string[] }> = {};
    const collector = defineCollector<'management', undefined>({
      name: 'per-target',
      kind: 'management',
      description: 'test',
      defaultSchedule: '0 0 1 1 *',
      metrics: ['dataprotect_asset_size_bytes'],
      collect: (ctx, signal) => fakeCollector('x', behaviours[ctx.target.name]!).collect(ctx as never, signal) as never,
    });
    behaviours.good = { next: 'ok', assets: ['g'] };
    behaviours.bad = { next: 'unreachable', assets: [] };
    const { runtime, renderer } = harness(['good', 'bad'], [collector]);
    expect((await runtime.runOnce()).sort()).toEqual(['failure', 'success']);
    const text = await renderer.render();
    expect(text).toContain('dataprotect_up{target="good",kind="management"} 1');
    expect(text).toContain('dataprotect_up{target="bad",kind="management"} 0');
    expect(text).toContain('asset_id="g"');
    const probe = await renderer.render('bad');
    expect(probe).not.toContain('target="good"');
    expect(probe).toContain('dataprotect_up{target="bad",kind="management"} 0');
    await runtime.stop();
  });

  it('ends a run that exceeds its time limit even when the collector ignores its signal, and never overlaps runs', async () => {
    const behaviour = { next: 'hang' as const, assets: [] };
    const runtime = new ExporterRuntime(
      parseConfig({
        targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p', collectors: { slow: { timeout: '300ms' } } }],
      }),
      { logger: silentLogger, collectorsFor: () => [fakeCollector('slow', behaviour)] },
    );
    const first = runtime.runOnce();
    const second = await runtime.runOnce(); // while the first is still running
    expect(second).toEqual(['skipped']);
    expect(await first).toEqual(['failure']);
    const record = runtime.store.get('t', 'slow')!;
    expect(record.lastError).toMatch(/did not finish within its time limit of 300 ms/);
    expect(record.skippedRuns).toBe(1);
    expect(record.unreachableSince).toBeUndefined(); // slow is not down: dataprotect_up stays 1
    await runtime.stop();
  });

  it('doubles the default time limit after a run it cut off, up to 5 minutes, until a run succeeds; a configured one stays', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const limits: number[] = [];
    let succeed = false;
    const backfilling = defineCollector<'management', undefined>({
      name: 'backfilling',
      kind: 'management',
      description: 'test collector',
      defaultSchedule: '* * * * *',
      metrics: ['dataprotect_assets'],
      async collect(ctx) {
        limits.push(ctx.timeLimit?.totalMs ?? 0);
        if (!succeed) await new Promise(() => undefined); // cut off by its time limit
        return { samples: [] };
      },
    });
    const runtimeWith = (collectors: Record<string, unknown>) =>
      new ExporterRuntime(parseConfig({ targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p', collectors }] }), {
        logger: silentLogger,
        collectorsFor: () => [backfilling],
      });
    const cutOff = async (runtime: ExporterRuntime, afterMs: number) => {
      const run = runtime.runOnce();
      await jest.advanceTimersByTimeAsync(afterMs);
      expect(await run).toEqual(['failure']);
    };
    const byDefault = runtimeWith({});
    const configured = runtimeWith({ backfilling: { timeout: '30s' } });
    try {
      for (const ms of [48_000, 96_000, 192_000, 300_000]) await cutOff(byDefault, ms);
      expect(byDefault.store.get('t', 'backfilling')!.lastError).toMatch(/time limit of 300000 ms/);
      succeed = true;
      expect(await byDefault.runOnce()).toEqual(['success']);
      expect(await byDefault.runOnce()).toEqual(['success']);
      expect(limits).toEqual([48_000, 96_000, 192_000, 300_000, 300_000, 48_000]);
      succeed = false;
      limits.length = 0;
      for (let run = 0; run < 2; run++) await cutOff(configured, 30_000);
      expect(limits).toEqual([30_000, 30_000]);
    } finally {
      jest.useRealTimers();
      await byDefault.stop();
      await configured.stop();
    }
  });

  it('tells a collector its time limit and what is left of it, by the monotonic clock', async () => {
    let clock = 5_000;
    const monotonic = jest.spyOn(performance, 'now').mockImplementation(() => clock);
    const seen: Array<[number | undefined, number | undefined]> = [];
    const limited = defineCollector<'management', undefined>({
      name: 'limited',
      kind: 'management',
      description: 'test collector',
      defaultSchedule: '0 0 1 1 *',
      metrics: ['dataprotect_assets'],
      async collect(ctx) {
        seen.push([ctx.timeLimit?.totalMs, ctx.timeLimit?.leftMs()]);
        clock += 400;
        seen.push([ctx.timeLimit?.totalMs, ctx.timeLimit?.leftMs()]);
        return { samples: [] };
      },
    });
    const runtime = new ExporterRuntime(
      parseConfig({
        targets: [{ name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p', collectors: { limited: { timeout: '1s' } } }],
      }),
      { logger: silentLogger, collectorsFor: () => [limited] },
    );
    try {
      expect(await runtime.runOnce()).toEqual(['success']);
      expect(seen).toEqual([
        [1000, 1000],
        [1000, 600],
      ]);
    } finally {
      monotonic.mockRestore();
      await runtime.stop();
    }
  });

  it('stores each result ready to serve: one gzip member per family, no series objects', async () => {
    const exporter = new Exporter(config(['t1']), silentLogger, { collectorsFor: () => [fakeCollector('fake', { next: 'ok', assets: ['a', 'b'] })] });
    try {
      expect(await exporter.runtime.runOnce()).toEqual(['success']);
      const stored = exporter.runtime.store.get('t1', 'fake') as CollectorRecord;
      expect(Object.keys(stored)).not.toContain('samples');
      const member = familyMember(stored.result!, 'dataprotect_asset_size_bytes');
      expect(gunzipSync(member!).toString('utf8')).toContain('asset_id="b"');
    } finally {
      await exporter.stop();
    }
  });

  it('fails a run whose series do not match the catalog instead of publishing them', async () => {
    const { runtime } = harness(['t'], [fakeCollector('bad', { next: 'badlabels', assets: [] })]);
    expect(await runtime.runOnce()).toEqual(['failure']);
    expect(runtime.store.get('t', 'bad')!.lastError).toMatch(/dataprotect_asset_size_bytes needs labels \[target, asset_id, asset_name, asset_type, policy\]/);
    await runtime.stop();
  });

  it('first round: a collector waits for the collectors it reads from (`after`), the others of the target run at the same time', async () => {
    const events: string[] = [];
    const release = new Map<string, () => void>();
    const gated = (name: string, after?: string[]) =>
      defineCollector<'management', undefined>({
        name,
        kind: 'management',
        description: 'test collector',
        defaultSchedule: '0 0 1 1 *',
        metrics: ['dataprotect_asset_size_bytes'],
        ...(after ? { after } : {}),
        async collect() {
          events.push(`start ${name}`);
          await new Promise<void>((resolve) => release.set(name, resolve));
          events.push(`end ${name}`);
          return { samples: [] };
        },
      });
    const { runtime } = harness(['t1'], [gated('list'), gated('serial'), gated('reader', ['list', 'disabled-or-unknown'])]);
    const round = runtime.runOnce();
    const started = async (name: string) => {
      while (!release.has(name)) await new Promise((resolve) => setImmediate(resolve));
    };
    await started('list');
    await started('serial');
    // both independent collectors run at once; the reader has not started
    expect(events).toEqual(['start list', 'start serial']);
    release.get('serial')?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).not.toContain('start reader');
    release.get('list')?.();
    await started('reader');
    expect(events.indexOf('start reader')).toBeGreaterThan(events.indexOf('end list'));
    release.get('reader')?.();
    expect(await round).toEqual(['success', 'success', 'success']);
    await runtime.stop();
  });

  it('reload: adds and removes targets, keeps the unchanged ones with their state', async () => {
    const behaviour = { next: 'ok' as const, assets: ['a'] };
    const { runtime, renderer } = harness(['keep', 'drop'], [fakeCollector('fake', behaviour)]);
    await runtime.runOnce();
    await runtime.runOnce();
    const change = await runtime.applyConfig(config(['keep', 'new']));
    expect(change).toEqual({ added: ['new'], removed: ['drop'], restarted: [], rescheduled: [] });
    const text = await renderer.render();
    expect(text).not.toContain('target="drop"');
    expect(runtime.store.get('keep', 'fake')!.runs).toBe(2);
    await runtime.runOnce();
    expect(runtime.store.get('keep', 'fake')!.runs).toBe(3);
    expect(runtime.store.get('new', 'fake')!.runs).toBe(1);
    expect(await renderer.render()).toMatch(/target="keep"[^}]*\} 300/); // state kept across the reload
    await runtime.stop();
  });

  it('reload: a change of schedules only reschedules the target, keeping its state; a disabled collector goes, a changed URL restarts', async () => {
    const behaviour = { next: 'ok' as const, assets: ['a'] };
    const collectors = [fakeCollector('fake', behaviour), fakeCollector('other', behaviour)];
    const base = { name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' };
    const { runtime, renderer } = harness(['t'], collectors);
    await runtime.runOnce();
    await runtime.runOnce();
    const rescheduled = await runtime.applyConfig(
      parseConfig({ targets: [{ ...base, collectors: { fake: { schedule: '*/5 * * * *' }, other: { enabled: false } } }] }),
    );
    expect(rescheduled).toEqual({ added: [], removed: [], restarted: [], rescheduled: ['t'] });
    expect(runtime.store.get('t', 'other')).toBeUndefined();
    expect(runtime.store.get('t', 'fake')!.scheduleIntervalSeconds).toBe(300);
    expect(await renderer.render()).toMatch(/target="t"[^}]*\} 200/); // series kept while rescheduling
    await runtime.runOnce();
    expect(await renderer.render()).toMatch(/target="t"[^}]*\} 300/); // the third run continues from the second's state

    const restarted = await runtime.applyConfig(parseConfig({ targets: [{ ...base, url: 'http://127.0.0.1:10' }] }));
    expect(restarted).toEqual({ added: [], removed: [], restarted: ['t'], rescheduled: [] });
    await runtime.runOnce();
    expect(await renderer.render()).toMatch(/target="t"[^}]*\} 100/); // a new source starts afresh
    await runtime.stop();
  });

  it('hands collectors when their first run started: kept through failed runs and a reschedule, new after a restart', async () => {
    const seen: number[] = [];
    let fail = true;
    const recorder = defineCollector<'management', number>({
      name: 'recorder',
      kind: 'management',
      description: 'test collector',
      defaultSchedule: '0 0 1 1 *',
      metrics: [],
      async collect(ctx) {
        seen.push(ctx.collectingSince.getTime());
        if (fail) throw new ApiError('timeout', '/api/v2/activities', 'no answer');
        return { samples: [], state: 1 };
      },
    });
    const clock = { ms: 1_000_000 };
    const base = { name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' };
    const runtime = new ExporterRuntime(parseConfig({ targets: [base] }), {
      logger: silentLogger,
      now: () => new Date(clock.ms),
      collectorsFor: () => [recorder],
    });
    expect(await runtime.runOnce()).toEqual(['failure']); // the first run, at 1,000,000, fails
    clock.ms += 60_000;
    expect(await runtime.runOnce()).toEqual(['failure']);
    clock.ms += 60_000;
    fail = false;
    expect(await runtime.runOnce()).toEqual(['success']);
    clock.ms += 60_000;
    await runtime.applyConfig(parseConfig({ targets: [{ ...base, collectors: { recorder: { schedule: '*/5 * * * *' } } }] }));
    await runtime.runOnce();
    expect(seen).toEqual([1_000_000, 1_000_000, 1_000_000, 1_000_000]);

    await runtime.applyConfig(parseConfig({ targets: [{ ...base, url: 'http://127.0.0.1:10' }] }));
    clock.ms += 60_000;
    await runtime.runOnce();
    expect(seen.at(-1)).toBe(clock.ms); // a new source: counting starts again
    await runtime.stop();
  });
});

describe('HTTP endpoints', () => {
  it('serves /healthz, /readyz (ready once listening, whatever the sources do), /metrics, /probe and the landing page', async () => {
    let release: () => void = () => undefined;
    const firstRunGate = new Promise<void>((resolve) => (release = resolve));
    const inner = fakeCollector('fake', { next: 'ok', assets: ['a'] });
    const gated = defineCollector<'management', number>({
      ...inner,
      async collect(ctx, signal) {
        await firstRunGate;
        return inner.collect(ctx, signal);
      },
    });
    const exporter = new Exporter(config(['t1']), silentLogger, { collectorsFor: () => [gated] });
    await exporter.start();
    try {
      const base = exporter.address();
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      // The first collection is held: the process serves scrapes all the same, so it is ready,
      // and the first round's state is in a metric and on the landing page.
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('\ndataprotect_exporter_first_round_complete 0\n');
      expect(await (await fetch(`${base}/`)).text()).toContain('waiting for the first run');
      release();
      // complete once the released first round has finished, however long that takes (the test's time limit bounds it)
      while (!(await (await fetch(`${base}/metrics`)).text()).includes('\ndataprotect_exporter_first_round_complete 1\n')) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      const text = await metrics.text();
      expect(text).toContain('\ndataprotect_exporter_first_round_complete 1\n');
      expect(text).toContain('dataprotect_exporter_build_info{version="');
      expect(text).toContain('dataprotect_asset_size_bytes{target="t1"');
      expect(text).toContain('process_cpu_user_seconds_total');
      // prom-client's own nodejs_*_total gauges are its naming, not ours: lint our families.
      const ours = text.split('\n').filter((line) => line.includes('dataprotect_')).join('\n') + '\n';
      expect(promtoolCheckMetrics(ours)).toBe('');
      expect((await fetch(`${base}/probe?target=nope`)).status).toBe(400);
      expect((await fetch(`${base}/probe`)).status).toBe(400);
      const probe = await (await fetch(`${base}/probe?target=t1`)).text();
      expect(probe).toContain('dataprotect_up{target="t1",kind="management"} 1');
      expect(probe).not.toContain('process_cpu');
      const landing = await (await fetch(`${base}/`)).text();
      expect(landing).toContain('<h2>t1');
      expect(landing).toMatch(/fake<\/td><td>ok at/);
    } finally {
      release();
      await exporter.stop();
    }
  });
});
