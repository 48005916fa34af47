/**
 * Which records leave out an optional field. The products' models require
 * few fields (api-notes.md), so a client must take a record without one; the
 * simulator's records show it. Chosen from the record's id and the field, so
 * a record always looks the same and the estate's random stream is untouched.
 */
export function omits(id: string, field: string, oneIn = 40): boolean {
  let hash = 0x811c9dc5;
  for (const ch of `${field}:${id}`) hash = Math.imul(hash ^ (ch.codePointAt(0) as number), 0x01000193) >>> 0;
  return hash % oneIn === 0;
}
