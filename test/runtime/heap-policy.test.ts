/**
 * applyHeapPolicy (src/heap-policy.ts), checked by what it is for: under the shipped heap options,
 * a load that promotes short-lived objects over a steady live set (as a cold round does) takes
 * fewer full collections with the policy than without.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { applyHeapPolicy } from '../../src/heap-policy';

/** The shipped node options (Dockerfile, Kubernetes manifests). */
const SHIPPED = ['--max-old-space-size=320', '--max-semi-space-size=16'];

/** Full (major) collections of a child process that applies the policy or not, under `nodeArgs`. */
function majorCollections(apply: boolean, nodeArgs: string[] = []): Promise<{ major: number; flag: string }> {
  const script = `
    const { PerformanceObserver, constants } = require('node:perf_hooks');
    const flag = ${apply} ? require('./src/heap-policy').applyHeapPolicy() : undefined;
    let major = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major++;
    }).observe({ entryTypes: ['gc'] });
    // A steady live set of about 60 MB, and objects that live through a few scavenges before they die.
    const live = Array.from({ length: 600000 }, (_, i) => ({ id: 'asset-' + i, size: i }));
    major = 0; // only the collections of the churn below count
    const recent = new Array(300000);
    for (let i = 0; i < 12000000; i++) recent[i % recent.length] = { at: i, pair: [i, i + 1] };
    setTimeout(() => process.stdout.write(JSON.stringify({ major, flag: String(flag), live: live.length })), 50);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SHIPPED, ...nodeArgs, '--import', 'tsx', '-e', script], { cwd: join(__dirname, '..', '..'), env: { PATH: process.env.PATH ?? '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { major: number; flag: string }) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe('applyHeapPolicy', () => {
  it('leaves a growing factor given on node’s command line alone', () => {
    expect(applyHeapPolicy(['--heap-growing-percent=30'])).toBeUndefined();
    expect(applyHeapPolicy(['--inspect', '--heap_growing_percent=50'])).toBeUndefined();
  });

  it('makes fewer full collections in a promoting load under the shipped heap options', async () => {
    const without = await majorCollections(false);
    const withPolicy = await majorCollections(true);
    expect(withPolicy.flag).toMatch(/^--heap-growing-percent=\d+$/);
    expect(without.major).toBeGreaterThan(10);
    // about 0.7 x here (and 25 -> 17 in a cold round on 10,000 assets)
    expect(withPolicy.major).toBeLessThanOrEqual(without.major * 0.85);
  }, 60_000);

  it('does not apply itself over a command-line choice', async () => {
    // an operator's 3 x: fewer full collections still than the policy's own factor gives
    const chosen = await majorCollections(true, ['--heap-growing-percent=200']);
    expect(chosen.flag).toBe('undefined');
    const policy = await majorCollections(true);
    expect(chosen.major).toBeLessThanOrEqual(policy.major * 0.8);
  }, 60_000);
});
