/**
 * compliance-details records missing a field the collector needs cost only
 * themselves (api-notes: "never let one record without it fail the
 * listing"): a run without a status is skipped and counted, and its asset
 * and stage count their latest run among the others.
 */
import { countingRequests, type RunCount } from '../../../src/clients/run-requests';
import { complianceCollector } from '../../../src/collectors/management/compliance';
import type { RunningSimulator } from '../../../simulator';
import type { ComplianceDetail } from '../../../simulator/management/model';
import { samplesNamed } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  // few enough runs for one random-paged listing: the first page is the listing's first 1,000 runs, in order
  sim = await startManagementSimulator({ assets: 150 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

it('a run without a status is skipped and counted; its asset and stage count their latest other run', async () => {
  const history = sim.estate.management.complianceHistory();
  expect(history.length).toBeLessThan(1000);
  // a run whose only status is the flat one (the product's model has no verifiedObjectives), the latest of its asset and stage
  const blank = history.findIndex((run) => {
    const others = history.filter((other) => other !== run && other.assetId === run.assetId && other.stageId === run.stageId);
    const latest = others.every((other) => Date.parse(other.completionTime) < Date.parse(run.completionTime));
    return !run.verifiedObjectives && others.length > 0 && latest;
  });
  expect(blank).toBeGreaterThanOrEqual(0);
  sim.faults.add({ api: 'management', path: '/api/v2/compliance-details', fault: { kind: 'item', index: blank, field: 'status', value: null } });

  const count: RunCount = { requests: 0, answers: 0, skipped: [] };
  const result = await countingRequests(count, () => run(complianceCollector, sim, h));
  expect(count.skipped).toEqual([
    expect.objectContaining({ endpoint: '/api/v2/compliance-details', id: history[blank]?.assetId, reason: 'missing_field' }),
  ]);
  const latest = new Map<string, ComplianceDetail>();
  for (const run of history.filter((_, index) => index !== blank)) {
    const known = latest.get(`${run.assetId}|${run.stageId}`);
    if (!known || Date.parse(run.completionTime) >= Date.parse(known.completionTime)) latest.set(`${run.assetId}|${run.stageId}`, run);
  }
  const expected = new Map<string, number>();
  for (const run of latest.values()) expected.set(`${run.policyName}/${run.status}`, (expected.get(`${run.policyName}/${run.status}`) ?? 0) + 1);
  const counted = samplesNamed(result, 'dataprotect_compliance_objectives').filter((sample) => sample.value > 0);
  expect(new Map(counted.map((sample) => [`${sample.labels.policy}/${sample.labels.status}`, sample.value]))).toEqual(expected);
});
