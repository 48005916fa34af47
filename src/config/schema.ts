import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import cron from 'node-cron';
import { formatBytes, parseBytes } from '../util/bytes';
import { Secret } from '../util/secret';
import { bcryptCost, isBcryptHash, unverifiableBcryptHash } from '../util/bcrypt-hash';
import { readNamedFile } from './yaml-file';

/** A value as a problem quotes it: a string in quotes, a scalar as YAML writes it (an empty key is null), never a whole mapping. */
function quoted(value: unknown): string {
  if (typeof value === 'string') return `"${value}"`;
  if (Array.isArray(value)) return 'a list';
  return value !== null && typeof value === 'object' ? 'a mapping' : String(value);
}

/** A number or a string turned into a value by `parse`; `problem` names a value it gives undefined for (or of another type). */
const parsedBy = <T>(parse: (value: number | string) => T | undefined, problem: string) =>
  z.union([z.number(), z.string()], { error: (issue) => `${quoted(issue.input)} ${problem}` }).transform((value, ctx) => {
    const parsed = parse(value);
    if (parsed !== undefined) return parsed;
    ctx.addIssue({ code: 'custom', message: `"${value}" ${problem}` });
    return z.NEVER;
  });

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION_RE = /^(\d+(?:\.\d+)?(ms|s|m|h|d|w))+$/;
const PART_RE = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;

/** Milliseconds (never negative) of a number of seconds or a Prometheus-style string such as "90s", "5m", "1h30m", "7d". */
function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  if (!DURATION_RE.test(text)) return undefined;
  let total = 0;
  for (const match of text.matchAll(PART_RE)) total += Number(match[1]) * (UNIT_MS[match[2] as string] ?? 0);
  return total;
}

const duration = parsedBy(parseDuration, 'is not a duration (use e.g. 30s, 5m, 24h, 7d)');

const positiveDuration = duration.refine((ms) => ms > 0, 'must be greater than zero');

/** Node fires a timer set beyond 2^31-1 ms at once (TimeoutOverflowWarning): a "practically never" time limit would cut everything off. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A time limit that a timer enforces. */
const timeLimit = positiveDuration.refine(
  (ms) => ms <= MAX_TIMER_MS,
  `must be at most 24d (${MAX_TIMER_MS} ms, the longest a timer waits)`,
);

const byteSize = parsedBy((value) => parseBytes(value) || undefined, 'is not a size greater than zero (use e.g. 64MiB, 512KiB, 100MB)');

/** 2.5 times the largest answers: a 10,000-asset page (13 MB) and a 50,000-asset estate's VM list (25 MB, scaled from the simulator). */
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 ** 2;
/** 24 h of audit entries (700,000) or activities (500,000) of 50,000 assets, scaled from the simulator's; 2,000 default pages at most. */
const DEFAULT_MAX_LISTING_ITEMS = 2_000_000;
/** A few large pages per target: at 10,000 assets a 512 MiB memory limit holds it even when every upstream sends endless bodies. */
const DEFAULT_MAX_BUFFERED_RESPONSE_BYTES = 96 * 1024 ** 2;
/** docs/sizing.md: enough for 50,000 assets; a smaller estate may lower it */
const DEFAULT_COLLECTION_HEAP_LIMIT = 640 * 1024 ** 2;

function fileText(file: string, path: PropertyKey[], ctx: z.RefinementCtx): string | undefined {
  const read = readNamedFile(file);
  if ('content' in read) return read.content.toString('utf8');
  ctx.addIssue({ code: 'custom', path, message: read.problem });
  return undefined;
}

/**
 * A CA file's text, when it holds at least one usable PEM certificate. TLS ignores what it cannot parse: a DER file, a key or a cut
 * file would leave no trusted CA, and every request would fail with "self-signed certificate" instead of a configuration error.
 */
function caText(file: string, ctx: z.RefinementCtx): string | undefined {
  const text = fileText(file, ['tls', 'caFile'], ctx);
  if (text === undefined) return undefined;
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  const usable = blocks.some((block) => {
    try {
      return Boolean(new X509Certificate(block));
    } catch {
      return false;
    }
  });
  if (usable) return text;
  ctx.addIssue({ code: 'custom', path: ['tls', 'caFile'], message: `${file} holds no usable PEM certificate` });
  return undefined;
}

/** A secret file (a Kubernetes or Docker secret) without its final newline; an issue at `path` when it gives none. */
function secretFile(file: string, path: PropertyKey[], ctx: z.RefinementCtx): Secret | undefined {
  const content = fileText(file, path, ctx)?.replace(/\r?\n$/, '');
  if (content === '') ctx.addIssue({ code: 'custom', path, message: `file ${file} is empty` });
  return content ? new Secret(content) : undefined;
}

const cronExpression = z.string().superRefine((expr, ctx) => {
  if (!cron.validate(expr)) ctx.addIssue({ code: 'custom', message: `"${expr}" is not a valid cron expression` });
});

export const targetKinds = ['management', 'replication', 'storage'] as const;
export type TargetKind = (typeof targetKinds)[number];

const collectorSettings = z.strictObject({
  enabled: z.boolean().default(true),
  schedule: cronExpression.optional(),
  timeout: timeLimit.optional(),
});

const tlsSettings = z.strictObject({ caFile: z.string().min(1).optional(), insecureSkipVerify: z.boolean().default(false) });

const targetSettings = z
  .strictObject({
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
    requestTimeout: timeLimit.default(30_000),
    /** requests in flight to this target at once */
    maxConcurrency: z.number().int().min(1).max(64).default(4),
    /** attempts per request on 429, 503 and network errors (1 = no retry) */
    maxAttempts: z.number().int().min(1).max(10).default(4),
    /** largest response body read from this target; a larger one fails the request */
    maxResponseBytes: byteSize.default(DEFAULT_MAX_RESPONSE_BYTES),
    /** page size for paged listings (the management service accepts up to 10000; storage requests ask at most 200) */
    pageSize: z.number().int().min(1).max(10_000).default(1000),
    /** the most items one listing may return; its pages are bounded by maxListingItems / pageSize */
    maxListingItems: z.number().int().min(1).default(DEFAULT_MAX_LISTING_ITEMS),
    /** storage targets: a single appliance (SYSTEM-ID 0) or a management center (systems discovered) */
    storageMode: z.enum(['appliance', 'center']).optional(),
    /** storage and replication targets: the seeds' paths and field names, the real products', or found at first contact (unset = auto) */
    apiSpelling: z.enum(['seed', 'product', 'auto']).optional(),
    collectors: z.record(z.string(), collectorSettings).default({}),
  })
  .superRefine((target, ctx) => {
    const rules: Array<[wrong: boolean, field: string, message: string]> = [
      [!target.password && !target.passwordFile, 'password', 'set password (may use ${ENV_VAR}) or passwordFile'],
      [!!(target.password && target.passwordFile), 'passwordFile', 'set either password or passwordFile, not both'],
      [!!target.storageMode && target.kind !== 'storage', 'storageMode', 'only applies to targets of kind storage'],
      [!!target.apiSpelling && target.kind === 'management', 'apiSpelling', 'only applies to targets of kind storage or replication'],
      // RFC 7617: Basic splits user:password at the first colon, so the plugin would read another user and answer 401.
      [
        target.kind === 'replication' && target.username.includes(':'),
        'username',
        'HTTP Basic (the replication plugin) cannot send a user name with a colon',
      ],
    ];
    for (const [wrong, field, message] of rules) if (wrong) ctx.addIssue({ code: 'custom', path: [field], message });
  }, {
    // Run even when other fields of the target are wrong, so every mistake is reported at once.
    when: (payload) => typeof payload.value === 'object' && payload.value !== null,
  })
  // Secrets resolved and wrapped (they never print), the CA read, the URL without a trailing slash.
  .transform(({ password, passwordFile, tls, url, ...rest }, ctx) => {
    const secret = passwordFile ? secretFile(passwordFile, ['passwordFile'], ctx) : new Secret(password ?? '');
    const ca = tls.caFile ? caText(tls.caFile, ctx) : undefined;
    return {
      ...rest,
      url: url.replace(/\/+$/, ''),
      password: secret ?? new Secret(''),
      tls: { ...(tls.caFile ? { caFile: tls.caFile } : {}), ...(ca ? { ca } : {}), insecureSkipVerify: tls.insecureSkipVerify },
    };
  });

/** A basic-auth password (in the file, from `passwordFile`, or a bcrypt hash as in Prometheus's web config), as a Secret. */
const basicAuthPassword = z
  .union([z.string().min(1), z.strictObject({ passwordFile: z.string().min(1) })], {
    // Never quoting the value: it may be the password (a YAML number is not a string).
    error: 'must be a password (a string), a bcrypt hash or { passwordFile: FILE }',
  })
  .transform((value, ctx) => {
    if (typeof value !== 'string') return secretFile(value.passwordFile, ['passwordFile'], ctx) ?? z.NEVER;
    const brokenHash = /^\$2[abxy]?\$/.test(value) && !isBcryptHash(value);
    const unverifiable = isBcryptHash(value) ? unverifiableBcryptHash(value) : undefined;
    if (unverifiable) {
      ctx.addIssue({ code: 'custom', message: unverifiable });
      return z.NEVER;
    }
    if (!brokenHash) return new Secret(value);
    ctx.addIssue({ code: 'custom', message: 'looks like a bcrypt hash but is not a complete one ($2y$NN$ and 53 characters)' });
    return z.NEVER;
  });

/** A DNS host name (RFC 1123 labels). */
const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME = new RegExp(`^(?=.{1,253}\\.?$)${HOST_LABEL}(?:\\.${HOST_LABEL})*\\.?$`);

const webSettings = z.strictObject({
  /** an address or a host name alone: Prometheus exporters' habit of "host:port" would pass here and fail to listen at start */
  listenAddress: z
    .string()
    .refine(
      (address) => isIP(address) !== 0 || HOST_NAME.test(address),
      'must be an IP address or a host name, without a port (the port is web.port)',
    )
    .default('0.0.0.0'),
  port: z.number().int().min(0).max(65_535).default(8497), // 0: any free port (tests)
  /** HTTPS for every endpoint, like Prometheus's web config (the files are re-read on reload) */
  tls: z.strictObject({ certFile: z.string().min(1), keyFile: z.string().min(1) }).optional(),
  /** basic auth for every path but /healthz and /readyz: user name -> password (${ENV_VAR}) or {passwordFile} */
  basicAuthUsers: z
    .record(z.string(), basicAuthPassword)
    .superRefine((users, ctx) => {
      const names = Object.keys(users);
      if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'list at least one user, or remove basicAuthUsers' });
      const message = 'a basic-auth user name has no colon or white space';
      for (const name of names) if (!/^[^:\s]+$/.test(name)) ctx.addIssue({ code: 'custom', path: [name], message });
      // A refusal costs one comparison at the highest cost (the user's hash or a decoy): a cheaper hash would tell its user apart.
      const hashes = Object.entries(users).filter(([, secret]) => isBcryptHash(secret.reveal()));
      const costs = new Map(hashes.map(([name, secret]) => [name, bcryptCost(secret.reveal())]));
      if (new Set(costs.values()).size > 1) {
        const listed = [...costs].map(([name, cost]) => `${name}: ${cost}`).join(', ');
        const problem = `bcrypt hashes of different costs (${listed}) let refusal times tell users apart: hash every password at one cost`;
        ctx.addIssue({ code: 'custom', message: problem });
      }
    })
    .optional(),
});

/** A share of the schedule period ("25%") or a fixed duration ("45m"). */
export type RpoGrace = { readonly kind: 'share'; readonly share: number } | { readonly kind: 'fixed'; readonly ms: number };

const rpoGrace = parsedBy((value): RpoGrace | undefined => {
  const percent = typeof value === 'string' ? /^(\d+(?:\.\d+)?)\s*%$/.exec(value.trim()) : null;
  if (percent) return { kind: 'share', share: Number(percent[1]) / 100 };
  const ms = parseDuration(value);
  return ms === undefined ? undefined : { kind: 'fixed', ms };
}, 'is neither a share of the period (e.g. 25%) nor a duration (e.g. 45m)');

const collectionSettings = z.strictObject({
  /** how long a failing collector's last good series are still served */
  staleAfter: positiveDuration.default(15 * 60_000),
  /** recovery point objective of policies with no rpoByPolicy entry and no schedule the exporter can read */
  defaultRpo: positiveDuration.default(24 * 3_600_000),
  /** RPO per protection policy name or id; overrides the one derived from the policy's schedule */
  rpoByPolicy: z.record(z.string(), positiveDuration).default({}),
  /** added to a schedule's period when it gives no duration; a share has a floor of 1 h (src/collectors/management/policy-rpo.ts) */
  rpoGrace: rpoGrace.default({ kind: 'share', share: 0.25 }),
  /** trailing window of dataprotect_activities_window and dataprotect_audit_events_window */
  window: positiveDuration.default(24 * 3_600_000),
  /** activity levels counted; TASK is very numerous and off by default */
  activityClassTypes: z.array(z.enum(['JOB_GROUP', 'JOB', 'TASK'])).min(1).default(['JOB_GROUP', 'JOB']),
  /** the copies collector re-reads every asset's copies once over this period, spread across runs */
  copiesFullRescanPeriod: positiveDuration.default(24 * 3_600_000),
  /** per-asset series: all assets, only protected ones, or none (aggregates only) */
  perAssetSeries: z.enum(['all', 'protected', 'none']).default('all'),
  /** response bytes buffered at once across all targets; past it the largest body in flight is refused */
  maxBufferedResponseBytes: byteSize.default(DEFAULT_MAX_BUFFERED_RESPONSE_BYTES),
  /** heap ceiling of the collection thread (old generation); past it that thread alone is restarted (docs/sizing.md) */
  heapLimit: byteSize
    .refine((bytes) => bytes >= 16 * 1024 ** 2, 'must be at least 16MiB: no thread runs under less')
    .default(DEFAULT_COLLECTION_HEAP_LIMIT),
});

/** Read before anything else by src/main.ts (tracing must start first); validated here like the rest. */
const tracingSettings = z.strictObject({
  /** true: export traces; unset: only when OTEL_TRACES_EXPORTER=otlp or OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set; false: never */
  enabled: z.boolean().optional(),
  /** OTLP/HTTP traces URL (e.g. http://otel-collector:4318/v1/traces); OTEL_EXPORTER_OTLP_* apply when unset */
  endpoint: z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' }).optional(),
  /** service.name of the spans; OTEL_SERVICE_NAME, then dataprotect-exporter, when unset */
  serviceName: z.string().min(1).optional(),
});

/** Estate events over OTLP/HTTP (src/otlp): to tracing.endpoint's /v1/traces and /v1/logs, else where OTEL_EXPORTER_OTLP_* say. */
const otlpSettings = z.strictObject({
  /** completed activities as spans (JOB_GROUP root, JOB and TASK children) */
  activities: z.strictObject({ enabled: z.boolean().default(false) }).prefault({}),
  auditLogs: z.strictObject({ enabled: z.boolean().default(false) }).prefault({}),
  /** how far back the first run after start forwards what completed before it (default 0: only what completes after start) */
  backfill: duration.default(0),
  /** events waiting for export per signal; beyond it they are discarded and counted by the OTLP drop counter (docs/metrics.md) */
  maxQueueSize: z.number().int().min(1).max(1_000_000).default(10_000),
  /** time limit of one export request, its retries on 429/503 included */
  timeout: timeLimit.default(10_000),
});

/** sharding.index as a number: given as one, or the ordinal a name ends in (a StatefulSet pod name such as exporter-2). */
export function shardIndexOf(index: number | string): number | undefined {
  if (typeof index === 'number') return index;
  const ordinal = /(\d+)$/.exec(index)?.[1];
  return ordinal === undefined ? undefined : Number(ordinal);
}

const shardingSettings = z
  .strictObject({
    /** number of replicas sharing the targets; a numeric string too, for ${ENV_VAR} (set beside the replica count) */
    shards: z
      .union([z.number().int().min(1), z.string().regex(/^[1-9]\d*$/).transform(Number)], {
        error: (issue) => `${quoted(issue.input)} must be a whole number from 1`,
      })
      .default(1),
    /** this replica's shard, 0-based; a name ending in the ordinal is accepted (${HOSTNAME} of a StatefulSet pod: exporter-2 -> 2) */
    index: z
      .union([z.number().int().min(0), z.string().min(1)], {
        error: (issue) => `${quoted(issue.input)} is neither a number from 0 nor a name ending in one`,
      })
      .default(0),
  })
  .superRefine((sharding, ctx) => {
    // A bad value is a configuration error, not a crash at start.
    const index = shardIndexOf(sharding.index);
    if (index === undefined) {
      ctx.addIssue({ code: 'custom', path: ['index'], message: `"${sharding.index}" is neither a number nor a name ending in one` });
    } else if (index >= sharding.shards) {
      // Another replica would collect the same targets: duplicated series, double counts in sums.
      const message = `shard ${index} does not exist with shards: ${sharding.shards} (0 to ${sharding.shards - 1})`;
      ctx.addIssue({ code: 'custom', path: ['index'], message });
    }
  });

export const configSchema = z.strictObject({
  web: webSettings.prefault({}),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  collection: collectionSettings.prefault({}),
  tracing: tracingSettings.prefault({}),
  otlp: otlpSettings.prefault({}),
  sharding: shardingSettings.prefault({}),
  targets: z.array(targetSettings).min(1, 'configure at least one target'),
}).superRefine(({ otlp, collection, targets }, ctx) => {
  // A first run reads the estate's events back only as far as the window: more backfill would be cut without a word.
  if (otlp.backfill > collection.window) {
    const lengths = `${otlp.backfill / 60_000} minutes is longer than collection.window (${collection.window / 60_000} minutes)`;
    const message = `${lengths}: a first run reads back only as far as the window`;
    ctx.addIssue({ code: 'custom', path: ['otlp', 'backfill'], message });
  }
  // The bodies of all targets share maxBufferedResponseBytes: a body between the two limits would be refused every time.
  targets.forEach(({ maxResponseBytes }, index) => {
    if (maxResponseBytes <= collection.maxBufferedResponseBytes) return;
    const buffered = formatBytes(collection.maxBufferedResponseBytes);
    const sizes = `${formatBytes(maxResponseBytes)} is more than collection.maxBufferedResponseBytes (${buffered})`;
    const message = `${sizes}: a body between the two could never be read; raise that one too`;
    ctx.addIssue({ code: 'custom', path: ['targets', index, 'maxResponseBytes'], message });
  });
});

/** The whole configuration; every duration field is in milliseconds. */
export type ExporterConfig = z.output<typeof configSchema>;
