/**
 * Tracing start-up: when it is on (config file or OTEL_* variables), the
 * settings that win, that the SDK is not even loaded when it is off, and, end
 * to end, that the spawned exporter sends its spans to an OTLP/HTTP receiver
 * and flushes them when it exits (--once) or stops (SIGTERM).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { configFileFromArgs, planTracing, readTracingSettings, ReportingSpanExporter } from '../../src/tracing';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { eventually, spawnCli, writeConfig } from '../support/cli-process';

let dir: string;
const failOnWarn = (_fields: Record<string, unknown>, message: string): never => {
  throw new Error(`unexpected warning: ${message}`);
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tracing-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('planTracing', () => {
  it('is off unless the file enables it or the environment asks for OTLP traces', () => {
    expect(planTracing({}, {}, failOnWarn)).toBeUndefined();
    expect(planTracing({ enabled: false }, {}, failOnWarn)).toBeUndefined();
    expect(planTracing({ enabled: false, endpoint: 'http://collector:4318/v1/traces' }, {}, failOnWarn)).toBeUndefined();
    expect(planTracing({ enabled: true }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, failOnWarn)).toBeDefined();
    expect(planTracing({ enabled: true }, {})).toEqual({ serviceName: 'dataprotect-exporter', reason: 'tracing.enabled in the configuration file' });
    expect(planTracing({}, { OTEL_TRACES_EXPORTER: 'otlp' })?.reason).toBe('OTEL_TRACES_EXPORTER=otlp');
    expect(planTracing({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })?.reason).toBe('OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(planTracing({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })?.reason).toBe('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  });

  it('is off with enabled: false whatever OTEL_* says, and warns when OTEL_* asked for traces', () => {
    const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const warn = (fields: Record<string, unknown>, message: string): number => warnings.push({ fields, message });
    expect(planTracing({ enabled: false }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, warn)).toBeUndefined();
    expect(planTracing({ enabled: false }, { OTEL_TRACES_EXPORTER: 'otlp' }, warn)).toBeUndefined();
    expect(planTracing({ enabled: false }, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }, warn)).toBeUndefined();
    expect(warnings.map((warning) => warning.fields.ignored)).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_TRACES_EXPORTER=otlp',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    ]);
    expect(warnings[0]?.message).toMatch(/tracing\.enabled is false .* wins over OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('is off whatever the file says with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    expect(planTracing({ enabled: true }, { OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(planTracing({ enabled: true }, { OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('takes the file values first and leaves the rest to the OTEL_* variables', () => {
    const env = { OTEL_SERVICE_NAME: 'from-env', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' };
    expect(planTracing({ enabled: true, endpoint: 'http://file:4318/v1/traces', serviceName: 'from-file' }, env)).toMatchObject({
      endpoint: 'http://file:4318/v1/traces',
      serviceName: 'from-file',
    });
    // Unset in the file: the exporter reads OTEL_EXPORTER_OTLP_*, the SDK OTEL_SERVICE_NAME.
    const plan = planTracing({ enabled: true }, env);
    expect(plan?.endpoint).toBeUndefined();
    expect(plan?.serviceName).toBeUndefined();
    expect(planTracing({ enabled: true }, { OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=x' })?.serviceName).toBeUndefined();
  });
});

describe('ReportingSpanExporter', () => {
  it('reports failed exports: the first at once, then one line a minute with what was lost meanwhile', () => {
    let now = 0;
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const results = [1, 1, 0, 1, 1];
    const inner = {
      export: (_spans: unknown[], done: (result: { code: number; error?: Error }) => void) => {
        const code = results.shift() ?? 0;
        done(code === 0 ? { code } : { code, error: new Error('connect ECONNREFUSED 127.0.0.1:4318') });
      },
      shutdown: () => Promise.resolve(),
    };
    const exporter = new ReportingSpanExporter(inner as never, (fields, message) => lines.push({ fields, message }), () => now);
    const seen: number[] = [];
    const exportAt = (at: number, spans: number): void => {
      now = at;
      exporter.export(Array.from({ length: spans }) as never, (result) => seen.push(result.code));
    };
    exportAt(0, 3); // failed: logged at once
    exportAt(5_000, 2); // failed: counted
    exportAt(10_000, 4); // exported
    exportAt(30_000, 1); // failed: counted
    exportAt(61_000, 5); // failed: a minute later, logged with the three batches since
    expect(seen).toEqual([1, 1, 0, 1, 1]); // results pass through unchanged
    expect(lines).toEqual([
      { fields: { batches: 1, spans: 3, error: 'Error: connect ECONNREFUSED 127.0.0.1:4318' }, message: 'span export failed; traces are lost (at most one line a minute)' },
      { fields: { batches: 3, spans: 8, error: 'Error: connect ECONNREFUSED 127.0.0.1:4318' }, message: 'span export failed; traces are lost (at most one line a minute)' },
    ]);
  });

  it('reports the batches lost after the last line once the minute is over, though the endpoint has recovered, and at shutdown', async () => {
    let now = 0;
    const lines: Array<Record<string, unknown>> = [];
    const results = [1, 1, 1, 0, 0, 1];
    const inner = {
      export: (_spans: unknown[], done: (result: { code: number; error?: Error }) => void) => {
        const code = results.shift() ?? 0;
        done(code === 0 ? { code } : { code, error: new Error('Service Unavailable') });
      },
      shutdown: () => Promise.resolve(),
    };
    const exporter = new ReportingSpanExporter(inner as never, (fields) => lines.push(fields), () => now);
    const exportAt = (at: number, spans: number): void => {
      now = at;
      exporter.export(Array.from({ length: spans }) as never, () => undefined);
    };
    exportAt(0, 3); // failed: logged at once
    exportAt(5_000, 2); // failed: counted
    exportAt(10_000, 4); // failed: counted; then the endpoint recovers
    exportAt(30_000, 1); // exported
    exportAt(65_000, 1); // exported, a minute after the line: the two batches lost since are told now
    expect(lines).toEqual([
      { batches: 1, spans: 3, error: 'Error: Service Unavailable' },
      { batches: 2, spans: 6, error: 'Error: Service Unavailable' },
    ]);
    exportAt(70_000, 7); // failed within the minute: counted
    await exporter.shutdown(); // the last word: what was lost since the last line
    expect(lines).toHaveLength(3);
    expect(lines[2]).toEqual({ batches: 1, spans: 7, error: 'Error: Service Unavailable' });
  });
});

describe('readTracingSettings', () => {
  it('reads the tracing section with ${ENV} references, and gives {} for a missing or broken file', () => {
    const file = join(dir, 'tracing.yaml');
    writeFileSync(file, 'tracing:\n  enabled: true\n  endpoint: http://${COLLECTOR}:4318/v1/traces\n  serviceName: ${UNSET_NAME}\ntargets: []\n');
    expect(readTracingSettings(file, { COLLECTOR: 'otel' })).toEqual({ enabled: true, endpoint: 'http://otel:4318/v1/traces' });
    writeFileSync(file, 'tracing: {enabled: "yes"\n');
    expect(readTracingSettings(file, {})).toEqual({});
    expect(readTracingSettings(join(dir, 'missing.yaml'), {})).toEqual({});
  });

  it('finds the config file on the command line', () => {
    expect(configFileFromArgs(['--once', '--config', '/x.yaml'])).toBe('/x.yaml');
    expect(configFileFromArgs(['--config=/y.yaml'])).toBe('/y.yaml');
    expect(configFileFromArgs(['--once'])).toBeUndefined();
  });
});

describe('the SDK is loaded only when tracing is on', () => {
  const loadsSdk = (env: Record<string, string>): Promise<string> =>
    new Promise((resolve, reject) => {
      const script = `
        const { planTracing, startTracing } = require('./src/tracing');
        const plan = planTracing({}, process.env);
        const tracing = plan ? startTracing(plan) : undefined;
        const loaded = Object.keys(require.cache).some((file) => file.includes('@opentelemetry/sdk-node'));
        process.stdout.write(String(loaded));
        if (tracing) tracing.shutdown();`;
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: join(__dirname, '..', '..'), env: { PATH: process.env.PATH ?? '', ...env } });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('error', reject);
      child.on('exit', () => resolve(out));
    });

  it('does not load @opentelemetry/sdk-node when off, and does when asked', async () => {
    expect(await loadsSdk({})).toBe('false');
    expect(await loadsSdk({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toBe('true');
  });
});

describe('spans of the running exporter reach an OTLP/HTTP receiver', () => {
  interface OtlpSpan {
    name: string;
    traceId: string;
    spanId: string;
    parentSpanId?: string;
    attributes?: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
  }
  let sim: RunningSimulator;
  let receiver: Server;
  let endpoint: string;
  const received: Array<{ service: string; spans: OtlpSpan[] }> = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 9, size: { replicatedVms: 6, replicationClusters: 1 } });
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        if (req.url === '/v1/traces' && req.method === 'POST') {
          const payload = JSON.parse(body) as {
            resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
          };
          for (const resourceSpans of payload.resourceSpans) {
            const service = resourceSpans.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue ?? '';
            received.push({ service, spans: resourceSpans.scopeSpans.flatMap((scope) => scope.spans) });
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await sim.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  beforeEach(() => {
    received.length = 0;
  });

  const spansNamed = (name: string): OtlpSpan[] => received.flatMap((batch) => batch.spans).filter((span) => span.name === name);
  const target = () => ({ name: 'repl', kind: 'replication', url: sim.urls.replication, username: sim.username, password: '${SIM_PASSWORD}' });

  it('logs a configured endpoint without the user name and password it carries', async () => {
    const config = join(dir, 'credentials.yaml');
    const withCredentials = endpoint.replace('http://', 'http://otlp-user:otlp-s3cret@') + '/v1/traces';
    writeConfig(config, [target()], { tracing: { enabled: true, endpoint: withCredentials } });
    const cli = spawnCli(['--config', config, '--once'], { SIM_PASSWORD: sim.password });
    expect(await cli.exited).toBe(0);
    expect(cli.logs.find((line) => line.msg === 'tracing enabled')).toMatchObject({ endpoint: `${endpoint}/v1/traces` });
    expect(JSON.stringify(cli.logs)).not.toContain('otlp-s3cret');
  });

  it('--once: exports the run before exiting (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME)', async () => {
    const config = join(dir, 'once.yaml');
    writeConfig(config, [target()]);
    const cli = spawnCli(['--config', config, '--once'], { SIM_PASSWORD: sim.password, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'exporter-under-test' });
    expect(await cli.exited).toBe(0);
    expect(cli.logs.find((line) => line.msg === 'tracing enabled')).toMatchObject({ reason: 'OTEL_EXPORTER_OTLP_ENDPOINT' });
    const collects = received.flatMap((batch) => batch.spans).filter((span) => span.name.startsWith('collect '));
    expect(collects.length).toBeGreaterThanOrEqual(1);
    expect(received.every((batch) => batch.service === 'exporter-under-test')).toBe(true);
    // A request span is the child of its run's span, in the same trace.
    const [collect] = collects;
    const children = received.flatMap((batch) => batch.spans).filter((span) => span.parentSpanId === collect!.spanId);
    expect(children.length).toBeGreaterThanOrEqual(1);
    expect(children.every((span) => span.traceId === collect!.traceId && /^GET \/api\/v1\//.test(span.name))).toBe(true);
  });

  it('--once: a dead OTLP endpoint (accepts, never answers) holds the exit 5 s at most, and says so', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const blackHole = createServer(() => undefined); // reads the request, never answers
    blackHole.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    try {
      const config = join(dir, 'dead-endpoint.yaml');
      writeConfig(config, [target()]);
      const cli = spawnCli(['--config', config, '--once'], {
        SIM_PASSWORD: sim.password,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`,
        // The exporter's own timeout is far beyond this test's: only the 5 s bound can end the run.
        OTEL_EXPORTER_OTLP_TIMEOUT: '600000',
      });
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toContain('dataprotect_up{target="repl",kind="replication"} 1');
      expect(cli.logs.some((line) => line.msg === 'spans not exported within 5 s; exiting without them')).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    }
  });

  it('--once: a closed OTLP port holds the exit 5 s at most', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const config = join(dir, 'closed-endpoint.yaml');
    writeConfig(config, [target()]);
    const cli = spawnCli(['--config', config, '--once'], { SIM_PASSWORD: sim.password, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
    // The exporter retries a refused connection; only the 5 s bound ends it (a generous check, not a timing).
    const overdue = new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000).unref());
    expect(await Promise.race([cli.exited, overdue])).toBe(0);
    expect(cli.stdout()).toContain('dataprotect_up{target="repl",kind="replication"} 1');
  });

  it('--once: an endpoint that refuses the spans is reported in the log', async () => {
    const refusing = createServer((_req, res) => res.writeHead(400).end('{}'));
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const config = join(dir, 'refusing-endpoint.yaml');
      writeConfig(config, [target()]);
      const cli = spawnCli(['--config', config, '--once'], {
        SIM_PASSWORD: sim.password,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`,
      });
      expect(await cli.exited).toBe(0);
      const failure = cli.logs.find((line) => String(line.msg).startsWith('span export failed'));
      expect(failure).toMatchObject({ level: 'warn', batches: 1 });
      expect(Number(failure!.spans)).toBeGreaterThanOrEqual(1);
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });

  it('daemon: tracing.enabled and endpoint from the file; the last spans are flushed on SIGTERM', async () => {
    const config = join(dir, 'daemon.yaml');
    writeConfig(config, [target()], { tracing: { enabled: true, endpoint: `${endpoint}/v1/traces`, serviceName: 'from-file' } });
    // The batch processor holds the spans for a minute: only the flush at the stop can send them.
    const cli = spawnCli(['--config', config], { SIM_PASSWORD: sim.password, OTEL_BSP_SCHEDULE_DELAY: '60000' });
    try {
      const address = String((await cli.waitForLog((line) => line.msg === 'listening')).address);
      await eventually(async () => (await (await fetch(`${address}/metrics`)).text()).includes('\ndataprotect_exporter_first_round_complete 1\n'), 20_000, 'first collection');
      expect(received).toHaveLength(0);
    } finally {
      await cli.stop();
    }
    expect(await cli.exited).toBe(0);
    expect(spansNamed('collect clusters').length).toBeGreaterThanOrEqual(1);
    expect(received.every((batch) => batch.service === 'from-file')).toBe(true);
  });
});
