import { z } from 'zod';
import cron from 'node-cron';
import { parseDuration } from '../util/duration';

/** A duration given as seconds or a string like "30s", "5m", "24h"; parsed to milliseconds. */
const duration = z
  .union([z.number(), z.string()])
  .transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration (use e.g. 30s, 5m, 24h, 7d)` });
      return z.NEVER;
    }
    return ms;
  });

const positiveDuration = duration.refine((ms) => ms > 0, 'must be greater than zero');

const cronExpression = z.string().superRefine((expr, ctx) => {
  if (!cron.validate(expr)) ctx.addIssue({ code: 'custom', message: `"${expr}" is not a valid cron expression` });
});

export const targetKinds = ['management', 'replication', 'storage'] as const;
export type TargetKind = (typeof targetKinds)[number];

const collectorSettings = z
  .object({
    enabled: z.boolean().default(true),
    schedule: cronExpression.optional(),
    timeout: positiveDuration.optional(),
  })
  .strict();

const tlsSettings = z
  .object({
    caFile: z.string().min(1).optional(),
    insecureSkipVerify: z.boolean().default(false),
  })
  .strict();

const targetSettings = z
  .object({
    name: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'use letters, digits and . _ : - (it becomes the target label)'),
    kind: z.enum(targetKinds),
    url: z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' }),
    username: z.string().min(1),
    password: z.string().min(1).optional(),
    passwordFile: z.string().min(1).optional(),
    tls: tlsSettings.prefault({}),
    /** time limit of one HTTP request (each retry gets its own) */
    requestTimeout: positiveDuration.default(30_000),
    /** requests in flight to this target at once */
    maxConcurrency: z.number().int().min(1).max(64).default(4),
    /** attempts per request on 429, 503 and network errors (1 = no retry) */
    maxAttempts: z.number().int().min(1).max(10).default(4),
    /** page size for paged listings (the management service accepts up to 10000) */
    pageSize: z.number().int().min(1).max(10_000).default(1000),
    /** storage targets: a single appliance (SYSTEM-ID 0) or a management center (systems discovered) */
    storageMode: z.enum(['appliance', 'center']).optional(),
    collectors: z.record(z.string(), collectorSettings).default({}),
  })
  .strict()
  .superRefine((target, ctx) => {
    if (!target.password && !target.passwordFile) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'set password (may use ${ENV_VAR}) or passwordFile' });
    }
    if (target.password && target.passwordFile) {
      ctx.addIssue({ code: 'custom', path: ['passwordFile'], message: 'set either password or passwordFile, not both' });
    }
    if (target.storageMode && target.kind !== 'storage') {
      ctx.addIssue({ code: 'custom', path: ['storageMode'], message: 'only applies to targets of kind storage' });
    }
  });

const webSettings = z
  .object({
    listenAddress: z.string().min(1).default('0.0.0.0'),
    port: z.number().int().min(0).max(65_535).default(8497), // 0: any free port (tests)
    /** TLS for /metrics and /probe, like Prometheus's web config */
    tls: z.object({ certFile: z.string().min(1), keyFile: z.string().min(1) }).strict().optional(),
    /** basic auth users for /metrics and /probe; values are bcrypt hashes or plain passwords from ${ENV} */
    basicAuthUsers: z.record(z.string(), z.string().min(1)).optional(),
  })
  .strict();

const collectionSettings = z
  .object({
    /** how long a failing collector's last good series are still served */
    staleAfter: positiveDuration.default(15 * 60_000),
    /** recovery point objective for assets whose policy has no entry in rpoByPolicy */
    defaultRpo: positiveDuration.default(24 * 3_600_000),
    /** RPO per protection policy name */
    rpoByPolicy: z.record(z.string(), positiveDuration).default({}),
    /** trailing window of dataprotect_activities_window and dataprotect_audit_events_window */
    window: positiveDuration.default(24 * 3_600_000),
    /** activity levels counted; TASK is very numerous and off by default */
    activityClassTypes: z.array(z.enum(['JOB_GROUP', 'JOB', 'TASK'])).min(1).default(['JOB_GROUP', 'JOB']),
    /** the copies collector re-reads every asset's copies once over this period, spread across runs */
    copiesFullRescanPeriod: positiveDuration.default(24 * 3_600_000),
    /** per-asset series: all assets, only protected ones, or none (aggregates only) */
    perAssetSeries: z.enum(['all', 'protected', 'none']).default('all'),
  })
  .strict();

const tracingSettings = z
  .object({
    enabled: z.boolean().default(false),
    /** OTLP/HTTP traces endpoint; OTEL_EXPORTER_OTLP_* variables apply when unset */
    endpoint: z.url().optional(),
    serviceName: z.string().min(1).default('dataprotect-exporter'),
  })
  .strict();

const shardingSettings = z
  .object({
    /** number of replicas sharing the targets */
    shards: z.number().int().min(1).default(1),
    /** this replica's shard, 0-based; "${HOSTNAME}"-style ordinal suffixes are accepted (e.g. exporter-2 -> 2) */
    index: z.union([z.number().int().min(0), z.string().min(1)]).default(0),
  })
  .strict();

export const configSchema = z
  .object({
    web: webSettings.prefault({}),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
    collection: collectionSettings.prefault({}),
    tracing: tracingSettings.prefault({}),
    sharding: shardingSettings.prefault({}),
    targets: z.array(targetSettings).min(1, 'configure at least one target'),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
export type ParsedConfig = z.output<typeof configSchema>;
export type ParsedTarget = ParsedConfig['targets'][number];
