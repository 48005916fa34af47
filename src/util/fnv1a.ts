/** The 32-bit FNV-1a hash of a string's UTF-8 bytes: stable across runs, processes and machines. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * FNV-1a over a string's UTF-16 units, cut to 30 bits: for a hash that stays within one process (prepareResult's duplicate check), where
 * fnv1a's UTF-8 bytes would cost a Buffer per call, and 30 bits are a small integer a Map holds without a heap number.
 */
export function fnv1aUtf16(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}
