/**
 * Multi-target scraping: /probe?target=NAME serves one target, and the scrape
 * configurations documented in docs/operations.md work as written, run by a
 * real Prometheus against a running exporter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import { silentLogger } from '../support/collect';
import { startPrometheus, type ScrapeConfig } from '../e2e/prometheus-harness';
import { constantCollector } from '../support/fakes';

// The target names the documented scrape configuration lists.
const TARGETS = ['backup-prod', 'replication-plugin', 'dd-center'];

const collector = constantCollector(42);

async function startExporter(): Promise<Exporter> {
  const exporter = new Exporter(
    parseConfig({
      web: { listenAddress: '127.0.0.1', port: 0 },
      targets: TARGETS.map((name) => ({ name, kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' })),
    }),
    silentLogger,
    { collectorsFor: () => [collector] },
  );
  await exporter.start();
  // start() runs each target's first round (a runOnce() meanwhile would be skipped): its results are what /probe serves
  while (!exporter.runtime.firstRoundComplete()) await new Promise((resolve) => setTimeout(resolve, 10));
  return exporter;
}

/** The YAML code blocks of a section of docs/operations.md. */
function yamlBlocks(section: string): string[] {
  const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
  const start = doc.indexOf(`\n## ${section}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n## ', start + 1);
  const text = doc.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

describe('/probe?target=NAME', () => {
  it('serves one target with its up, collector and request series, and 400 for a missing or unknown name', async () => {
    const exporter = await startExporter();
    try {
      const base = exporter.address();
      exporter.selfMetrics.onRequest({ target: 'backup-prod', endpoint: '/api/v2/assets', code: '200', durationSeconds: 0.1 });
      exporter.selfMetrics.onRequest({ target: 'dd-center', endpoint: '/rest/v1.0/system', code: '200', durationSeconds: 0.1 });
      const probe = await fetch(`${base}/probe?target=backup-prod`);
      expect(probe.status).toBe(200);
      expect(probe.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      const text = await probe.text();
      expect(text).toContain('dataprotect_up{target="backup-prod",kind="management"} 1');
      expect(text).toContain('dataprotect_collector_success{target="backup-prod",collector="fake"} 1');
      expect(text).toContain('dataprotect_api_requests_total{target="backup-prod",endpoint="/api/v2/assets",code="200"} 1');
      expect(text).toContain('dataprotect_asset_size_bytes{target="backup-prod"');
      expect(text).not.toMatch(/target="(dd-center|replication-plugin)"/);
      expect(text).not.toContain('process_cpu');
      expect(text).not.toContain('dataprotect_exporter_build_info');

      for (const query of ['', '?target=', '?target=nope', '?target=backup-prod&target=dd-center', '?name=backup-prod']) {
        const response = await fetch(`${base}/probe${query}`);
        expect([query, response.status]).toEqual([query, 400]);
      }
      expect(await (await fetch(`${base}/probe?target=nope`)).text()).toBe('unknown target "nope"\n');
      expect(await (await fetch(`${base}/probe?target=backup-prod&target=dd-center`)).text()).toBe('one ?target=NAME, not several\n');
    } finally {
      await exporter.stop();
    }
  });
});

describe('the documented scrape configurations', () => {
  it('relabeling and params give one scrape target per exporter target in a real Prometheus', async () => {
    const [relabeled, single] = yamlBlocks('Multi-target scraping');
    const exporter = await startExporter();
    const address = new URL(exporter.address()).host;
    // As documented, with the test's exporter address and fast scrapes.
    const scrapeConfigs = [
      ...(parse(relabeled as string) as { scrape_configs: Array<Record<string, unknown>> }).scrape_configs,
      ...(parse(single as string) as Array<Record<string, unknown>>),
    ].map((job): Record<string, unknown> => ({
      ...(JSON.parse(JSON.stringify(job).replaceAll('dataprotect-exporter:8497', address)) as Record<string, unknown>),
      scrape_interval: '1s',
      scrape_timeout: '1s',
    }));
    expect(scrapeConfigs.map((job) => job.job_name)).toEqual(['dataprotect', 'dataprotect-exporter', 'dataprotect-backup-prod']);
    const prometheus = await startPrometheus({ scrapeConfigs: scrapeConfigs as unknown as ScrapeConfig[] });
    try {
      const series = (expr: string) => prometheus.query(expr);
      // One scrape target per exporter target, named by it.
      const up = await prometheus.waitFor(async () => {
        const samples = await series('up{job="dataprotect"} == 1');
        return samples.length === TARGETS.length ? samples : undefined;
      }, 30_000, 'three /probe targets up');
      expect(up.map((sample) => sample.metric.instance).sort()).toEqual([...TARGETS].sort());
      const targetsUp = await series('dataprotect_up{job="dataprotect"}');
      expect(targetsUp.map((sample) => [sample.metric.instance, sample.metric.target, sample.value[1]]).sort()).toEqual(
        [...TARGETS].sort().map((name) => [name, name, '1']),
      );
      // Each probe scrape carried only its own target's series.
      const assets = await series('dataprotect_asset_size_bytes{job="dataprotect"}');
      expect(assets).toHaveLength(3);
      expect(assets.filter((sample) => sample.metric.instance !== sample.metric.target)).toEqual([]);

      // The exporter's own job keeps its process metrics and nothing of the targets.
      await prometheus.waitFor(async () => ((await series('up{job="dataprotect-exporter"} == 1')).length === 1 ? true : undefined), 30_000, 'exporter job up');
      expect((await series('process_cpu_user_seconds_total{job="dataprotect-exporter"}')).length).toBe(1);
      expect((await series('dataprotect_exporter_build_info{job="dataprotect-exporter"}')).length).toBe(1);
      expect(await series('{job="dataprotect-exporter", __name__=~"dataprotect_(up|asset_.*|collector_.*)"}')).toEqual([]);

      // The fixed-parameter job scrapes just its target.
      const single = await prometheus.waitFor(async () => {
        const samples = await series('dataprotect_up{job="dataprotect-backup-prod"}');
        return samples.length > 0 ? samples : undefined;
      }, 30_000, 'the single-target job');
      expect(single.map((sample) => sample.metric.target)).toEqual(['backup-prod']);
    } finally {
      await prometheus.stop();
      await exporter.stop();
    }
  });
});
