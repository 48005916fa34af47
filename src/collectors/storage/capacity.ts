import type { CapacityTier, TierCapacity } from '../../clients/storage/client';
import { defineCollector, type Labels, type Sample } from '../types';
import { collectPerSystem, type PerSystemState } from './per-system';

/** `total` is left out: it is the sum of these, and a sample of it would double every sum over tiers. */
const COLLECTED_TIERS: readonly CapacityTier[] = ['active', 'cloud'];

/**
 * The newest capacity sample of each tier (top level, or its `tier_capacity_usage[]` entry on real products). A tier the system lacks
 * (no sample, or physical capacity 0, as a cloud tier without cloud storage) gets no series: zeros would mean "full" and a factor of 0.
 */
export const capacityCollector = defineCollector<'storage', PerSystemState>({
  name: 'capacity',
  kind: 'storage',
  description: 'Physical and logical capacity and compression per system and tier, from the newest capacity sample.',
  defaultSchedule: '*/5 * * * *',
  metrics: [
    'dataprotect_storage_system_collector_success',
    'dataprotect_storage_physical_capacity_bytes',
    'dataprotect_storage_physical_used_bytes',
    'dataprotect_storage_physical_available_bytes',
    'dataprotect_storage_logical_used_bytes',
    'dataprotect_storage_compression_factor',
  ],
  collect(ctx, signal) {
    return collectPerSystem('capacity', ctx, signal, async (system, systemSignal) => {
      const samples: Sample[] = [];
      for (const tier of COLLECTED_TIERS) {
        const latest = await ctx.client.latestCapacity(system, tier, systemSignal);
        if (latest && hasTier(latest)) samples.push(...capacitySamples({ target: ctx.target.name, system_id: system.id, tier }, latest));
      }
      return samples;
    });
  },
});

/** A physical capacity above 0, or, where the sample gives no physical_capacity (the model leaves it optional), logical data stored. */
function hasTier(sample: TierCapacity): boolean {
  if (sample.physical_capacity) return sample.physical_capacity.total > 0;
  return (sample.logical_capacity?.used ?? 0) > 0;
}

/** The tier's series; the physical ones only when the sample gives physical_capacity. */
function capacitySamples(labels: Labels, sample: TierCapacity): Sample[] {
  const { physical_capacity: physical, logical_capacity: logical } = sample;
  const samples: Sample[] = [];
  if (physical) {
    samples.push(
      { name: 'dataprotect_storage_physical_capacity_bytes', labels, value: physical.total },
      { name: 'dataprotect_storage_physical_used_bytes', labels, value: physical.used },
      { name: 'dataprotect_storage_physical_available_bytes', labels, value: physical.available },
    );
  }
  if (logical) samples.push({ name: 'dataprotect_storage_logical_used_bytes', labels, value: logical.used });
  const factor = compressionFactor(sample);
  if (factor !== undefined) samples.push({ name: 'dataprotect_storage_compression_factor', labels, value: factor });
  return samples;
}

/** The appliance's own factor, else logical used / physical used; nothing stored means no factor (the appliance says 0 then), not 0. */
function compressionFactor(sample: TierCapacity): number | undefined {
  const physicalUsed = sample.physical_capacity?.used;
  if (physicalUsed === undefined) return sample.compression_factor || undefined;
  if (physicalUsed <= 0) return undefined;
  if (sample.compression_factor !== undefined) return sample.compression_factor;
  const logicalUsed = sample.logical_capacity?.used;
  return logicalUsed !== undefined ? logicalUsed / physicalUsed : undefined;
}
