import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { X509Certificate } from 'node:crypto';
import { ConfigError, loadConfigFile, parseConfig } from '../../src/config/load';
import { KNOWN_COLLECTORS } from '../../src/collectors/names';
import { generateSelfSignedCert } from '../../simulator/core/tls';

const dir = mkdtempSync(join(tmpdir(), 'dp-config-'));
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const minimalTarget = { name: 'backup', kind: 'management', url: 'https://backup.example:8443', username: 'u', password: 'p' };

describe('configuration', () => {
  it('fills every default', () => {
    const config = parseConfig({ targets: [minimalTarget] });
    expect(config.web).toEqual({ listenAddress: '0.0.0.0', port: 8497 });
    expect(config.collection).toMatchObject({
      staleAfter: 15 * 60_000,
      defaultRpo: 24 * 3_600_000,
      window: 24 * 3_600_000,
      rpoByPolicy: {},
      rpoGrace: { kind: 'share', share: 0.25 },
      activityClassTypes: ['JOB_GROUP', 'JOB'],
      perAssetSeries: 'all',
      maxBufferedResponseBytes: 96 * 1024 * 1024,
    });
    // The estate's events over OTLP are sent only when asked for.
    expect(config.otlp).toEqual({ activities: { enabled: false }, auditLogs: { enabled: false }, backfill: 0, maxQueueSize: 10_000, timeout: 10_000 });
    const target = config.targets[0]!;
    expect(target.maxResponseBytes).toBe(64 * 1024 * 1024);
    expect(target.maxListingItems).toBe(2_000_000);
    expect(target.tls.insecureSkipVerify).toBe(false);
    expect(target.maxConcurrency).toBe(4);
    expect(target.requestTimeout).toBe(30_000);
    expect(target.password.reveal()).toBe('p');
  });

  it('accepts the documented example (every key) with its secrets from the environment', async () => {
    const caFile = file('ca.pem', (await generateSelfSignedCert()).cert);
    const secret = file('secret', 'from-file\n');
    const text = readFileSync(join(__dirname, '../../config/example.yaml'), 'utf8')
      .replaceAll('/etc/dataprotect-exporter/ca.pem', caFile)
      .replaceAll('/run/secrets/replication-password', secret)
      .replaceAll('/run/secrets/storage-password', secret);
    const config = loadConfigFile(file('example.yaml', text), {
      env: { BACKUP_PROD_PASSWORD: 'from-env', HOSTNAME: 'x' },
      knownCollectors: KNOWN_COLLECTORS,
    });
    expect(config.targets.map((t) => t.kind)).toEqual(['management', 'replication', 'storage']);
    expect(config.targets[0]!.password.reveal()).toBe('from-env');
    expect(config.targets[1]!.password.reveal()).toBe('from-file');
    expect(config.targets[0]!.tls.ca).toContain('BEGIN CERTIFICATE');
    expect(config.collection.rpoByPolicy).toEqual({ Gold: 4 * 3_600_000, Silver: 12 * 3_600_000 });
    expect(config.collection.rpoGrace).toEqual({ kind: 'share', share: 0.25 });
  });

  it('reads rpoGrace as a share of the period or as a duration', () => {
    const grace = (rpoGrace: unknown) => parseConfig({ collection: { rpoGrace }, targets: [minimalTarget] }).collection.rpoGrace;
    expect(grace('40%')).toEqual({ kind: 'share', share: 0.4 });
    expect(grace('45m')).toEqual({ kind: 'fixed', ms: 45 * 60_000 });
    expect(grace(600)).toEqual({ kind: 'fixed', ms: 600_000 });
  });

  it('reads byte sizes as bytes or with a unit, and names the field of a bad one', () => {
    const config = parseConfig({
      collection: { maxBufferedResponseBytes: '128MiB' },
      targets: [{ ...minimalTarget, maxResponseBytes: '500KB' }, { ...minimalTarget, name: 'other', maxResponseBytes: 4096 }],
    });
    expect(config.collection.maxBufferedResponseBytes).toBe(128 * 1024 * 1024);
    expect(config.targets.map((target) => target.maxResponseBytes)).toEqual([500_000, 4096]);
    expect(problemsOf(() => parseConfig({ collection: { maxBufferedResponseBytes: 'lots' }, targets: [{ ...minimalTarget, maxResponseBytes: 0 }] }))).toEqual([
      'collection.maxBufferedResponseBytes: "lots" is not a size greater than zero (use e.g. 64MiB, 512KiB, 100MB)',
      'targets[0].maxResponseBytes: "0" is not a size greater than zero (use e.g. 64MiB, 512KiB, 100MB)',
    ]);
  });

  it('takes an OTLP backfill up to collection.window, and names the field of a longer one', () => {
    expect(parseConfig({ collection: { window: '48h' }, otlp: { backfill: '48h' }, targets: [minimalTarget] }).otlp.backfill).toBe(48 * 3_600_000);
    expect(problemsOf(() => parseConfig({ otlp: { backfill: '36h' }, targets: [minimalTarget] }))).toEqual([
      'otlp.backfill: 2160 minutes is longer than collection.window (1440 minutes): a first run reads back only as far as the window',
    ]);
  });

  it('refuses a maxResponseBytes above collection.maxBufferedResponseBytes, naming the target field (such a body is never read)', () => {
    const big = { ...minimalTarget, name: 'big', maxResponseBytes: '128MiB' };
    expect(parseConfig({ collection: { maxBufferedResponseBytes: '128MiB' }, targets: [big] }).targets[0]?.maxResponseBytes).toBe(128 * 1024 ** 2);
    expect(problemsOf(() => parseConfig({ targets: [minimalTarget, big] }))).toEqual([
      'targets[1].maxResponseBytes: 128 MiB is more than collection.maxBufferedResponseBytes (96 MiB): a body between the two could never be read; raise that one too',
    ]);
  });

  it('refuses a collection.heapLimit under 16MiB, naming the field', () => {
    expect(problemsOf(() => parseConfig({ collection: { heapLimit: '8MiB' }, targets: [minimalTarget] }))).toEqual([
      'collection.heapLimit: must be at least 16MiB: no thread runs under less',
    ]);
  });

  it('reads maxListingItems per target and names the field of a bad one', () => {
    const config = parseConfig({ targets: [{ ...minimalTarget, maxListingItems: 500_000 }] });
    expect(config.targets[0]!.maxListingItems).toBe(500_000);
    const problems = problemsOf(() => parseConfig({ targets: [{ ...minimalTarget, maxListingItems: 0 }, { ...minimalTarget, name: 'other', maxListingItems: 'many' }] }));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^targets\[0\]\.maxListingItems: /);
    expect(problems[1]).toMatch(/^targets\[1\]\.maxListingItems: /);
  });

  it('reports every mistake on its own line, naming the field path', () => {
    const path = file(
      'bad.yaml',
      `web:
  port: 70000
collection:
  defaultRpo: soon
  rpoGrace: a bit
  perAssetSeries: some
otlp:
  backfill: -1h
  maxQueueSize: 0
targets:
  - name: a
    kind: backup
    url: ftp://x
    username: u
    password: p
  - name: a
    kind: management
    url: https://x
    username: u
    collectors:
      assets: { schedule: "every minute" }
      nonsense: {}
  - name: c
    kind: storage
    url: https://y
    username: u
    password: \${NOT_SET_ANYWHERE}
`,
    );
    const problems = problemsOf(() => loadConfigFile(path, { env: {}, knownCollectors: { management: ['assets'], replication: [], storage: [] } }));
    const text = problems.join('\n');
    expect(text).toMatch(/^targets\[2\]\.password: environment variable NOT_SET_ANYWHERE is not set$/m);
    expect(text).toMatch(/^web\.port: /m);
    expect(text).toMatch(/^collection\.defaultRpo: "soon" is not a duration/m);
    expect(text).toMatch(/^collection\.rpoGrace: "a bit" is neither a share of the period \(e\.g\. 25%\) nor a duration/m);
    expect(text).toMatch(/^collection\.perAssetSeries: /m);
    expect(text).toMatch(/^otlp\.backfill: /m);
    expect(text).toMatch(/^otlp\.maxQueueSize: /m);
    expect(text).toMatch(/^targets\[0\]\.kind: /m);
    expect(text).toMatch(/^targets\[0\]\.url: must be an http/m);
    expect(text).toMatch(/^targets\[1\]\.password: set password/m);
    expect(text).toMatch(/^targets\[1\]\.collectors\.assets\.schedule: "every minute" is not a valid cron expression/m);
    expect(text).toMatch(/^targets\[1\]\.name: duplicate target name "a"/m);
    expect(problems.length).toBeGreaterThanOrEqual(11);
  });

  // The shipped ConfigMap takes sharding from the workload's environment: a pod (or a copy run elsewhere) without it
  // must read one message per field, the variable's name, not a second one calling the variable's name a bad number.
  it('reports an unset ${VAR} once per field, whatever the field takes', () => {
    const raw = {
      collection: { staleAfter: '${STALE_AFTER}' },
      sharding: { shards: '${DATAPROTECT_SHARDS}', index: '${DATAPROTECT_SHARD_INDEX}' },
      targets: [{ ...minimalTarget, maxResponseBytes: '${MAX_BYTES}' }],
    };
    expect(problemsOf(() => parseConfig(raw, { env: {} })).sort()).toEqual([
      'collection.staleAfter: environment variable STALE_AFTER is not set',
      'sharding.index: environment variable DATAPROTECT_SHARD_INDEX is not set',
      'sharding.shards: environment variable DATAPROTECT_SHARDS is not set',
      'targets[0].maxResponseBytes: environment variable MAX_BYTES is not set',
    ]);
  });

  it('rejects unknown keys and unknown collectors', () => {
    expect(problemsOf(() => parseConfig({ targets: [{ ...minimalTarget, pasword: 'x' }] })).join('\n')).toMatch(/targets\[0\]: Unrecognized key.*pasword/);
    expect(
      problemsOf(() =>
        parseConfig({ targets: [{ ...minimalTarget, collectors: { nope: {} } }] }, { knownCollectors: { management: ['assets'], replication: [], storage: [] } }),
      ),
    ).toEqual(['targets[0].collectors.nope: no such collector for kind management (known: assets)']);
  });

  it('takes apiSpelling on storage and replication targets only, naming the field otherwise', () => {
    const storage = { ...minimalTarget, name: 'dd', kind: 'storage' };
    const replication = { ...minimalTarget, name: 'rp', kind: 'replication', apiSpelling: 'product' };
    const config = parseConfig({ targets: [storage, replication, { ...storage, name: 'dd2', apiSpelling: 'seed' }] });
    expect(config.targets.map((t) => t.apiSpelling)).toEqual([undefined, 'product', 'seed']);
    expect(problemsOf(() => parseConfig({ targets: [{ ...storage, apiSpelling: 'vendor' }] })).join('\n')).toMatch(/^targets\[0\]\.apiSpelling: .*"seed".*"product".*"auto"/);
    expect(problemsOf(() => parseConfig({ targets: [{ ...minimalTarget, apiSpelling: 'auto' }] }))).toEqual([
      'targets[0].apiSpelling: only applies to targets of kind storage or replication',
    ]);
  });

  // HTTP Basic (RFC 7617) splits user:password at the first colon: the plugin would read another user and answer 401, which reads
  // as a wrong password. The token APIs send the user name in a JSON body, where a colon is only a character.
  it('refuses a replication user name with a colon, naming the field', () => {
    const replication = { ...minimalTarget, name: 'rp', kind: 'replication', username: 'corp:admin' };
    expect(problemsOf(() => parseConfig({ targets: [replication] }))).toEqual([
      'targets[0].username: HTTP Basic (the replication plugin) cannot send a user name with a colon',
    ]);
    expect(parseConfig({ targets: [{ ...minimalTarget, username: 'corp:admin' }] }).targets[0]!.username).toBe('corp:admin');
  });

  it('reads passwordFile and reports an unreadable one', () => {
    const config = parseConfig({ targets: [{ ...minimalTarget, password: undefined, passwordFile: file('pw', 's3cret\n') }] });
    expect(config.targets[0]!.password.reveal()).toBe('s3cret');
    expect(problemsOf(() => parseConfig({ targets: [{ ...minimalTarget, password: undefined, passwordFile: join(dir, 'missing') }] }))).toEqual([
      `targets[0].passwordFile: cannot read ${join(dir, 'missing')} (ENOENT)`,
    ]);
  });

  it('never prints a password, whatever prints the configuration', () => {
    const config = parseConfig({ targets: [{ ...minimalTarget, password: 'hunter2-secret' }] });
    expect(JSON.stringify(config)).not.toContain('hunter2-secret');
    expect(inspect(config, { depth: 10 })).not.toContain('hunter2-secret');
    expect(`${config.targets[0]!.password}`).toBe('[REDACTED]');
  });

  it('says what a value of the wrong type should be, for every field that takes a number or a string', () => {
    // An empty YAML key (null), a boolean or a fraction: each line says what the field takes, never a bare "Invalid input".
    const problems = problemsOf(() =>
      parseConfig({
        web: { basicAuthUsers: { scraper: 918273645 } },
        collection: { staleAfter: null, heapLimit: true, rpoGrace: null },
        sharding: { shards: '${SHARDS}', index: 0.5 },
        targets: [{ ...minimalTarget, requestTimeout: null }],
      }, { env: { SHARDS: 'three' } }),
    );
    expect(problems).toHaveLength(7);
    for (const problem of problems) expect(problem).not.toMatch(/Invalid input/);
    expect(problems).toContain('sharding.shards: "three" must be a whole number from 1');
    expect(problems.join('\n')).toMatch(/^collection\.staleAfter: null is not a duration/m);
    expect(problems.join('\n')).toMatch(/^collection\.heapLimit: true is not a size/m);
    expect(problems.join('\n')).toMatch(/^collection\.rpoGrace: null is neither a share/m);
    expect(problems.join('\n')).toMatch(/^targets\[0\]\.requestTimeout: null is not a duration/m);
    expect(problems.join('\n')).toMatch(/^sharding\.index: 0\.5 is neither a number from 0 nor a name ending in one/m);
    expect(problems.join('\n')).toMatch(/^web\.basicAuthUsers\.scraper: .*password.*passwordFile/m);
    expect(problems.join('\n')).not.toContain('918273645'); // a password YAML read as a number is never quoted
  });

  it('refuses a time limit longer than a timer can wait, naming the field (Node would fire it at once)', () => {
    const longest = parseConfig({ targets: [{ ...minimalTarget, requestTimeout: '24d' }] }).targets[0]!.requestTimeout;
    expect(longest).toBe(24 * 86_400_000);
    const problems = problemsOf(() =>
      parseConfig({
        otlp: { timeout: '30d' },
        targets: [{ ...minimalTarget, requestTimeout: '9999h', collectors: { assets: { timeout: '365d' } } }],
      }),
    );
    expect([...problems].sort()).toEqual([
      'otlp.timeout: must be at most 24d (2147483647 ms, the longest a timer waits)',
      'targets[0].collectors.assets.timeout: must be at most 24d (2147483647 ms, the longest a timer waits)',
      'targets[0].requestTimeout: must be at most 24d (2147483647 ms, the longest a timer waits)',
    ]);
  });

  it('refuses a tls.caFile that holds no PEM certificate (DER, a key, a truncated file), naming the field', async () => {
    const { cert, key } = await generateSelfSignedCert();
    const der = new X509Certificate(cert).raw;
    const target = (caFile: string) => ({ ...minimalTarget, tls: { caFile } });
    const good = parseConfig({ targets: [target(file('ca-good.pem', `# the company CA\n${cert}`))] });
    expect(good.targets[0]!.tls.ca).toContain('BEGIN CERTIFICATE');
    const files = [file('ca.der', ''), file('ca-key.pem', key), file('ca-cut.pem', cert.slice(0, 200))];
    writeFileSync(files[0]!, der);
    const problems = problemsOf(() => parseConfig({ targets: files.map((caFile, index) => ({ ...target(caFile), name: `t${index}` })) }));
    expect(problems).toEqual(files.map((caFile, index) => `targets[${index}].tls.caFile: ${caFile} holds no usable PEM certificate`));
  });

  it('refuses a listenAddress with a port, as Prometheus exporters write it, naming the field (it could not listen at start)', () => {
    const listen = (listenAddress: string) => parseConfig({ web: { listenAddress }, targets: [minimalTarget] }).web.listenAddress;
    for (const address of ['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost', 'exporter.example.com']) expect(listen(address)).toBe(address);
    for (const address of ['0.0.0.0:8497', ':8497', '[::1]:8497', 'not an address', '']) {
      expect(problemsOf(() => listen(address))).toEqual(['web.listenAddress: must be an IP address or a host name, without a port (the port is web.port)']);
    }
  });

  it('reports YAML syntax errors and unreadable files with the file name', () => {
    expect(problemsOf(() => loadConfigFile(file('syntax.yaml', 'targets: [\n  - {')))[0]).toMatch(/syntax\.yaml: YAML syntax error at line \d+/);
    expect(problemsOf(() => loadConfigFile(join(dir, 'nope.yaml')))).toEqual([`${join(dir, 'nope.yaml')}: cannot read the configuration file (ENOENT)`]);
  });
});
