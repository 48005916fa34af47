/**
 * One string for a tuple of strings, to key a Map or Set. Each part is
 * prefixed with its length, so two different tuples never share a key
 * whatever characters the parts hold (the APIs' values may hold any
 * separator).
 */
export function compositeKey(parts: readonly string[]): string {
  let key = '';
  for (const part of parts) key += `${part.length}:${part}`;
  return key;
}
