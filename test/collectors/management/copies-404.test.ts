/**
 * copies collector and a 404 on an asset's copies. The seed warns that a 404
 * "may also mask a 401 or 403": only an asset the service no longer lists is
 * gone. An asset it still lists whose copies answer 404 fails the run (its
 * last good series stay, dataprotect_collector_success says 0) instead of
 * quietly losing its copies series while the collector reports success.
 */
import { assetsCollector } from '../../../src/collectors/management/assets';
import { copiesCollector } from '../../../src/collectors/management/copies';
import type { RunningSimulator } from '../../../simulator';
import { valueOf } from '../../support/collect';
import { managementHarness, run, startManagementSimulator, type Harness } from './helpers';

let sim: RunningSimulator;
let h: Harness;

beforeAll(async () => {
  sim = await startManagementSimulator({ assets: 20, assetsWithoutCopyShare: 0 });
  h = managementHarness(sim);
});
afterAll(async () => {
  await h.client.close();
  await sim.close();
});

it('fails on a 404 for the copies of an asset the service still lists, and skips one it no longer lists', async () => {
  const estate = sim.estate.management;
  const [kept, removed] = estate.assets().filter((a) => !a.deleted && estate.copies(a.id).some((c) => c.location === 'LOCAL'));
  if (!kept || !removed) throw new Error('the estate needs two assets with local copies');
  const shared = new Map<string, unknown>();
  await run(assetsCollector, sim, h, { shared });
  const first = await run(copiesCollector, sim, h, { shared });
  const before = valueOf(first, 'dataprotect_asset_copies', { asset_id: kept.id, location: 'LOCAL' });
  expect(before).toBeGreaterThan(0);

  // the account loses the privilege to read copies: the service answers 404
  sim.clock.advance(60_000);
  estate.addCopy(kept.id); // a change, so that the asset is read again
  await run(assetsCollector, sim, h, { shared });
  sim.faults.add({ api: 'management', path: `/api/v2/assets/${kept.id}/copies`, fault: { kind: 'status', status: 404 } });
  await expect(run(copiesCollector, sim, h, { shared, ...(first.state ? { state: first.state } : {}) })).rejects.toMatchObject({
    kind: 'status',
    status: 404,
    message: expect.stringContaining(kept.id),
  });
  sim.faults.clear();

  // an asset removed between the asset list and the copies read is skipped, as before
  estate.addCopy(removed.id);
  await run(assetsCollector, sim, h, { shared });
  estate.removeAsset(removed.id);
  const result = await run(copiesCollector, sim, h, { shared, ...(first.state ? { state: first.state } : {}) });
  expect(valueOf(result, 'dataprotect_asset_copies', { asset_id: removed.id, location: 'LOCAL' })).toBeUndefined();
  expect(valueOf(result, 'dataprotect_asset_copies', { asset_id: kept.id, location: 'LOCAL' })).toBe((before as number) + 1);
});
