/**
 * Targets' configurations as comparable text: a reload restarts a target
 * whose text changed, and a collection thread resumes a job's counters only
 * for a target whose source is the same.
 */
import type { TargetConfig } from './load';

/** A target's configuration as comparable text (the password included, so a rotated secret restarts the target). */
export function fingerprintOf(target: TargetConfig): string {
  return JSON.stringify({ ...target, password: target.password.reveal() });
}

/** The part of a target's configuration its client and its collectors' data depend on: all but the per-collector settings. */
export function sourceFingerprintOf(target: TargetConfig): string {
  const { collectors: _collectors, ...source } = target;
  return fingerprintOf(source as TargetConfig);
}
