/**
 * Tasks waiting for their job when a reload removes their target are never sent: they are counted in
 * dataprotect_otlp_dropped_total like every event lost, not forgotten without a trace (the outstanding count falls with them).
 */
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import type { Activity } from '../../src/clients/management/schemas';
import { EstateEventForwarder, type OtlpSignal } from '../../src/otlp/forwarder';

const T0 = Date.parse('2026-11-18T10:00:00Z');

it('counts as dropped the tasks still waiting for their job when their target is removed', async () => {
  const config = parseConfig({
    tracing: { endpoint: 'http://127.0.0.1:9/v1/traces' },
    otlp: { activities: { enabled: true } },
    targets: [{ name: 'gone', kind: 'management', url: 'http://127.0.0.1:1', username: 'u', password: 'p' }],
  });
  const dropped = new Map<OtlpSignal, number>();
  const outstanding = new Map<OtlpSignal, number>();
  const forwarder = new EstateEventForwarder(
    config,
    pino({ level: 'silent' }),
    (signal, count) => dropped.set(signal, (dropped.get(signal) ?? 0) + count),
    () => T0,
    (signal, count) => outstanding.set(signal, count),
  );
  const task = (id: string): Activity =>
    ({ id, category: 'PROTECT', classType: 'TASK', parentId: 'job-running', state: 'COMPLETED', updateTime: T0, startTime: T0 - 60_000, endTime: T0, duration: 60_000, result: { status: 'OK' } }) as Activity;
  forwarder.accept('gone', { activities: [task('t1'), task('t2')] });
  expect(forwarder.pendingTasks).toBe(2);
  expect(outstanding.get('traces')).toBe(2);

  forwarder.removeTarget('gone');
  expect(forwarder.pendingTasks).toBe(0);
  expect(outstanding.get('traces')).toBe(0);
  expect(dropped.get('traces') ?? 0).toBe(2);
  await forwarder.shutdown(100);
});
