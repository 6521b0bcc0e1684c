// LZ4 block compression as ZNG frames use it (formats.md §4.8). The
// compressor follows the reference's library (pierrec/lz4 v4.1.14,
// Compressor.CompressBlock with a fresh table) step for step, so compressed
// frames are byte-identical to the reference's; the decoder reads any valid
// LZ4 block.

const HASH_LOG = 16;
const WIN_SIZE = 1 << 16;
/** The last match cannot start within the last 14 bytes. */
const MF_LIMIT = 14;
const SKIP_LOG = 7;

// The 5-byte hash multiplies the low 40 bits of the input by this prime
// (0xcf1bbcdcbf9b) modulo 2^64 and keeps the top 16 bits. With the input as
// hi:lo (8 and 32 bits) and the prime as PRIME_HI:PRIME_LO, the top 32 bits of
// the product are mulhi(lo, PRIME_LO) + lo*PRIME_HI + hi*PRIME_LO (mod 2^32);
// mulhi is formed from 16-bit limbs so every step stays exact.
const PRIME_HI = 0xcf1b;
const PRIME_LO = 0xbcdcbf9b;
const B0 = PRIME_LO & 0xffff;
const B1 = PRIME_LO >>> 16;

const table = new Uint16Array(1 << HASH_LOG);

/** The hash of the five bytes at src[p..p+4]. */
function hash5(src: Uint8Array, p: number): number {
  const a0 = src[p] | (src[p + 1] << 8);
  const a1 = src[p + 2] | (src[p + 3] << 8);
  const lo = a0 | (a1 << 16);
  const p00 = a0 * B0, p01 = a0 * B1, p10 = a1 * B0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const mulhi = a1 * B1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  return ((mulhi + Math.imul(lo, PRIME_HI) + Math.imul(src[p + 4], PRIME_LO)) >>> 16) & 0xffff;
}

/** A candidate match position for hash h, relative to the 64 KiB block of si. */
function get(h: number, si: number): number {
  let i = table[h] + (si - (si & 0xffff));
  if (i >= si) i -= WIN_SIZE;
  return i;
}

function eq4(view: DataView, a: number, b: number): boolean {
  return view.getInt32(a, true) === view.getInt32(b, true);
}

/**
 * Compresses src into dst (whose length is the capacity). Returns the
 * compressed length, or 0 when the data is incompressible or does not fit,
 * exactly when the reference's compressor gives up.
 */
export function compressBlock(src: Uint8Array, dst: Uint8Array): number {
  table.fill(0);
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const dlen = dst.length;
  // Whether dst is smaller than the worst-case bound (always so in ZNG).
  const notCompressible = dlen < src.length + Math.floor(src.length / 255) + 16;
  let si = 0, di = 0, anchor = 0;
  const sn = src.length - MF_LIMIT;
  if (sn > 0) {
    while (si < sn) {
      const h = hash5(src, si);
      const h2 = hash5(src, si + 1);
      const ref = get(h, si);
      const ref2 = get(h2, si);
      table[h] = si & 0xffff;
      table[h2] = (si + 1) & 0xffff;
      let offset = si - ref;
      if (offset <= 0 || offset >= WIN_SIZE || !eq4(view, si, ref)) {
        const h3 = hash5(src, si + 2);
        const ref3 = get(h3, si + 2);
        si += 1;
        offset = si - ref2;
        if (offset <= 0 || offset >= WIN_SIZE || !eq4(view, si, ref2)) {
          si += 1;
          offset = si - ref3;
          table[h3] = si & 0xffff;
          if (offset <= 0 || offset >= WIN_SIZE || !eq4(view, si, ref3)) {
            si += 2 + ((si - anchor) >> SKIP_LOG);
            continue;
          }
        }
      }
      // A match of at least 4 bytes at si; extend it backwards over literals.
      let lLen = si - anchor;
      let mLen = 4;
      let tOff = si - offset - 1;
      while (lLen > 0 && tOff >= 0 && src[si - 1] === src[tOff]) {
        si--;
        tOff--;
        lLen--;
        mLen++;
      }
      const base = si + 4;
      si += mLen;
      // Extend forwards, 8 bytes at a time as the reference compares them.
      while (si + 8 < sn) {
        const from = si - offset;
        if (
          view.getInt32(si, true) === view.getInt32(from, true) &&
          view.getInt32(si + 4, true) === view.getInt32(from + 4, true)
        ) {
          si += 8;
          continue;
        }
        let k = 0;
        while (src[si + k] === src[from + k]) k++;
        si += k;
        break;
      }
      mLen = si - base;
      if (di >= dlen) return 0;
      let token = mLen < 15 ? mLen : 15;
      if (lLen < 15) {
        dst[di] = token | (lLen << 4);
      } else {
        token |= 0xf0;
        dst[di] = token;
        di++;
        let l = lLen - 15;
        for (; l >= 255 && di < dlen; l -= 255) dst[di++] = 255;
        if (di >= dlen) return 0;
        dst[di] = l;
      }
      di++;
      if (di + lLen > dlen) return 0;
      if (lLen < 32) {
        for (let k = 0; k < lLen; k++) dst[di + k] = src[anchor + k];
      } else {
        dst.set(src.subarray(anchor, anchor + lLen), di);
      }
      di += lLen + 2;
      anchor = si;
      if (di > dlen) return 0;
      dst[di - 2] = offset & 0xff;
      dst[di - 1] = offset >> 8;
      if (mLen >= 15) {
        for (mLen -= 15; mLen >= 255 && di < dlen; mLen -= 255) dst[di++] = 255;
        if (di >= dlen) return 0;
        dst[di++] = mLen;
      }
      if (si >= sn) break;
      table[hash5(src, si - 2)] = (si - 2) & 0xffff;
    }
  }
  if (notCompressible && anchor === 0) return 0;
  if (di >= dlen) return 0;
  let lLen = src.length - anchor;
  if (lLen < 15) {
    dst[di] = lLen << 4;
  } else {
    dst[di] = 0xf0;
    di++;
    for (lLen -= 15; lLen >= 255 && di < dlen; lLen -= 255) dst[di++] = 255;
    if (di >= dlen) return 0;
    dst[di] = lLen;
  }
  di++;
  if (notCompressible && di >= anchor) return 0;
  const rest = src.length - anchor;
  if (di + rest > dlen) return 0;
  dst.set(src.subarray(anchor), di);
  return di + rest;
}

/**
 * Decompresses an LZ4 block into dst. Returns the number of bytes written,
 * or -1 when the block is corrupt or would overflow dst.
 */
export function decompressBlock(src: Uint8Array, dst: Uint8Array): number {
  const slen = src.length, dlen = dst.length;
  if (slen === 0) return 0;
  let si = 0, di = 0;
  while (si < slen) {
    const token = src[si++];
    let lLen = token >>> 4;
    if (lLen > 0) {
      if (lLen === 15) {
        for (;;) {
          if (si >= slen) return -1;
          const x = src[si++];
          lLen += x;
          if (x !== 255) break;
        }
      }
      if (si + lLen > slen || di + lLen > dlen) return -1;
      if (lLen < 16) {
        for (let k = 0; k < lLen; k++) dst[di + k] = src[si + k];
      } else {
        dst.set(src.subarray(si, si + lLen), di);
      }
      si += lLen;
      di += lLen;
    }
    if (si === slen) break;
    if (si + 2 > slen) return -1;
    const offset = src[si] | (src[si + 1] << 8);
    si += 2;
    if (offset === 0 || offset > di) return -1;
    let mLen = (token & 15) + 4;
    if (mLen === 19) {
      for (;;) {
        if (si >= slen) return -1;
        const x = src[si++];
        mLen += x;
        if (x !== 255) break;
      }
    }
    if (di + mLen > dlen) return -1;
    let from = di - offset;
    if (offset >= mLen && mLen > 32) {
      dst.copyWithin(di, from, from + mLen);
      di += mLen;
    } else {
      // Overlapping (or short) copies go byte by byte, repeating the pattern.
      const end = di + mLen;
      while (di < end) dst[di++] = dst[from++];
    }
  }
  return di;
}
