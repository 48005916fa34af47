import { fnv1a } from '../util/fnv1a';
import type { ExporterConfig } from '../config/load';
import { shardIndexOf } from '../config/schema';

/** This replica's shard and, for every configured target, the shard that collects it. */
export function shardAssignment(config: ExporterConfig): { shard: number; shards: number; owners: Map<string, number> } {
  const { shards } = config.sharding;
  // The schema accepts only an index that names one of the shards.
  const shard = shardIndexOf(config.sharding.index) as number;
  return { shard, shards, owners: assignShards(config.targets.map((target) => target.name), shards) };
}

export function ownedTargets(config: ExporterConfig): ExporterConfig['targets'] {
  const { shard, owners } = shardAssignment(config);
  return config.targets.filter((target) => owners.get(target.name) === shard);
}

export const ownedTargetNames = (config: ExporterConfig): string[] => ownedTargets(config).map((target) => target.name);

/**
 * Which replica collects each target: rendezvous hashing with balanced loads. Each target, in name order, goes to the replica ranked
 * best by FNV-1a of (target, replica) that still has room (floor(n/shards), one more for the first n mod shards to fill up). So loads
 * differ by one at most, all replicas agree whatever the file's order, and a target added or removed moves few others.
 */
export function assignShards(targetNames: readonly string[], shards: number): Map<string, number> {
  const names = [...new Set(targetNames)].sort();
  const base = Math.floor(names.length / shards);
  let extraSlots = names.length % shards;
  const loads = new Array<number>(shards).fill(0);
  const owner = new Map<string, number>();
  for (const name of names) {
    const ranked = Array.from({ length: shards }, (_, shard) => ({ shard, weight: fnv1a(`${name}\u0000${shard}`) }));
    ranked.sort((a, b) => b.weight - a.weight || a.shard - b.shard);
    const chosen = ranked.find(({ shard }) => (loads[shard] as number) < base || ((loads[shard] as number) === base && extraSlots > 0));
    // There is always room: the slots add up to the number of targets.
    const shard = chosen!.shard;
    if (loads[shard] === base) extraSlots -= 1;
    loads[shard] = (loads[shard] as number) + 1;
    owner.set(name, shard);
  }
  return owner;
}
