import { fnv1a } from '../util/fnv1a';

/**
 * Which replica collects a target: FNV-1a hash of the target name modulo the
 * number of shards. Stable across restarts and independent of target order.
 */
export function shardOf(targetName: string, shards: number): number {
  return fnv1a(targetName) % shards;
}

/** The shard index from config: a number, or a name ending in an ordinal (a StatefulSet pod name such as exporter-2). */
export function resolveShardIndex(index: number | string): number {
  if (typeof index === 'number') return index;
  const match = /(\d+)$/.exec(index);
  if (!match) throw new Error(`sharding.index: "${index}" is neither a number nor a name ending in one`);
  return Number(match[1]);
}
