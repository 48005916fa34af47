import { aggregate, dropExpired } from '../../../src/collectors/management/copies';
import type { Copy } from '../../../src/clients/management/schemas';

const copy = (id: string, location: string, size: number, retentionTime: number | null): Copy => ({
  id,
  location,
  size,
  retentionTime,
});

describe('copies aggregation', () => {
  it('groups by location, leaves out expired copies and drops copies locally as their retention passes', () => {
    const now = 1_000_000;
    const locations = aggregate(
      [copy('1', 'LOCAL', 10, now + 100), copy('2', 'LOCAL', 20, now + 50), copy('3', 'CLOUD', 5, null), copy('4', 'LOCAL', 7, now - 1)],
      now,
    );
    expect(locations.get('LOCAL')).toMatchObject({ count: 2, bytes: 30, expiries: [now + 50, now + 100], expiringSizes: [20, 10] });
    expect(locations.get('CLOUD')).toMatchObject({ count: 1, bytes: 5, expiries: [] });

    const entry = { lastAvailableCopyTime: null, updatedAt: null, fingerprint: null, readAt: now, dueAt: now + 1e9, locations };
    expect(dropExpired(entry, now + 10)).toBe(entry);
    const later = dropExpired(entry, now + 50);
    expect(later.locations.get('LOCAL')).toMatchObject({ count: 1, bytes: 10 });
    expect(entry.locations.get('LOCAL')?.count).toBe(2); // the previous state is untouched
    const gone = dropExpired(later, now + 100);
    expect(gone.locations.has('LOCAL')).toBe(false);
    expect(gone.locations.get('CLOUD')?.count).toBe(1);
  });
});
