/**
 * gzip members that join into one: a scrape's body is a single gzip member, as browsers, curl and wget read only the first member of a
 * Content-Encoding: gzip body (Go's and Node's readers read them all). A joinable member is a 10-byte header, deflate data that ends in
 * a sync flush (byte-aligned, no final block), the empty final block 03 00, then CRC-32 and length: a valid gzip member on its own, and
 * members are joined by keeping the first header, each one's deflate data, one final block and a trailer of the combined CRC and length.
 */
import { crc32 } from 'node:zlib';

/** gzip header without optional fields (FLG 0), no time, OS unknown */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** a final fixed-Huffman block holding only its end-of-block code */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);
const HEADER_BYTES = HEADER.length;
const TAIL_BYTES = FINAL_BLOCK.length + 8;

function trailer(crc: number, length: number): Buffer {
  const tail = Buffer.alloc(TAIL_BYTES);
  FINAL_BLOCK.copy(tail);
  tail.writeUInt32LE(crc >>> 0, FINAL_BLOCK.length);
  tail.writeUInt32LE(length >>> 0, FINAL_BLOCK.length + 4);
  return tail;
}

/** A joinable member of `plain`, from its deflate data ended by a sync flush (in pieces, as a streaming compressor gives it). */
export function joinableMember(syncFlushed: readonly Uint8Array[], plain: Uint8Array): Buffer {
  return Buffer.concat([HEADER, ...syncFlushed, trailer(crc32(plain), plain.length)]);
}

// CRC-32 of a concatenation from the CRCs of its parts (zlib's crc32_combine: multiplications modulo the CRC polynomial).
const POLY = 0xedb88320;

function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** X2N[k] = x^(2^k) modulo the polynomial */
const X2N: number[] = [0x40000000];
for (let k = 1; k < 32; k++) X2N.push(multModP(X2N[k - 1] as number, X2N[k - 1] as number));

/** x^(n * 2^k) modulo the polynomial */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000;
  for (; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) p = multModP(X2N[k & 31] as number, p);
  return p;
}

/** x^(8 * length) by length: a scrape joins the same members (headers, results until they change) as the one before. */
const shifts = new Map<number, number>();
const MAX_SHIFTS = 65_536;

/** The CRC-32 of A followed by B, from the CRC of A and the CRC and length of B. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  let shift = shifts.get(lengthB);
  if (shift === undefined) {
    if (shifts.size >= MAX_SHIFTS) shifts.clear();
    shifts.set(lengthB, (shift = x2nModP(lengthB, 3)));
  }
  return (multModP(shift, crcA) ^ crcB) >>> 0;
}

/** Joinable members as the pieces of one member (views of them, no copy): the first header, each one's deflate data, one trailer. */
export function joinMembers(members: readonly Uint8Array[]): Buffer[] {
  const pieces: Buffer[] = [HEADER];
  let crc = 0;
  let length = 0;
  for (const member of members) {
    const view = Buffer.from(member.buffer, member.byteOffset, member.byteLength);
    const memberLength = view.readUInt32LE(view.length - 4);
    crc = crc32Combine(crc, view.readUInt32LE(view.length - 8), memberLength);
    length = (length + memberLength) % 2 ** 32;
    pieces.push(view.subarray(HEADER_BYTES, view.length - TAIL_BYTES));
  }
  pieces.push(trailer(crc, length));
  return pieces;
}
