/**
 * On the real products a capacity sample carries its figures only in tier_capacity_usage[], where "only collection_epoch is always
 * present": an entry of a tier the exporter does not collect (archive) with partial figures costs nothing, and the asked tier's
 * series are there.
 */
import { StorageClient } from '../../../src/clients/storage/client';
import { parseConfig, type TargetConfig } from '../../../src/config/load';
import { capacityCollector } from '../../../src/collectors/storage/capacity';
import { runCollector, silentLogger, valueOf } from '../../support/collect';
import { scripted } from '../../support/scripted-server';

const TiB = 1024 ** 4;

it('keeps the active tier of a sample whose archive entry gives a partial physical_capacity', async () => {
  const sample = {
    collection_epoch: 1_800_000_000,
    tier_capacity_usage: [
      { tier: 'active', physical_capacity: { total: 100 * TiB, used: 96 * TiB, available: 4 * TiB }, logical_capacity: { used: 900 * TiB }, compression_factor: 9.4 },
      { tier: 'archive', physical_capacity: { total: 0, used: 0 } },
    ],
  };
  const server = await scripted((method, path) => {
    if (method === 'POST' && path === '/rest/v1.0/auth') return { status: 201, body: { code: 0 }, headers: { 'X-DD-AUTH-TOKEN': 'tok' } };
    if (method === 'DELETE') return { status: 200, body: { code: 0 } };
    if (path === '/rest/v1.0/system') return { status: 200, body: { name: 'dd-solo', uuid: 'aaaa:bbbb' } };
    if (path === '/rest/v2.0/dd-systems/0/stats/capacity') return { status: 200, body: { stats_capacity: [sample], paging_info: { current_page: 0, total_entries: 2160 } } };
    return { status: 404, body: { code: 404, details: 'Resource not found' } };
  });
  const target = parseConfig({
    targets: [{ name: 'dd', kind: 'storage', url: server.url, username: 'u', password: 'p', maxAttempts: 1, storageMode: 'appliance', apiSpelling: 'product' }],
  }).targets[0] as TargetConfig & { kind: 'storage' };
  const client = new StorageClient(target, { logger: silentLogger });
  try {
    const result = await runCollector(capacityCollector, { target, client });
    expect(valueOf(result, 'dataprotect_storage_system_collector_success', { system_id: 'aaaa:bbbb' })).toBe(1);
    expect(valueOf(result, 'dataprotect_storage_physical_used_bytes', { system_id: 'aaaa:bbbb', tier: 'active' })).toBe(96 * TiB);
  } finally {
    await client.close();
    await server.close();
  }
});
