/** A Map or Set key for a tuple of strings: each part is prefixed with its length, as the APIs' values may hold any separator. */
export function compositeKey(parts: readonly string[]): string {
  let key = '';
  for (const part of parts) key += `${part.length}:${part}`;
  return key;
}
