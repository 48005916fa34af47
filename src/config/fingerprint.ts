/**
 * Targets' configurations as comparable text: a reload restarts a target
 * whose text changed, and a collection thread resumes a job's counters only
 * for a target whose source is the same. Light on purpose: the serving
 * thread reckons reloads with it too.
 */
import type { ExporterConfig, TargetConfig } from './load';
import type { ConfigChange } from '../runtime';
import { ownedTargets } from '../scheduler/sharding';

/** A target's configuration as comparable text (the password included, so a rotated secret restarts the target). */
function fingerprintOf(target: Omit<TargetConfig, 'collectors'>): string {
  return JSON.stringify({ ...target, password: target.password.reveal() });
}

/** The part of a target's configuration its client and its collectors' data depend on: all but the per-collector settings. */
function sourceFingerprintOf({ collectors: _collectors, ...source }: TargetConfig): string {
  return fingerprintOf(source);
}

/**
 * What applying `next` changes among the targets this replica collects under
 * `previous`: a target whose source (all but its collectors' settings) changed
 * is restarted, one whose collectors' settings alone changed is rescheduled.
 */
export function configChange(previous: ExporterConfig, next: ExporterConfig): ConfigChange {
  const before = new Map(ownedTargets(previous).map((target) => [target.name, target]));
  const after = ownedTargets(next);
  const removed = [...before.keys()].filter((name) => !after.some((target) => target.name === name));
  const change: ConfigChange = { added: [], removed, restarted: [], rescheduled: [] };
  for (const target of after) {
    const old = before.get(target.name);
    if (!old) change.added.push(target.name);
    else if (sourceFingerprintOf(target) !== sourceFingerprintOf(old)) change.restarted.push(target.name);
    else if (fingerprintOf(target) !== fingerprintOf(old)) change.rescheduled.push(target.name);
  }
  return change;
}
