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

/** The parts a compositeKey was built from. */
export function keyParts<T extends string[]>(key: string): T {
  const parts: string[] = [];
  for (let at = 0; at < key.length; ) {
    const colon = key.indexOf(':', at);
    const end = colon + 1 + Number(key.slice(at, colon));
    parts.push(key.slice(colon + 1, end));
    at = end;
  }
  return parts as T;
}
