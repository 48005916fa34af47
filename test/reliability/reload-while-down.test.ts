/**
 * A reload that lands while the collection thread is down (between its death and the back-off's restart), or that disables a
 * collector: what the next thread gets and what the serving thread keeps follow the configuration applied, not the one before.
 */
import { serialize } from 'node:v8';
import { parseConfig } from '../../src/config/load';
import { CollectionHost } from '../../src/collection/host';
import type { CheckpointBytes } from '../../src/collection/protocol';
import { silentLogger } from '../support/collect';

const until = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
};
const base = { name: 't', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p', maxAttempts: 1 };
const observer = { onRequest: () => undefined, onOtlpDropped: () => undefined, recordFirstRound: () => undefined, onCollectionRestart: () => undefined };

it('the records of a collector a reload disabled while the thread was down are gone once the new thread runs', async () => {
  const host = new CollectionHost(parseConfig({ targets: [base] }), { logger: silentLogger, observer });
  try {
    host.start();
    await until(() => host.firstRoundComplete());
    expect(host.store.get('t', 'alerts')).toBeDefined();
    await host.interrupt(); // the thread dies, as out of memory would; the restart comes after a second of back-off
    await host.applyConfig(parseConfig({ targets: [{ ...base, collectors: { alerts: { enabled: false } } }] }));
    await until(() => host.firstRoundComplete());
    expect(host.store.get('t', 'alerts')).toBeUndefined(); // not served as a failing collector for the life of the process
    expect(host.store.get('t', 'assets')).toBeDefined();
  } finally {
    await host.stop();
  }
});

it('a reload that disables a counting collector drops its checkpoint: enabled again, it starts afresh in any thread', async () => {
  const host = new CollectionHost(parseConfig({ targets: [base] }), { logger: silentLogger, observer });
  // white box: the checkpoints a next thread would get (host.ts keeps them as the collection thread sends them)
  const kept = (): Map<string, Map<string, CheckpointBytes>> => (host as unknown as { checkpoints: Map<string, Map<string, CheckpointBytes>> }).checkpoints;
  const keep = (host as unknown as { keepCheckpoint(checkpoint: CheckpointBytes): void }).keepCheckpoint.bind(host);
  try {
    for (const collector of ['activities', 'audit-logs']) keep({ target: 't', collector, bytes: new Uint8Array(serialize({ state: {} })) });
    await host.applyConfig(parseConfig({ targets: [{ ...base, collectors: { activities: { enabled: false } } }] }));
    expect([...(kept().get('t')?.keys() ?? [])]).toEqual(['audit-logs']);
  } finally {
    await host.stop();
  }
});

it("a target a reload removes while the thread is down leaves the scrapes at once, not when the next thread starts", async () => {
  const other = { ...base, name: 'other' };
  const host = new CollectionHost(parseConfig({ targets: [base, other] }), { logger: silentLogger, observer });
  try {
    host.start();
    await until(() => host.firstRoundComplete());
    expect(host.store.get('other', 'assets')).toBeDefined();
    // white box: a back-off that has grown (a thread that keeps dying waits up to 5 minutes to be restarted)
    (host as unknown as { backoffMs: number }).backoffMs = 5 * 60_000;
    await host.interrupt();
    await host.applyConfig(parseConfig({ targets: [base] }));
    expect(host.store.all().filter((record) => record.target === 'other')).toEqual([]);
    expect(host.store.get('t', 'assets')).toBeDefined();
  } finally {
    await host.stop();
  }
});

it('a target a reload restarts (a new URL) while the thread is down keeps neither its old series nor its counters', async () => {
  const host = new CollectionHost(parseConfig({ targets: [base] }), { logger: silentLogger, observer });
  try {
    host.start();
    await until(() => host.firstRoundComplete());
    expect(host.store.get('t', 'assets')?.runs).toBe(1);
    (host as unknown as { backoffMs: number }).backoffMs = 5 * 60_000; // white box, as above
    await host.interrupt();
    const change = await host.applyConfig(parseConfig({ targets: [{ ...base, url: 'http://127.0.0.1:10' }] }));
    expect(change.restarted).toEqual(['t']);
    // as with the thread up: its records go, and the new source's runs count from 0 (docs/operations.md#reload)
    expect(host.store.get('t', 'assets')).toBeUndefined();
  } finally {
    await host.stop();
  }
});
