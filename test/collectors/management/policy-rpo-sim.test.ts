/**
 * Each policy's RPO over real HTTP against the simulator: what the
 * protection-policies collector exports (value and source) and what the
 * assets collector gives each protected asset equal what the simulator's
 * truth implies, for configured, scheduled, unscheduled and unknown-frequency
 * policies; an unreadable schedule is logged once per policy and reason.
 */
import pino from 'pino';
import { Writable } from 'node:stream';
import { assetsCollector } from '../../../src/collectors/management/assets';
import { protectionPoliciesCollector, type ProtectionPoliciesState } from '../../../src/collectors/management/protection-policies';
import { UNKNOWN_FREQUENCY } from '../../../simulator/management/catalog';
import type { ProtectionPolicy } from '../../../simulator/management/model';
import type { RunningSimulator } from '../../../simulator';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

const HOUR = 3_600_000;
const DEFAULT_RPO = 30 * HOUR;

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  // nine policies: eight ACTIVE ones show every kind of schedule, and one EXCLUDED
  sim = await startManagementSimulator({ assets: 150, protectionPolicies: 9 });
  h = managementHarness(sim);
});

afterAll(() => sim.close());

function protectionSchedules(policy: ProtectionPolicy) {
  return policy.stages.filter((stage) => stage.type === 'PROTECTION').flatMap((stage) => stage.operations.map((operation) => operation.schedule));
}

function activePolicies(): ProtectionPolicy[] {
  return sim.estate.management.policies().filter((policy) => policy.type === 'ACTIVE');
}

/** Captures the warnings a collector logs. */
function warningsLogger(): { logger: pino.Logger; warnings: Array<Record<string, unknown>> } {
  const warnings: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) warnings.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, sink), warnings };
}

/** The truth's RPO and source of a policy under these settings: rpoByPolicy, the schedule, the default. */
function truthOf(policy: ProtectionPolicy, rpoByPolicy: Record<string, number>): { seconds: number; source: string } {
  const configured = rpoByPolicy[policy.name] ?? rpoByPolicy[policy.id];
  if (configured !== undefined) return { seconds: configured / 1000, source: 'config' };
  const fromSchedule = sim.estate.management.scheduleRpoMs(policy.id);
  return fromSchedule === null ? { seconds: DEFAULT_RPO / 1000, source: 'default' } : { seconds: fromSchedule / 1000, source: 'schedule' };
}

describe('policy RPO against the simulator', () => {
  it("the simulator's policies show hourly (several intervals), daily, weekly, null and unknown-frequency schedules", () => {
    const schedules = activePolicies().flatMap(protectionSchedules);
    const hourlyIntervals = new Set(schedules.filter((s) => s?.frequency === 'HOURLY').map((s) => s?.interval));
    expect(hourlyIntervals.size).toBeGreaterThanOrEqual(2);
    for (const frequency of ['MINUTELY', 'DAILY', 'WEEKLY', 'YEARLY', UNKNOWN_FREQUENCY]) expect({ frequency, shown: schedules.some((s) => s?.frequency === frequency) }).toEqual({ frequency, shown: true });
    expect(schedules).toContain(null);
  });

  it('exports every policy RPO with its source as the truth implies (config by name and id, schedule, default)', async () => {
    const [byName, byId] = activePolicies().filter((policy) => sim.estate.management.scheduleRpoMs(policy.id) !== null);
    if (!byName || !byId) throw new Error('the simulator has fewer than two scheduled policies');
    const rpoByPolicy = { [byName.name]: 2 * HOUR, [byId.id]: 3 * HOUR };
    const result = await run(protectionPoliciesCollector, sim, h, { settings: { rpoByPolicy, defaultRpo: DEFAULT_RPO } });

    const exported = samplesNamed(result, 'dataprotect_policy_rpo_seconds').map((s) => ({ id: s.labels.policy_id, name: s.labels.policy, seconds: s.value, source: s.labels.source }));
    const expected = activePolicies().map((policy) => ({ id: policy.id, name: policy.name, ...truthOf(policy, rpoByPolicy) }));
    const byIdOrder = (a: { id?: string }, b: { id?: string }) => String(a.id).localeCompare(String(b.id));
    expect(exported.sort(byIdOrder)).toEqual(expected.sort(byIdOrder));
    // every source is shown, and the scheduled values are not all one figure
    expect(new Set(expected.map((e) => e.source))).toEqual(new Set(['config', 'schedule', 'default']));
    expect(new Set(expected.filter((e) => e.source === 'schedule').map((e) => e.seconds)).size).toBeGreaterThanOrEqual(3);
    // the EXCLUDED policy has no RPO
    const excluded = sim.estate.management.policies().find((p) => p.type === 'EXCLUDED');
    expect(exported.some((e) => e.id === excluded?.id)).toBe(false);
  });

  it("gives each protected asset its policy's RPO, before and after the policies were published", async () => {
    const [configured] = activePolicies();
    const rpoByPolicy = { [configured?.name ?? '']: 5 * HOUR };
    const settings = { rpoByPolicy, defaultRpo: DEFAULT_RPO };
    const objectives = { rpoByPolicy, defaultRpoMs: DEFAULT_RPO };
    const expected = new Map<string, number>();
    for (const asset of sim.estate.management.assets()) {
      const rpoMs = sim.estate.management.assetRpoMs(asset.id, objectives);
      if (rpoMs !== undefined) expected.set(asset.id, rpoMs / 1000);
    }
    expect(new Set(expected.values()).size).toBeGreaterThanOrEqual(4);

    const shared = new Map<string, unknown>();
    sim.stats.reset();
    const first = await run(assetsCollector, sim, h, { settings, shared });
    // before the protection-policies collector ran, the assets collector read the policies itself
    expect(sim.stats.count('management', '/api/v2/protection-policies')).toBeGreaterThan(0);
    const rpoOf = (result: typeof first) => new Map(samplesNamed(result, 'dataprotect_asset_rpo_seconds').map((s) => [s.labels.asset_id, s.value]));
    expect(rpoOf(first)).toEqual(expected);

    await run(protectionPoliciesCollector, sim, h, { settings, shared });
    sim.stats.reset();
    const second = await run(assetsCollector, sim, h, { settings, shared });
    expect(sim.stats.count('management', '/api/v2/protection-policies')).toBe(0);
    expect(rpoOf(second)).toEqual(expected);
  });

  it('warns once per policy whose schedule it cannot read, again only when the reason changes, and never fails', async () => {
    const unreadable = activePolicies().filter((policy) => sim.estate.management.scheduleRpoMs(policy.id) === null);
    expect(unreadable.length).toBe(2);

    // and one whose unknown operation sits beside a readable one: its RPO still comes from its schedule
    const partly = activePolicies().filter((policy) => sim.estate.management.scheduleRpoMs(policy.id) !== null && protectionSchedules(policy).some((s) => s?.frequency === UNKNOWN_FREQUENCY));
    expect(partly.length).toBe(1);

    const first = warningsLogger();
    const firstRun = await run(protectionPoliciesCollector, sim, h, { logger: first.logger });
    expect(first.warnings.map((w) => w.policy_id).sort()).toEqual([...unreadable, ...partly].map((p) => p.id).sort());
    const unknown = `unknown schedule frequency "${UNKNOWN_FREQUENCY}"`;
    expect(first.warnings.map((w) => String(w.reason)).sort()).toEqual(['no scheduled PROTECTION operation', unknown, unknown]);

    const again = warningsLogger();
    const secondRun = await run(protectionPoliciesCollector, sim, h, { logger: again.logger, state: firstRun.state as ProtectionPoliciesState });
    expect(again.warnings).toEqual([]);

    // a policy whose reason differs from the one logged before is logged again
    const previous = secondRun.state as ProtectionPoliciesState;
    const changed = unreadable[0]?.id as string;
    const state: ProtectionPoliciesState = { warned: new Map([...previous.warned].map(([id, reason]) => [id, id === changed ? 'a schedule without frequency' : reason])) };
    const third = warningsLogger();
    await run(protectionPoliciesCollector, sim, h, { logger: third.logger, state });
    expect(third.warnings.map((w) => w.policy_id)).toEqual([changed]);
  });

  it("the truth says per asset whether its newest copy is within the RPO its policy's schedule implies", () => {
    const { management } = sim.estate;
    const objectives = { defaultRpoMs: DEFAULT_RPO };
    const protectedWithCopy = management.assets().filter((a) => !a.deleted && a.protectionStatus === 'PROTECTED' && management.latestCopy(a.id));
    expect(protectedWithCopy.length).toBeGreaterThan(10);
    // backups run every period inside the window: on schedule, every asset is within its RPO
    expect(protectedWithCopy.filter((a) => !management.withinRpo(a.id, objectives)).map((a) => a.name)).toEqual([]);
    expect(management.withinRpo(management.assets().find((a) => a.protectionStatus === 'UNPROTECTED')?.id ?? '', objectives)).toBeUndefined();

    // an asset of an hourly policy whose newest copy is 3 periods old is out of it, and just under one RPO is within
    const hourly = activePolicies().find((p) => protectionSchedules(p)[0]?.frequency === 'HOURLY') as ProtectionPolicy;
    const asset = protectedWithCopy.find((a) => a.protectionPolicyId === hourly.id);
    if (!asset) throw new Error('no asset with a copy in an hourly policy');
    const periodMs = (protectionSchedules(hourly)[0]?.interval ?? 0) * HOUR;
    const rpoMs = management.scheduleRpoMs(hourly.id) as number;
    expect(rpoMs).toBeGreaterThan(periodMs);
    const now = sim.clock.now().getTime();
    for (const copy of management.copies(asset.id)) management.removeCopy(copy.id);
    management.setAssetLastCopy(asset.id, new Date(now - 3 * periodMs));
    expect(management.withinRpo(asset.id, objectives)).toBe(false);
    management.setAssetLastCopy(asset.id, new Date(now - rpoMs + 1000));
    expect(management.withinRpo(asset.id, objectives)).toBe(true);
    // configured objectives come first
    expect(management.assetRpoMs(asset.id, { ...objectives, rpoByPolicy: { [hourly.id]: HOUR } })).toBe(HOUR);
  });
});
