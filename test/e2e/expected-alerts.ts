/**
 * Which DataProtect alerts should be active, computed from the simulator's
 * truth and the tunables of alerts/thresholds.yaml, independently of the
 * exporter and of the rule expressions. Alerts are compared as keys: the alert
 * name with the labels that tell its instances apart, e.g.
 * `DataProtectReplicationVMPaused{target="replication",vm_id="vm-1"}`.
 *
 * A value within a small margin of its threshold (an asset whose age is about
 * its RPO, ...) may be seen on either side by the exporter, which read it a
 * moment earlier: its key is "uncertain" and left out of the comparison.
 */
import type { ExporterConfig } from '../../src/config/load';
import type { RunningSimulator } from '../../simulator';
import type { Thresholds } from '../../scripts/build-rules';
import { durationSeconds } from '../../scripts/build-rules';
import type { ActiveAlert } from './prometheus-harness';
import { PRODUCT_TARGETS, TARGETS } from './stack';

/** The labels that identify one instance of each alert (besides its name). */
export const IDENTIFYING_LABELS: Readonly<Record<string, readonly string[]>> = {
  DataProtectAssetWithoutCopy: ['target', 'asset_id'],
  DataProtectAssetOutOfRPO: ['target', 'asset_id'],
  DataProtectPolicyAllAssetsOutOfRPO: ['target', 'policy'],
  DataProtectPolicySLAAttainmentLow: ['target', 'policy'],
  DataProtectActivitiesFailing: ['target', 'category'],
  DataProtectReplicationVMPaused: ['target', 'vm_id'],
  DataProtectReplicationClusterDisconnected: ['target', 'rep_cluster'],
  DataProtectStorageAlmostFull: ['target', 'system_id', 'tier', 'severity'],
  DataProtectStorageFillingUp: ['target', 'system_id', 'tier'],
  DataProtectStorageReplicationLagging: ['target', 'system_id', 'context'],
  DataProtectTargetDown: ['target'],
  DataProtectCollectorFailing: ['target', 'collector'],
  DataProtectCollectorDataStale: ['target', 'collector'],
  DataProtectExporterDown: ['instance'],
  DataProtectExporterAbsent: [],
  DataProtectConfigReloadFailed: ['instance'],
  DataProtectCollectionRestarting: ['instance'],
};

/**
 * Alerts the truth cannot decide: the share of FAILED activities is what
 * Prometheus saw the exporter's counters do during the test (increase over a
 * window shorter than the simulator's history), not a figure of the estate.
 */
export const NOT_PREDICTED = new Set(['DataProtectActivitiesFailing']);

/** Margins around thresholds within which the exporter may have seen either side. */
const AGE_MARGIN_MS = 2 * 60_000;
const LAG_MARGIN_SECONDS = 60;
const RATIO_MARGIN = 0.0005;

export function alertKey(alertname: string, labels: Readonly<Record<string, string>>): string {
  const names = IDENTIFYING_LABELS[alertname] ?? Object.keys(labels).filter((name) => name !== 'alertname').sort();
  return `${alertname}{${names.map((name) => `${name}=${JSON.stringify(labels[name] ?? '')}`).join(',')}}`;
}

/** The keys of the active (pending or firing) alerts that the truth predicts. */
export function activeKeys(alerts: readonly ActiveAlert[]): string[] {
  return alerts
    .filter((alert) => !NOT_PREDICTED.has(alert.labels.alertname ?? ''))
    .map((alert) => alertKey(alert.labels.alertname ?? '', alert.labels))
    .sort();
}

export interface ExpectedAlerts {
  /** keys that must be active, sorted */
  readonly active: string[];
  /** keys too close to a threshold to tell */
  readonly uncertain: ReadonlySet<string>;
}

class Expectation {
  readonly active = new Set<string>();
  readonly uncertain = new Set<string>();

  /** `excess` > 0: above the threshold; within `margin` of 0: uncertain. */
  judge(key: string, excess: number, margin: number): void {
    if (Math.abs(excess) < margin) this.uncertain.add(key);
    else if (excess > 0) this.active.add(key);
  }
}

/** The newest copy time of an asset as the exporter derives it: lastAvailableCopyTime or latest-copies, whichever is newer. */
function newestCopyMs(sim: RunningSimulator, assetId: string, lastAvailableCopyTime: string | null): number | null {
  const times = [lastAvailableCopyTime, sim.estate.management.latestCopy(assetId)?.createTime]
    .filter((time): time is string => typeof time === 'string')
    .map((time) => Date.parse(time));
  return times.length > 0 ? Math.max(...times) : null;
}

function expectAssets(sim: RunningSimulator, collection: ExporterConfig['collection'], thresholds: Thresholds, nowMs: number, into: Expectation): void {
  const target = TARGETS.management;
  const policies = new Map<string, { assets: number; outOrWithout: number; uncertain: boolean }>();
  for (const asset of sim.estate.management.assets()) {
    if (asset.deleted || asset.protectionStatus !== 'PROTECTED') continue;
    const policy = asset._embedded.protectionPolicy?.name ?? '';
    const tally = policies.get(policy) ?? { assets: 0, outOrWithout: 0, uncertain: false };
    policies.set(policy, tally);
    tally.assets += 1;
    const newest = newestCopyMs(sim, asset.id, asset.lastAvailableCopyTime);
    if (newest === null) {
      into.active.add(alertKey('DataProtectAssetWithoutCopy', { target, asset_id: asset.id }));
      tally.outOrWithout += 1;
      continue;
    }
    // the RPO the policy's schedule implies, under the configured overrides and default
    const rpoMs = sim.estate.management.assetRpoMs(asset.id, { rpoByPolicy: collection.rpoByPolicy, defaultRpoMs: collection.defaultRpo }) ?? collection.defaultRpo;
    const excess = nowMs - newest - rpoMs;
    into.judge(alertKey('DataProtectAssetOutOfRPO', { target, asset_id: asset.id }), excess, AGE_MARGIN_MS);
    if (excess > 0) tally.outOrWithout += 1;
    if (Math.abs(excess) < AGE_MARGIN_MS) tally.uncertain = true;
  }
  for (const [policy, tally] of policies) {
    if (tally.assets < thresholds.policies.allOutOfRpoMinAssets) continue;
    const key = alertKey('DataProtectPolicyAllAssetsOutOfRPO', { target, policy });
    if (tally.uncertain) into.uncertain.add(key);
    else if (tally.outOrWithout === tally.assets) into.active.add(key);
  }
}

function expectReplication(sim: RunningSimulator, target: string, into: Expectation): void {
  for (const vm of sim.estate.replication.vms) {
    if (vm.status === 'PAUSED') into.active.add(alertKey('DataProtectReplicationVMPaused', { target, vm_id: vm.id }));
  }
  for (const cluster of sim.estate.replication.clusters) {
    if (!(cluster.isRegistered && cluster.connectionStatus === 'OK')) {
      into.active.add(alertKey('DataProtectReplicationClusterDisconnected', { target, rep_cluster: cluster.name }));
    }
  }
}

function expectStorage(sim: RunningSimulator, target: string, thresholds: Thresholds, nowMs: number, into: Expectation): void {
  const storage = sim.estate.storage;
  const lagThreshold = durationSeconds(thresholds.storage.replicationLag);
  for (const system of storage.systems) {
    for (const tier of ['active', 'cloud'] as const) {
      const { total, used } = storage.newestCapacity(system.id, tier).physical_capacity;
      if (!(total > 0)) continue; // no such tier: the rule divides by capacity > 0 only
      for (const [severity, limit] of [
        ['warning', thresholds.storage.usedWarningRatio],
        ['critical', thresholds.storage.usedCriticalRatio],
      ] as const) {
        into.judge(alertKey('DataProtectStorageAlmostFull', { target, system_id: system.id, tier, severity }), used / total - limit, RATIO_MARGIN);
      }
    }
    for (const context of storage.contexts(system.id)) {
      if (!(context.syncEpoch > 0)) continue; // never synchronised: no lag series
      // The exporter measures the lag with its own clock (the real one), and never below 0.
      const lag = Math.max(0, nowMs / 1000 - context.syncEpoch);
      into.judge(
        alertKey('DataProtectStorageReplicationLagging', { target, system_id: system.id, context: String(context.id) }),
        lag - lagThreshold,
        LAG_MARGIN_SECONDS,
      );
    }
  }
}

/**
 * The alerts the estate calls for now. The exporter's own alerts (target down,
 * collector failing or stale, exporter down or absent), StorageFillingUp
 * (which needs hours of history) and PolicySLAAttainmentLow (a day) are never expected here: a healthy simulator
 * read every 2 s must not raise them. With `productSim`, its replication and
 * storage alerts under PRODUCT_TARGETS are expected too.
 */
export function expectedAlerts(
  sims: { sim: RunningSimulator; productSim?: RunningSimulator | undefined },
  collection: ExporterConfig['collection'],
  thresholds: Thresholds,
  nowMs = Date.now(),
): ExpectedAlerts {
  const expectation = new Expectation();
  expectAssets(sims.sim, collection, thresholds, nowMs, expectation);
  expectReplication(sims.sim, TARGETS.replication, expectation);
  expectStorage(sims.sim, TARGETS.storage, thresholds, nowMs, expectation);
  if (sims.productSim) {
    expectReplication(sims.productSim, PRODUCT_TARGETS.replication, expectation);
    expectStorage(sims.productSim, PRODUCT_TARGETS.storage, thresholds, nowMs, expectation);
  }
  return { active: [...expectation.active].sort(), uncertain: expectation.uncertain };
}

/** The keys of `alerts` that can be compared with `expected` (uncertain ones dropped). */
export function comparableKeys(alerts: readonly ActiveAlert[], expected: ExpectedAlerts): string[] {
  return activeKeys(alerts).filter((key) => !expected.uncertain.has(key));
}
