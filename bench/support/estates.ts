/**
 * The benchmark's estates, by asset count. Every size has the proportions of
 * the 10,000-asset estate the budgets were first set on, so that the figures
 * of two sizes differ by the size alone:
 *
 *   per asset: 20 copies, 10 activities a day, 100 audit entries, 0.5 replicated VMs;
 *   per 10,000 assets: 8 storage systems (at least one).
 *
 * The simulator holds such an estate in about 17 MB of heap per 1,000 assets
 * (measured at 1,000 and 2,000), under 1 GB at 50,000: the 50,000-asset
 * estate keeps the proportions.
 */
import type { EstateSize } from '../../simulator/types';

export const ESTATE_RATIOS = {
  copiesPerAsset: 20,
  activitiesPerDayPerAsset: 10,
  auditEntriesPerAsset: 100,
  replicatedVmsPerAsset: 0.5,
  storageSystemsPer10kAssets: 8,
} as const;

/** The estate of `assets` assets with the proportions above. */
export function estateOf(assets: number): Partial<EstateSize> {
  return {
    assets,
    copiesPerAsset: ESTATE_RATIOS.copiesPerAsset,
    activitiesPerDay: assets * ESTATE_RATIOS.activitiesPerDayPerAsset,
    auditEntries: assets * ESTATE_RATIOS.auditEntriesPerAsset,
    replicatedVms: Math.round(assets * ESTATE_RATIOS.replicatedVmsPerAsset),
    storageSystems: Math.max(1, Math.round((assets / 10_000) * ESTATE_RATIOS.storageSystemsPer10kAssets)),
  };
}

export const ESTATES: Record<string, Partial<EstateSize>> = {
  '1k': estateOf(1_000),
  '10k': estateOf(10_000),
  '25k': estateOf(25_000),
  '50k': estateOf(50_000),
};

/** collection.heapLimit per estate, as docs/sizing.md gives it (`--heap-limit sizing`). */
export const SIZING_HEAP_LIMITS: Record<string, string> = { '1k': '128MiB', '10k': '256MiB', '25k': '640MiB', '50k': '448MiB' };

/** The container's memory limit per estate, as docs/sizing.md gives it (`--memory-limit sizing`). */
export const SIZING_MEMORY_LIMITS: Record<string, string> = { '1k': '384MiB', '10k': '512MiB', '25k': '768MiB', '50k': '1GiB' };

/** The bench's settings for one estate, with `sizing` replaced by the sizing guide's value for that estate. */
export function sizedFor<T extends { heapLimit?: string | undefined; memoryLimit?: string | undefined }>(estate: string, options: T): T {
  const sized = (value: string | undefined, guide: Record<string, string>) => (value === 'sizing' ? guide[estate] : value);
  return { ...options, heapLimit: sized(options.heapLimit, SIZING_HEAP_LIMITS), memoryLimit: sized(options.memoryLimit, SIZING_MEMORY_LIMITS) };
}

/** Older names, still used in docs: S and L. */
const ALIASES: Record<string, string> = { S: '1k', L: '10k' };

/** The estate's canonical name (aliases resolved); throws on an unknown name. */
export function estateName(name: string): string {
  const canonical = ALIASES[name] ?? name;
  if (!ESTATES[canonical]) throw new Error(`unknown estate ${name} (one of ${[...Object.keys(ESTATES), ...Object.keys(ALIASES)].join(', ')})`);
  return canonical;
}

/** One line that states the proportions, for the output. */
export function describeRatios(): string {
  const r = ESTATE_RATIOS;
  return `per asset: ${r.copiesPerAsset} copies, ${r.activitiesPerDayPerAsset} activities/day, ${r.auditEntriesPerAsset} audit entries, ${r.replicatedVmsPerAsset} replicated VMs; ${r.storageSystemsPer10kAssets} storage systems per 10,000 assets`;
}
