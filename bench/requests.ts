/**
 * npm run bench:requests — how many requests the management collectors make.
 *
 * Starts a 10,000-asset simulator in-process, runs every management collector
 * once cold (no state, nothing shared), then once warm (the clock advanced a
 * little, state and shared values from the cold round), and prints the
 * requests the simulator answered in each round, per endpoint template, and
 * for the listings offered only with random paging the rows read against the
 * simulator's truth and the requests against their lower bound. It fails when
 * the simulator refused a request (random paging past 10,000 results) or a
 * row count differs from the truth.
 *
 *   npm run bench:requests [-- --assets 10000 --advance 60 --page-size 1000]
 */
import pino from 'pino';
import { ManagementClient } from '../src/clients/management/client';
import { COLLECTORS } from '../src/collectors/registry';
import { sharedView, type CollectorDefinition, type SharedEntry } from '../src/collectors/types';
import { parseConfig, type TargetConfig } from '../src/config/load';
import { startSimulator } from '../simulator';

interface Options {
  assets: number;
  advanceSeconds: number;
  pageSize: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { assets: 10_000, advanceSeconds: 60, pageSize: 1000 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`bad value for ${argv[i]}`);
    if (argv[i] === '--assets') options.assets = value;
    else if (argv[i] === '--advance') options.advanceSeconds = value;
    else if (argv[i] === '--page-size') options.pageSize = value;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return options;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  // Logs (e.g. the warning about random paging over 10000 results) go to stderr, the tables to stdout.
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const started = performance.now();
  // A fixed seed and start time make the figures reproducible.
  const sim = await startSimulator({ seed: 7, size: { assets: options.assets }, startTime: new Date('2026-11-18T10:00:00Z') });
  const generatedIn = (performance.now() - started) / 1000;
  const config = parseConfig({
    targets: [{ name: 'bench', kind: 'management', url: sim.urls.management, username: sim.username, password: sim.password, pageSize: options.pageSize }],
  });
  const target = config.targets[0] as TargetConfig;

  // Count per endpoint template through the client's request observer.
  let counts = new Map<string, number>();
  const client = new ManagementClient(target, {
    logger,
    observer: {
      onRequest: ({ endpoint }) => counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1),
    },
  });
  const shared = new Map<string, SharedEntry>();
  const states = new Map<string, unknown>();
  const collectingSince = sim.clock.now();

  const round = async (
    label: string,
  ): Promise<{ byCollector: Array<[string, number, number]>; items: Map<string, number>; byEndpoint: Map<string, number>; total: number; refusals: number }> => {
    counts = new Map();
    sim.stats.reset();
    const byCollector: Array<[string, number, number]> = [];
    const items = new Map<string, number>();
    for (const definition of COLLECTORS.management as ReadonlyArray<CollectorDefinition<'management', unknown>>) {
      const before = sim.stats.total('management');
      const t0 = performance.now();
      const result = await definition.collect(
        {
          target,
          client,
          settings: config.collection,
          logger,
          state: states.get(definition.name),
          shared: sharedView(shared, () => sim.clock.now()),
          now: () => sim.clock.now(),
          collectingSince,
        },
        AbortSignal.timeout(300_000),
      );
      states.set(definition.name, result.state);
      items.set(definition.name, result.items ?? 0);
      for (const [key, value] of result.publish ?? []) shared.set(key.id, { value, until: value.readAt + config.collection.staleAfter });
      byCollector.push([definition.name, sim.stats.total('management') - before, (performance.now() - t0) / 1000]);
    }
    // The client's request observer sees the endpoint templates (retries and logins included).
    const byEndpoint = counts;
    const total = sim.stats.total('management');
    const refusals = sim.stats.refusals('management');
    process.stdout.write(`\n${label}: ${total} requests, ${refusals} refused\n`);
    return { byCollector, items, byEndpoint, total, refusals };
  };

  try {
    const cold = await round('cold');
    // the simulator's rows of the random-only listings at the time of the cold round
    const management = sim.estate.management;
    const randomOnly: Array<[string, string, number]> = [
      ['copy-metrics', '/api/v2/copy-metrics', management.assets().filter((asset) => !asset.deleted).length],
      // compliance-details lists every verification run (the collector reduces them to the latest per asset and stage)
      ['compliance', '/api/v2/compliance-details', management.complianceHistory().length],
    ];
    sim.clock.advance(options.advanceSeconds * 1000);
    const warm = await round(`warm (clock advanced ${options.advanceSeconds} s)`);

    const pad = (s: string, n: number): string => s.padEnd(n);
    process.stdout.write(`\nestate: ${options.assets} assets, ${sim.estate.management.copyCount()} copies, ${sim.estate.management.activityCount()} activities; pageSize ${options.pageSize}; generated in ${generatedIn.toFixed(1)} s\n\n`);
    process.stdout.write(`| collector | cold requests | cold s | warm requests | warm s |\n|---|---:|---:|---:|---:|\n`);
    cold.byCollector.forEach(([name, n, s], i) => {
      const [, wn, ws] = warm.byCollector[i] as [string, number, number];
      process.stdout.write(`| ${pad(name, 20)} | ${n} | ${s.toFixed(2)} | ${wn} | ${ws.toFixed(2)} |\n`);
    });
    process.stdout.write(`| **total** | **${cold.total}** | | **${warm.total}** | |\n\n`);
    const endpoints = [...new Set([...cold.byEndpoint.keys(), ...warm.byEndpoint.keys()])].sort();
    process.stdout.write(`| endpoint | cold | warm |\n|---|---:|---:|\n`);
    for (const endpoint of endpoints) {
      process.stdout.write(`| ${endpoint} | ${cold.byEndpoint.get(endpoint) ?? 0} | ${warm.byEndpoint.get(endpoint) ?? 0} |\n`);
    }
    let wrong = 0;
    process.stdout.write(`\nrandom paging only (cold round; at most 10,000 results a query):\n\n`);
    process.stdout.write(`| endpoint | rows (simulator) | rows read | requests | lower bound | over the bound |\n|---|---:|---:|---:|---:|---:|\n`);
    for (const [collector, endpoint, rows] of randomOnly) {
      const read = cold.items.get(collector) ?? 0;
      const sent = cold.byEndpoint.get(endpoint) ?? 0;
      const bound = Math.ceil(rows / options.pageSize);
      if (read !== rows) wrong += 1;
      process.stdout.write(`| ${endpoint} | ${rows} | ${read} | ${sent} | ${bound} | ${(((sent - bound) / bound) * 100).toFixed(1)}% |\n`);
    }
    const refused = cold.refusals + warm.refusals;
    if (refused > 0 || wrong > 0) throw new Error(`${refused} requests refused, ${wrong} listings read with a wrong row count`);
  } finally {
    await client.close();
    await sim.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
