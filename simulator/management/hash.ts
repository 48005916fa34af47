/**
 * Small integer hashing for content derived on demand from an index (audit
 * entries): the same (seed, index, salt) always gives the same 32 bits,
 * without storing anything.
 */

export function mix32(a: number, b: number): number {
  let h = Math.imul(a ^ Math.imul(b + 0x9e3779b9, 0x85ebca6b), 0xcc9e2d51);
  h ^= h >>> 15;
  h = Math.imul(h, 0x1b873593);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function hash3(seed: number, index: number, salt: number): number {
  return mix32(mix32(seed, index), salt);
}

function hex(n: number, digits: number): string {
  return (n >>> 0).toString(16).padStart(8, '0').slice(8 - digits);
}

/** UUID-shaped id; the index is part of it, so ids of distinct indexes never collide */
export function hashUuid(seed: number, index: number): string {
  const a = hash3(seed, index, 101);
  const b = hash3(seed, index, 102);
  const c = hash3(seed, index, 103);
  const variant = (8 + (c >>> 30)).toString(16);
  return `${hex(a, 8)}-${hex(b, 4)}-4${hex(b >>> 16, 3)}-${variant}${hex(c, 3)}-${hex(c >>> 12, 4)}${hex(index, 8)}`;
}

/** index of the first position in [0, length) whose key is >= value (> value when strict) */
export function lowerBound(length: number, keyAt: (i: number) => number, value: number, strict = false): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const key = keyAt(mid);
    if (strict ? key <= value : key < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const HEX_CODES = Array.from('0123456789abcdef', (ch) => ch.charCodeAt(0));
const DASH = '-'.charCodeAt(0);
const codes: number[] = new Array<number>(36).fill(DASH);

function putHex(at: number, word: number, digits: number): void {
  for (let i = digits - 1; i >= 0; i--) {
    codes[at + i] = HEX_CODES[word & 15] as number;
    word >>>= 4;
  }
}

/**
 * A UUID-shaped (version 4 layout) id from four draws of a seeded stream.
 * SeededRandom.uuid() draws once per hex digit and builds the string piece by
 * piece; the estate needs hundreds of thousands of ids, so this draws four
 * words and builds one flat string (less time, less memory).
 */
export function uuidFrom(rng: { next(): number }): string {
  const a = (rng.next() * 4294967296) >>> 0;
  const b = (rng.next() * 4294967296) >>> 0;
  const c = (rng.next() * 4294967296) >>> 0;
  const d = (rng.next() * 4294967296) >>> 0;
  putHex(0, a, 8);
  putHex(9, b >>> 16, 4);
  putHex(14, (b & 0x0fff) | 0x4000, 4);
  putHex(19, ((c >>> 16) & 0x3fff) | 0x8000, 4);
  putHex(24, c & 0xffff, 4);
  putHex(28, d, 8);
  return String.fromCharCode(...codes);
}
