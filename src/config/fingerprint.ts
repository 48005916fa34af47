/** Targets' configurations as comparable text. Light on purpose: the serving thread reckons reloads with it too. */
import type { ExporterConfig, TargetConfig } from './load';
import type { ConfigChange } from '../runtime';
import { ownedTargets } from '../scheduler/sharding';

/** A target's configuration as comparable text (the password included, so a rotated secret restarts the target). */
function fingerprintOf(target: TargetConfig): string {
  return JSON.stringify({ ...target, password: target.password.reveal() });
}

/** What `next` changes among this replica's targets: a change beyond its collectors' settings restarts a target, one within reschedules. */
export function configChange(previous: ExporterConfig, next: ExporterConfig): ConfigChange {
  const before = new Map(ownedTargets(previous).map((target) => [target.name, target]));
  const after = ownedTargets(next);
  const removed = [...before.keys()].filter((name) => !after.some((target) => target.name === name));
  const change: ConfigChange = { added: [], removed, restarted: [], rescheduled: [] };
  for (const target of after) {
    const old = before.get(target.name);
    if (!old) change.added.push(target.name);
    else if (fingerprintOf({ ...target, collectors: {} }) !== fingerprintOf({ ...old, collectors: {} })) change.restarted.push(target.name);
    else if (fingerprintOf(target) !== fingerprintOf(old)) change.rescheduled.push(target.name);
  }
  return change;
}
