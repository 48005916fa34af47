/** Byte sizes in configuration: a number of bytes, or a string such as "64MiB" (powers of 1024) or "100MB" (powers of 1000). */
const UNIT_BYTES: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
const SIZE_RE = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KiB|MiB|GiB)?$/;

export function parseBytes(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const match = SIZE_RE.exec(value.trim());
  if (!match) return undefined;
  return Math.floor(Number(match[1]) * (UNIT_BYTES[match[2] ?? 'B'] ?? 1));
}

/** "64 MiB", "512 KiB", "1000 B": for messages that name a limit. */
export function formatBytes(bytes: number): string {
  for (const unit of ['GiB', 'MiB', 'KiB'] as const) {
    const size = UNIT_BYTES[unit] as number;
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} B`;
}
