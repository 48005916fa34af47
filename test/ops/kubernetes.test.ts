/**
 * deploy/kubernetes: every manifest validates against the Kubernetes schemas
 * (kubernetes-models), the pieces fit together (names, ports, labels, mounts,
 * probes), the configuration in the ConfigMap is valid for the exporter, the
 * PrometheusRule carries exactly the groups of alerts/*.yml, and sharding
 * splits the targets between replicas.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { parseConfig, type ExporterConfig } from '../../src/config/load';
import { KNOWN_COLLECTORS } from '../../src/collectors/names';
import { defineCollector } from '../../src/collectors/types';
import { ExporterRuntime } from '../../src/runtime';
import { Exporter } from '../../src/exporter';
import { assignShards } from '../../src/scheduler/sharding';
import pino from 'pino';
import { DEFAULT_CONFIG_PATH } from '../../src/tracing';
import { PROMETHEUS_RULE_FILE, prometheusRuleYaml, ruleFiles, ruleGroups } from '../../deploy/scripts/prometheusrule';
import { silentLogger } from '../support/collect';

const DEPLOY = join(__dirname, '..', '..', 'deploy', 'kubernetes');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = Record<string, any>;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return name.endsWith('.yaml') || name.endsWith('.yml') ? [path] : [];
  });
}

function documents(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
    expect(document.errors).toEqual([]);
    return document.toJS() as Manifest;
  });
}

const files = yamlFiles(DEPLOY);
const kustomizations = files.filter((file) => /kustomization\.ya?ml$/.test(file));
const manifests = files.filter((file) => !kustomizations.includes(file)).flatMap((file) => documents(file).map((manifest) => ({ file, manifest })));
const only = (kind: string, inDir?: string): Manifest => {
  const found = manifests.filter(({ manifest, file }) => manifest.kind === kind && (inDir === undefined || dirname(file) === join(DEPLOY, inDir)));
  expect(found).toHaveLength(1);
  return found[0]!.manifest;
};

const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

describe('Kubernetes manifests', () => {
  it('validate against the Kubernetes schemas, and there is no kind nobody checks', () => {
    const models: Record<string, new (data: never) => { validate(): void }> = {
      'v1/ConfigMap': ConfigMap,
      'v1/Secret': Secret,
      'v1/Service': Service,
      'apps/v1/Deployment': Deployment,
      'apps/v1/StatefulSet': StatefulSet,
    };
    const checkedStructurally = ['monitoring.coreos.com/v1/ServiceMonitor', 'monitoring.coreos.com/v1/PrometheusRule'];
    for (const { file, manifest } of manifests) {
      const key = `${manifest.apiVersion}/${manifest.kind}`;
      const Model = models[key];
      if (!Model) {
        expect([relative(DEPLOY, file), checkedStructurally.includes(key)]).toEqual([relative(DEPLOY, file), true]);
        continue;
      }
      expect(() => new Model(manifest as never).validate()).not.toThrow();
      expect(manifest.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    }
    expect(manifests.map(({ manifest }) => manifest.kind).sort()).toEqual(
      ['ConfigMap', 'Deployment', 'PrometheusRule', 'Secret', 'Service', 'Service', 'ServiceMonitor', 'StatefulSet'],
    );
    // The checker itself rejects a broken manifest.
    const broken = structuredClone(only('Deployment'));
    delete broken.spec.template.spec.containers[0].name;
    expect(() => new Deployment(broken as never).validate()).toThrow(/name/);
  });

  it('kustomizations list existing resources; every manifest but the Secret example is applied by one', () => {
    const applied = new Set<string>();
    for (const file of kustomizations) {
      const [kustomization] = documents(file);
      expect(kustomization).toMatchObject({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' });
      for (const resource of kustomization!.resources as string[]) {
        const path = join(dirname(file), resource);
        expect([resource, existsSync(path)]).toEqual([resource, true]);
        if (statSync(path).isDirectory()) expect(existsSync(join(path, 'kustomization.yaml'))).toBe(true);
        else applied.add(path);
      }
    }
    const unapplied = files.filter((file) => !kustomizations.includes(file) && !applied.has(file)).map((file) => relative(DEPLOY, file));
    expect(unapplied).toEqual(['secret.example.yaml']);
    // Both top-level layouts set the image the workloads use.
    for (const layout of ['kustomization.yaml', 'sharded/kustomization.yaml']) {
      const [kustomization] = documents(join(DEPLOY, layout));
      expect(kustomization!.images).toEqual([expect.objectContaining({ name: 'dataprotect-exporter', newName: expect.any(String), newTag: expect.any(String) })]);
    }
  });

  describe.each([
    ['Deployment', '.'],
    ['StatefulSet', 'sharded'],
  ])('%s', (kind, dir) => {
    const workload = only(kind, dir);
    const pod = workload.spec.template.spec;
    const [container] = pod.containers;
    const env = (name: string): Manifest | undefined => container.env.find((entry: Manifest) => entry.name === name);

    it('runs the exporter with the mounted configuration, non-root on a read-only root file system', () => {
      expect(workload.spec.selector.matchLabels).toEqual(workload.spec.template.metadata.labels);
      expect(container.image).toBe('dataprotect-exporter'); // set by the kustomizations' images:
      expect(container.args).toEqual(['--config', DEFAULT_CONFIG_PATH]);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const resource of ['cpu', 'memory']) {
        expect(container.resources.requests[resource]).toBeDefined();
        expect(container.resources.limits[resource]).toBeDefined();
      }
      // A ConfigMap mounted with subPath never sees updates: the directory is mounted.
      const configMount = container.volumeMounts.find((mount: Manifest) => mount.mountPath === dirname(DEFAULT_CONFIG_PATH));
      expect(configMount).toBeDefined();
      expect(configMount.subPath).toBeUndefined();
      const configVolume = pod.volumes.find((volume: Manifest) => volume.name === configMount.name);
      expect(configVolume.configMap.name).toBe(only('ConfigMap').metadata.name);
      const secretVolume = pod.volumes.find((volume: Manifest) => volume.secret);
      expect(secretVolume.secret.secretName).toBe(only('Secret').metadata.name);
      const secretMount = container.volumeMounts.find((mount: Manifest) => mount.name === secretVolume.name);
      expect(secretMount.mountPath).toBe('/run/secrets/dataprotect');
    });

    it('probes /healthz for liveness and /readyz for readiness on the exporter port', () => {
      const [port] = container.ports;
      expect(port).toMatchObject({ name: 'http', containerPort: 8497 });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    });

    it('tells the exporter its shard: as many shards as replicas, the index from the pod', () => {
      expect(env('DATAPROTECT_SHARDS')?.value).toBe(String(workload.spec.replicas));
      if (kind === 'StatefulSet') {
        expect(env('DATAPROTECT_SHARD_INDEX')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
        expect(workload.spec.replicas).toBeGreaterThan(1);
        expect(workload.spec.serviceName).toBe(only('Service', 'sharded').metadata.name);
      } else {
        expect(workload.spec.replicas).toBe(1);
        expect(env('DATAPROTECT_SHARD_INDEX')?.value).toBe('0');
      }
    });
  });

  it('the ConfigMap holds a valid configuration whose password files are keys of the Secret', () => {
    const text = only('ConfigMap').data['config.yaml'] as string;
    const secretKeys = Object.keys(only('Secret').stringData);
    const passwordFiles = [...text.matchAll(/passwordFile: (\/run\/secrets\/dataprotect\/([\w-]+))/g)].map((match) => match[2]);
    expect(passwordFiles.length).toBeGreaterThan(0);
    for (const key of passwordFiles) expect(secretKeys).toContain(key);
    const secrets = mkdtempSync(join(tmpdir(), 'k8s-secrets-'));
    try {
      for (const key of secretKeys) writeFileSync(join(secrets, key), 'x\n');
      const raw = parseAllDocuments(text.replaceAll('/run/secrets/dataprotect', secrets))[0]!.toJS();
      const load = (shards: string, index: string): ExporterConfig =>
        parseConfig(raw, { env: { DATAPROTECT_SHARDS: shards, DATAPROTECT_SHARD_INDEX: index }, knownCollectors: KNOWN_COLLECTORS });
      const single = load('1', '0');
      expect(single.web.port).toBe(only('Deployment').spec.template.spec.containers[0].ports[0].containerPort);
      expect(single.sharding).toEqual({ shards: 1, index: '0' });
      expect(load('3', 'dataprotect-exporter-2').sharding).toEqual({ shards: 3, index: 'dataprotect-exporter-2' });
      expect(() => load('3', 'dataprotect-exporter-3')).toThrow(/sharding\.index: shard 3 does not exist with shards: 3/);
    } finally {
      rmSync(secrets, { recursive: true, force: true });
    }
  });

  // cloud-dr-sessions needs the Administrator or Restore Administrator role (docs/configuration.md); the example's
  // monitoring account has neither, so a collector the example switches off would only fail with 403 in the cluster.
  it('the ConfigMap switches off, per kind of target, every collector config/example.yaml switches off', () => {
    type RawTarget = { kind: string; collectors?: Record<string, { enabled?: boolean }> };
    const disabledByKind = (text: string): Record<string, string[]> => {
      const { targets } = parseAllDocuments(text)[0]!.toJS() as { targets: RawTarget[] };
      const byKind: Record<string, string[]> = {};
      for (const target of targets) {
        const off = Object.entries(target.collectors ?? {}).filter(([, settings]) => settings.enabled === false).map(([name]) => name);
        byKind[target.kind] = [...new Set([...(byKind[target.kind] ?? []), ...off])].sort();
      }
      return byKind;
    };
    const example = disabledByKind(readFileSync(join(__dirname, '..', '..', 'config', 'example.yaml'), 'utf8'));
    expect(example.management).toContain('cloud-dr-sessions');
    expect(disabledByKind(only('ConfigMap').data['config.yaml'] as string)).toEqual(example);
  });

  it('the Deployment never runs two pods at once: Recreate, one replica', () => {
    expect(only('Deployment').spec.strategy).toEqual({ type: 'Recreate' });
    expect(only('Deployment').spec.replicas).toBe(1);
  });

  it("the StatefulSet's serviceName is a headless Service of its pods that the ServiceMonitor does not scrape", () => {
    const statefulSet = only('StatefulSet');
    const governing = manifests.filter(({ manifest }) => manifest.kind === 'Service' && manifest.metadata.name === statefulSet.spec.serviceName);
    expect(governing).toHaveLength(1);
    const headless = governing[0]!.manifest;
    expect(headless.spec.clusterIP).toBe('None');
    for (const [key, value] of Object.entries(headless.spec.selector)) expect(statefulSet.spec.template.metadata.labels[key]).toBe(value);
    const [sharded] = documents(join(DEPLOY, 'sharded', 'kustomization.yaml'));
    expect(sharded!.resources).toContain(relative(join(DEPLOY, 'sharded'), governing[0]!.file));
    const monitored = Object.entries(only('ServiceMonitor').spec.selector.matchLabels).every(([key, value]) => headless.metadata.labels?.[key] === value);
    expect(monitored).toBe(false); // the pods are scraped once, through the ClusterIP Service
  });

  it('the Service selects the pods and the ServiceMonitor scrapes /metrics through it', () => {
    const service = only('Service', 'base');
    const monitor = only('ServiceMonitor');
    const podLabels = only('Deployment').spec.template.metadata.labels;
    expect(only('StatefulSet').spec.template.metadata.labels).toEqual(podLabels);
    for (const [key, value] of Object.entries(service.spec.selector)) expect(podLabels[key]).toBe(value);
    expect(service.spec.ports).toEqual([expect.objectContaining({ name: 'http', port: 8497, targetPort: 'http' })]);

    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(monitor.metadata.name).toBe('dataprotect-exporter');
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels)) expect(service.metadata.labels[key]).toBe(value);
    expect(monitor.spec.endpoints).toHaveLength(1);
    const [endpoint] = monitor.spec.endpoints;
    expect(endpoint.port).toBe(service.spec.ports[0].name);
    expect(endpoint.path).toBe('/metrics');
    expect(endpoint.interval).toMatch(DURATION);
    expect(endpoint.scrapeTimeout).toMatch(DURATION);
    expect(Object.keys(endpoint).sort()).toEqual(['interval', 'path', 'port', 'scrapeTimeout']);
  });
});

describe('PrometheusRule', () => {
  const rule = only('PrometheusRule');

  it('is a well-formed PrometheusRule', () => {
    expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule.metadata.name).toBe('dataprotect-exporter');
    expect(Object.keys(rule.spec)).toEqual(['groups']);
    const names = rule.spec.groups.map((group: Manifest) => group.name);
    expect(new Set(names).size).toBe(names.length);
    for (const group of rule.spec.groups) {
      expect(typeof group.name).toBe('string');
      expect(group.rules.length).toBeGreaterThan(0);
      if (group.interval !== undefined) expect(group.interval).toMatch(DURATION);
      for (const entry of group.rules) {
        expect(typeof entry.expr).toBe('string');
        expect([typeof entry.record, typeof entry.alert].filter((type) => type === 'string')).toHaveLength(1);
        if (entry.for !== undefined) expect(entry.for).toMatch(DURATION);
        for (const map of [entry.labels, entry.annotations]) {
          if (map !== undefined) for (const value of Object.values(map)) expect(typeof value).toBe('string');
        }
      }
    }
  });

  it('carries exactly the rule groups of alerts/*.yml and is up to date with them', () => {
    expect(ruleFiles().map((file) => relative(join(DEPLOY, '..', '..'), file))).toContain('alerts/dataprotect.rules.yml');
    expect(rule.spec.groups).toEqual(ruleGroups());
    const rules = (groups: Manifest[]) => groups.flatMap((group) => group.rules.map((entry: Manifest) => entry.alert ?? entry.record));
    expect(rules(rule.spec.groups)).toEqual(rules(ruleGroups()));
    // Byte for byte what the generator writes: run `npx tsx deploy/scripts/prometheusrule.ts` after editing alerts/.
    expect(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')).toBe(prometheusRuleYaml());
  });
});

describe('sharding', () => {
  const collected: string[] = [];
  const recorder = defineCollector<'management', undefined>({
    name: 'recorder',
    kind: 'management',
    description: 'records which targets it runs for',
    defaultSchedule: '0 0 1 1 *',
    metrics: ['dataprotect_asset_size_bytes'],
    collect: async (ctx) => {
      collected.push(ctx.target.name);
      return { samples: [] };
    },
  });
  const names = ['backup-prod', 'backup-dr', 'replication-a', 'replication-b', 'dd-center', 'dd-branch'];

  async function shard(index: number | string, shards = 2): Promise<string[]> {
    collected.length = 0;
    const runtime = new ExporterRuntime(
      parseConfig({
        sharding: { shards, index },
        targets: names.map((name) => ({ name, kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' })),
      }),
      { logger: silentLogger, collectorsFor: () => [recorder] },
    );
    try {
      await runtime.runOnce();
      expect(runtime.store.all().map((record) => record.target).sort()).toEqual([...collected].sort());
      return [...collected].sort();
    } finally {
      await runtime.stop();
    }
  }

  it('two replicas collect disjoint sets of targets that together are all of them', async () => {
    const first = await shard(0);
    const second = await shard(1);
    expect(first.length).toBeGreaterThan(0);
    expect(second.length).toBeGreaterThan(0);
    expect(first.filter((name) => second.includes(name))).toEqual([]);
    expect([...first, ...second].sort()).toEqual([...names].sort());
    // The pod name of a StatefulSet gives the same split as the number.
    expect(await shard('dataprotect-exporter-1')).toEqual(second);
    // One shard: everything.
    expect(await shard(0, 1)).toEqual([...names].sort());
  });

  it('three replicas also partition the targets, two each', async () => {
    const parts = [await shard(0, 3), await shard(1, 3), await shard(2, 3)];
    expect(parts.flat().sort()).toEqual([...names].sort());
    expect(new Set(parts.flat()).size).toBe(names.length);
    expect(parts.map((part) => part.length)).toEqual([2, 2, 2]);
  });

  it('spreads any number of targets evenly: no replica idles while another has two', () => {
    const pool = Array.from({ length: 12 }, (_, i) => `target-${String.fromCharCode(97 + i)}`);
    for (let shards = 2; shards <= 5; shards++) {
      for (let count = 1; count <= pool.length; count++) {
        const targets = pool.slice(0, count);
        const owners = assignShards(targets, shards);
        const loads = Array.from({ length: shards }, (_, shard) => targets.filter((name) => owners.get(name) === shard).length);
        expect({ shards, count, spread: Math.max(...loads) - Math.min(...loads) <= 1 }).toEqual({ shards, count, spread: true });
        // the same on every replica, whatever the order of the file
        expect(assignShards([...targets].reverse(), shards)).toEqual(owners);
      }
    }
    // Adding a target moves few others: the preferences of the rest stay.
    const before = assignShards(pool.slice(0, 11), 3);
    const after = assignShards(pool, 3);
    const moved = pool.slice(0, 11).filter((name) => before.get(name) !== after.get(name));
    expect(moved.length).toBeLessThanOrEqual(3);
  });

  it("logs the targets it owns at start, and /probe for another replica's target names that replica", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const config = parseConfig({
      web: { listenAddress: '127.0.0.1', port: 0 },
      sharding: { shards: 2, index: 'dataprotect-exporter-0' },
      targets: names.map((name) => ({ name, kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' })),
    });
    const exporter = new Exporter(config, logger, { collectorsFor: () => [recorder], processMetrics: false });
    await exporter.start();
    try {
      const owners = assignShards(names, 2);
      const mine = names.filter((name) => owners.get(name) === 0).sort();
      const theirs = names.find((name) => owners.get(name) === 1)!;
      const owned = lines.find((line) => line.msg === 'targets this replica collects');
      expect(owned).toMatchObject({ shard: 0, shards: 2 });
      expect([...(owned!.targets as string[])].sort()).toEqual(mine);
      const probe = await fetch(`${exporter.address()}/probe?target=${theirs}`);
      expect(probe.status).toBe(400);
      expect(await probe.text()).toBe(`target "${theirs}" is collected by shard 1, not by this replica (shard 0): probe that replica\n`);
      expect(await (await fetch(`${exporter.address()}/probe?target=nope`)).text()).toBe('unknown target "nope"\n');
    } finally {
      await exporter.stop();
    }
  });
});
