/**
 * A storage system's alert list paged while an alert is raised shifts by
 * one: an alert read at the end of one page is read again at the start of
 * the next. It counts once, as the one that moved it in is counted next run.
 */
import type { StorageClient } from '../../../src/clients/storage/client';
import type { StorageAlert } from '../../../src/clients/storage/schemas';
import { alertsCollector } from '../../../src/collectors/storage/alerts';
import type { TargetConfig } from '../../../src/config/load';
import { parseConfig } from '../../../src/config/load';
import { runCollector } from '../../support/collect';

const target = parseConfig({ targets: [{ name: 's', kind: 'storage', url: 'http://127.0.0.1:9', username: 'u', password: 'p' }] })
  .targets[0] as TargetConfig & { kind: 'storage' };
const alert = (id: string, severity: string): StorageAlert => ({ id, severity, class: 'HardwareFailure', status: 'active' });

it('counts an alert listed on two pages once', async () => {
  // pages of two, newest first: [3, 2] then, alert 4 raised meanwhile, [2, 1]
  const listed = [alert('3', 'CRITICAL'), alert('2', 'CRITICAL'), alert('2', 'CRITICAL'), alert('1', 'WARNING')];
  const client = {
    discover: async () => ({ mode: 'appliance', systems: [{ id: 'dd1', pathId: '0', name: 'dd1' }] }),
    activeAlerts: async () => listed,
  } as unknown as StorageClient;
  const result = await runCollector(alertsCollector, { target, client });
  const counts = result.samples.filter((s) => s.name === 'dataprotect_storage_alerts').map((s) => [s.labels.severity, s.value]);
  expect(counts).toEqual([['CRITICAL', 2], ['WARNING', 1]]);
});
