/**
 * /healthz while bad basic-auth logins flood /metrics (issue 19: under 50 ms
 * with 200 concurrent bad logins). The flood comes from a child process, so
 * the client's own work does not share the exporter's event loop. A timing on
 * a shared machine, hence a benchmark and not a test.
 *
 *   npx tsx bench/auth-flood.ts [concurrent bad logins, default 200]
 */
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import bcrypt from 'bcryptjs';
import pino from 'pino';
import { parseConfig } from '../src/config/load';
import { Exporter } from '../src/exporter';

const LIMIT_MS = 50;

const FLOOD = `
const [base, count] = process.argv.slice(1);
const users = ['prometheus', 'agent', 'nobody'];
const statuses = {};
Promise.all(Array.from({ length: Number(count) }, (_, i) =>
  fetch(base + '/metrics', { headers: { authorization: 'Basic ' + Buffer.from(users[i % 3] + '-' + (i % 3 === 2 ? i : '') + ':wrong-' + i).toString('base64') } })
    .then(async (r) => { await r.arrayBuffer(); statuses[r.status] = (statuses[r.status] ?? 0) + 1; }),
)).then(() => { process.stdout.write(JSON.stringify(statuses)); });
`;

async function main(): Promise<void> {
  const concurrent = Number(process.argv[2] ?? 200);
  const config = parseConfig({
    web: { listenAddress: '127.0.0.1', port: 0, basicAuthUsers: { prometheus: bcrypt.hashSync('right', 10), agent: 'plain' } },
    // nothing listens on the discard port: the target's collections fail at once and cost nothing
    targets: [{ name: 'idle', kind: 'replication', url: 'http://127.0.0.1:9', username: 'u', password: 'p', maxAttempts: 1 }],
  });
  const exporter = new Exporter(config, pino({ level: 'silent' }), { processMetrics: false });
  await exporter.start();
  const base = exporter.address();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const flood = spawn(process.execPath, ['-e', FLOOD, base, String(concurrent)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let statuses = '';
  flood.stdout.on('data', (chunk: Buffer) => (statuses += chunk.toString()));
  const finished = new Promise<void>((resolve) => flood.on('exit', () => resolve()));
  let flooding = true;
  void finished.then(() => (flooding = false));
  const latencies: number[] = [];
  while (flooding) {
    const started = performance.now();
    await (await fetch(`${base}/healthz`)).text();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  loop.disable();
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (ms: number): number => Math.round(ms * 10) / 10;
  console.log(
    JSON.stringify({
      concurrent,
      statuses: JSON.parse(statuses || '{}') as unknown,
      healthz: { samples: sorted.length, p50Ms: round(sorted[Math.floor(sorted.length / 2)] ?? 0), worstMs: round(sorted.at(-1) ?? 0) },
      eventLoopDelayMaxMs: round(loop.max / 1e6),
      limitMs: LIMIT_MS,
    }),
  );
  process.exit((sorted.at(-1) ?? 0) < LIMIT_MS ? 0 : 1);
}

void main();
