/**
 * Starts a real Prometheus (Debian's /usr/bin/prometheus) on a free loopback port,
 * with a generated configuration, the given rule files and a throw-away TSDB in a
 * temporary directory, and talks to its HTTP API. For end-to-end tests of the
 * alert rules and dashboards:
 *
 *   const prom = await startPrometheus({ ruleFiles, scrapeConfigs: [{ job_name: 'dataprotect', static_configs: [{ targets: [exporter] }] }] });
 *   try { await prom.waitFor(async () => (await prom.alerts()).find(...), 20_000, 'the alert'); } finally { await prom.stop(); }
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { findOnPath } from '../rules/promtool';

export const MISSING_PROMETHEUS =
  "prometheus is not installed: npm test installs Debian's prometheus package (scripts/ensure-prometheus.sh) " +
  '(apt-get install -y prometheus gives /usr/bin/prometheus and /usr/bin/promtool)';

/** A scrape job in Prometheus's own configuration format. */
export interface ScrapeConfig {
  readonly job_name: string;
  readonly static_configs: ReadonlyArray<{ readonly targets: readonly string[]; readonly labels?: Readonly<Record<string, string>> }>;
  readonly metrics_path?: string;
  readonly params?: Readonly<Record<string, readonly string[]>>;
  readonly scrape_interval?: string;
  readonly scrape_timeout?: string;
  readonly scheme?: 'http' | 'https';
  readonly relabel_configs?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly metric_relabel_configs?: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

export interface StartOptions {
  /** Rule files to load (absolute paths, or relative to the working directory). */
  readonly ruleFiles?: readonly string[];
  /** Scrape jobs; a function gets Prometheus's own address (host:port), e.g. to scrape itself. */
  readonly scrapeConfigs?: readonly ScrapeConfig[] | ((selfAddress: string) => readonly ScrapeConfig[]);
  /** Global scrape interval (and timeout); default 1s. */
  readonly scrapeInterval?: string;
  /** Rule evaluation interval; default 1s. */
  readonly evaluationInterval?: string;
  /** Time allowed to become ready; default 20 s. */
  readonly startTimeoutMs?: number;
  /** The Prometheus binary; default prometheus on PATH, else /usr/bin/prometheus. */
  readonly binary?: string;
  readonly extraArgs?: readonly string[];
}

export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  /** [unix seconds, value as a string] */
  readonly value: readonly [number, string];
}

export interface RangeSeries {
  readonly metric: Readonly<Record<string, string>>;
  readonly values: ReadonlyArray<readonly [number, string]>;
}

export interface ActiveAlert {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly state: 'pending' | 'firing' | 'inactive';
  readonly activeAt?: string;
  readonly value?: string;
}

export interface LoadedRule {
  readonly name: string;
  readonly query: string;
  readonly type: 'alerting' | 'recording';
  readonly health: 'ok' | 'err' | 'unknown';
  readonly lastError?: string;
  readonly state?: string;
  readonly alerts?: readonly ActiveAlert[];
}

export interface LoadedRuleGroup {
  readonly name: string;
  readonly file: string;
  readonly rules: readonly LoadedRule[];
}

export interface PrometheusHarness {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** Temporary directory with prometheus.yml and the TSDB; removed by stop(). */
  readonly dir: string;
  /** Instant query (GET /api/v1/query); rejects when Prometheus reports an error. */
  query(expr: string, time?: Date): Promise<Sample[]>;
  /** Range query (GET /api/v1/query_range); step in seconds. */
  queryRange(expr: string, start: Date, end: Date, stepSeconds: number): Promise<RangeSeries[]>;
  /** Pending and firing alerts (GET /api/v1/alerts). */
  alerts(): Promise<ActiveAlert[]>;
  /** Loaded rule groups with their health (GET /api/v1/rules). */
  rules(): Promise<LoadedRuleGroup[]>;
  /** Polls `probe` until it returns something other than undefined. */
  waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T>;
  /** What Prometheus logged so far (its last 64 KiB). */
  logs(): string;
  /** Stops Prometheus (SIGTERM, then SIGKILL) and removes the temporary directory. */
  stop(): Promise<void>;
}

const LOG_LIMIT = 64 * 1024;
const REQUEST_TIMEOUT_MS = 5_000;

function prometheusBinary(explicit?: string): string {
  const binary = explicit ?? findOnPath('prometheus') ?? '/usr/bin/prometheus';
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    throw new Error(MISSING_PROMETHEUS);
  }
  return binary;
}

/** A port that was free a moment ago; Prometheus binding it may still race, hence the retries in start. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface ApiResponse<T> {
  readonly status: 'success' | 'error';
  readonly data: T;
  readonly errorType?: string;
  readonly error?: string;
}

async function apiGet<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const body = (await response.json()) as ApiResponse<T>;
  if (body.status !== 'success') throw new Error(`Prometheus ${body.errorType ?? 'error'}: ${body.error ?? response.status} (${url})`);
  return body.data;
}

function writeConfig(dir: string, options: StartOptions, selfAddress: string): string {
  const scrapeInterval = options.scrapeInterval ?? '1s';
  const scrapeConfigs = typeof options.scrapeConfigs === 'function' ? options.scrapeConfigs(selfAddress) : (options.scrapeConfigs ?? []);
  const config = {
    global: {
      scrape_interval: scrapeInterval,
      // the timeout may not exceed the interval (default 10 s would with 1 s scrapes)
      scrape_timeout: scrapeInterval,
      evaluation_interval: options.evaluationInterval ?? '1s',
    },
    rule_files: (options.ruleFiles ?? []).map((file) => path.resolve(file)),
    scrape_configs: scrapeConfigs,
  };
  const file = path.join(dir, 'prometheus.yml');
  writeFileSync(file, stringify(config));
  return file;
}

class RunningPrometheus implements PrometheusHarness {
  readonly url: string;
  private output = '';
  private exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly dir: string,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    const collect = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-LOG_LIMIT);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code) => {
        this.exitCode = code;
        resolve(code);
      });
      child.once('error', (error) => {
        this.output += `\n${String(error)}`;
        this.exitCode = null;
        resolve(null);
      });
    });
  }

  get hasExited(): boolean {
    return this.exitCode !== undefined;
  }

  logs(): string {
    return this.output;
  }

  /** Resolves when /-/ready answers 200; rejects when Prometheus exits or the time is up. */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.hasExited) throw new Error(`prometheus exited with code ${this.exitCode}:\n${this.output}`);
      try {
        const response = await fetch(`${this.url}/-/ready`, { signal: AbortSignal.timeout(1_000) });
        await response.arrayBuffer();
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`prometheus was not ready within ${timeoutMs} ms:\n${this.output}`);
  }

  query(expr: string, time?: Date): Promise<Sample[]> {
    const params = new URLSearchParams({ query: expr });
    if (time) params.set('time', String(time.getTime() / 1000));
    return apiGet<{ resultType: string; result: Sample[] }>(`${this.url}/api/v1/query?${params}`).then((data) => asVector(data));
  }

  queryRange(expr: string, start: Date, end: Date, stepSeconds: number): Promise<RangeSeries[]> {
    const params = new URLSearchParams({
      query: expr,
      start: String(start.getTime() / 1000),
      end: String(end.getTime() / 1000),
      step: String(stepSeconds),
    });
    return apiGet<{ result: RangeSeries[] }>(`${this.url}/api/v1/query_range?${params}`).then((data) => data.result);
  }

  alerts(): Promise<ActiveAlert[]> {
    return apiGet<{ alerts: ActiveAlert[] }>(`${this.url}/api/v1/alerts`).then((data) => data.alerts);
  }

  rules(): Promise<LoadedRuleGroup[]> {
    return apiGet<{ groups: LoadedRuleGroup[] }>(`${this.url}/api/v1/rules`).then((data) => data.groups);
  }

  async waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    while (Date.now() < deadline) {
      if (this.hasExited) throw new Error(`prometheus exited while waiting for ${what}:\n${this.output}`);
      try {
        const result = await probe();
        if (result !== undefined) return result;
      } catch (error) {
        lastError = error;
      }
      await sleep(200);
    }
    const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
  }

  async stop(): Promise<void> {
    if (!this.hasExited) {
      this.child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), 5_000);
      });
      const stopped = await Promise.race([this.exited.then(() => true), gaveUp]);
      clearTimeout(timer);
      if (!stopped) {
        this.child.kill('SIGKILL');
        await this.exited;
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Scalar and string results become a one-sample vector, so that callers handle one shape. */
function asVector(data: { resultType: string; result: unknown }): Sample[] {
  if (data.resultType === 'vector') return data.result as Sample[];
  if (data.resultType === 'scalar' || data.resultType === 'string') {
    return [{ metric: {}, value: data.result as [number, string] }];
  }
  throw new Error(`unexpected result type ${data.resultType}: use queryRange for range vectors`);
}

const ATTEMPTS = 3;

export async function startPrometheus(options: StartOptions = {}): Promise<PrometheusHarness> {
  const binary = prometheusBinary(options.binary);
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const dir = mkdtempSync(path.join(tmpdir(), 'prometheus-'));
    const port = await freePort();
    const configFile = writeConfig(dir, options, `127.0.0.1:${port}`);
    const child = spawn(
      binary,
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        ...(options.extraArgs ?? []),
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const prometheus = new RunningPrometheus(child, port, dir);
    try {
      await prometheus.waitReady(options.startTimeoutMs ?? 20_000);
      return prometheus;
    } catch (error) {
      lastError = error;
      await prometheus.stop();
      // another process took the port between freePort() and the bind: try another one
      if (!/address already in use/.test(prometheus.logs())) break;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}
