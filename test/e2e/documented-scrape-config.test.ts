/**
 * The multi-target scrape configuration of docs/operations.md, as printed,
 * loaded into a real Prometheus beside the shipped rules: every series a rule
 * reads reaches Prometheus (the configuration-reload alert's among them), and
 * no series is stored twice. Only what must differ here is changed: the
 * target names and the exporter's address (the doc's placeholders), and the
 * intervals (1 s instead of a minute).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../rules/contract';
import { allRules } from '../rules/rules-files';
import type { ScrapeConfig } from './prometheus-harness';
import { startStack, TARGETS, type Stack } from './stack';

jest.setTimeout(60_000);

const DOC = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
const DOC_EXPORTER = 'dataprotect-exporter:8497';

/** The first yaml block of the "Multi-target scraping" section: the one with `scrape_configs:`. */
function documentedScrapeConfigs(): ScrapeConfig[] {
  const section = DOC.slice(DOC.indexOf('## Multi-target scraping'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/operations.md: no yaml block under "Multi-target scraping"');
  return (parse(block) as { scrape_configs: ScrapeConfig[] }).scrape_configs;
}

/** The doc's jobs pointed at this exporter and these targets, scraped every second. */
function adapted(configs: readonly ScrapeConfig[], exporterHost: string): ScrapeConfig[] {
  const text = JSON.stringify(configs).replaceAll(DOC_EXPORTER, exporterHost);
  return (JSON.parse(text) as ScrapeConfig[]).map((job) => ({
    ...job,
    scrape_interval: '1s',
    scrape_timeout: '1s',
    static_configs: job.static_configs.map((group) =>
      group.targets.includes(exporterHost) ? group : { ...group, targets: Object.values(TARGETS) },
    ),
  }));
}

/** Metric names the rules read (recorded series, `level:metric:operation`, excluded: Prometheus makes those). */
function seriesTheRulesRead(): string[] {
  const { alerts, records } = allRules();
  const names = [...alerts, ...records].flatMap((rule) => [...rule.expr.matchAll(/(?<![\w:])dataprotect_\w+(?![\w:])/g)].map((match) => match[0]));
  return [...new Set(names)].sort();
}

describe('the multi-target scrape configuration of docs/operations.md', () => {
  let stack: Stack;

  beforeAll(async () => {
    const documented = documentedScrapeConfigs();
    expect(documented.map((job) => job.job_name)).toEqual(['dataprotect', 'dataprotect-exporter']);
    stack = await startStack({
      seed: 5,
      size: { assets: 20, protectionPolicies: 4, replicatedVms: 6, replicationClusters: 1, storageSystems: 1 },
      collection: {},
      schedule: '*/2 * * * * *',
      scrapeConfigs: (exporterHost) => adapted(documented, exporterHost),
    });
    const { exporter, prometheus } = stack;
    await prometheus.waitFor(
      async () => {
        if (!exporter.runtime.firstRoundComplete()) return undefined;
        // after the first round: one more scrape of each job carries its results
        const up = await prometheus.query('count by (job) (up == 1)');
        return up.length === 2 && (await prometheus.query('dataprotect_exporter_first_round_complete == 1')).length > 0 ? true : undefined;
      },
      30_000,
      "both jobs scraped after the exporter's first round",
    );
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('brings every series the shipped rules read into Prometheus', async () => {
    const read = seriesTheRulesRead();
    expect(read).toEqual(expect.arrayContaining(['dataprotect_config_last_reload_successful', 'dataprotect_exporter_build_info', 'dataprotect_up']));
    const absent = async (): Promise<string[]> => {
      const names: string[] = [];
      for (const name of read) if ((await stack.prometheus.query(`count(${name})`)).length === 0) names.push(name);
      return names;
    };
    // the slower collectors' first series may need a scrape more; the expectation below names what never came
    await stack.prometheus.waitFor(async () => ((await absent()).length === 0 ? true : undefined), 10_000, 'the rules\' series').catch(() => undefined);
    expect(await absent()).toEqual([]);
  });

  it("keeps the exporter's own series (no target label) from /metrics, and stores no family in both jobs", async () => {
    const exposed = await (await fetch(`${stack.exporter.address()}/metrics`)).text();
    const ownNames = new Set([...exposed.matchAll(/^(dataprotect_\w+?)(?:\{([^}]*)\})? /gm)].filter((match) => !/\btarget="/.test(match[2] ?? '')).map((match) => match[1]));
    expect([...ownNames]).toEqual(expect.arrayContaining(['dataprotect_config_last_reload_successful', 'dataprotect_config_last_reload_success_timestamp_seconds']));
    for (const name of ownNames) expect(await stack.prometheus.query(`count(${name}{job="dataprotect-exporter"})`)).toHaveLength(1);
    // no family in both jobs (a family carries `target` on every series or on none)
    const both = await stack.prometheus.query('count by (__name__) ({job="dataprotect-exporter", __name__=~"dataprotect_.+"}) and on (__name__) count by (__name__) ({job="dataprotect", __name__=~"dataprotect_.+"})');
    expect(both.map((sample) => sample.metric.__name__)).toEqual([]);
  });
});
