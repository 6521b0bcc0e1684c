// The LZ4 block codec: hand-derived vectors, a differential check against a
// literal (BigInt) transcription of the formats.md §4.8 pseudocode, and
// round trips through the decoder.

import assert from "node:assert/strict";
import { compressBlock, decompressBlock } from "../../lib/formats/zng/lz4.ts";
import { hex, rng } from "./zng_helpers.ts";

const MASK64 = (1n << 64n) - 1n;

function le64(src: Uint8Array, i: number): bigint {
  let x = 0n;
  for (let k = 7; k >= 0; k--) x = (x << 8n) | BigInt(src[i + k]);
  return x;
}

function le32(src: Uint8Array, i: number): number {
  return (src[i] | (src[i + 1] << 8) | (src[i + 2] << 16) | (src[i + 3] << 24)) >>> 0;
}

/** formats.md §4.8, transcribed line by line with 64-bit BigInt arithmetic. */
function specCompress(src: Uint8Array): Uint8Array | null {
  const table = new Uint16Array(65536);
  const hash = (x: bigint) =>
    Number((((x & ((1n << 40n) - 1n)) * 227718039650203n) & MASK64) >> 48n);
  const get = (h: number, si: number) => {
    let i = table[h] + (si & ~0xffff);
    if (i >= si) i -= 65536;
    return i;
  };
  const put = (h: number, si: number) => table[h] = si & 0xffff;
  const D = src.length;
  const dst: number[] = [];
  const emit = (b: number) => dst.push(b);
  let si = 0, anchor = 0;
  const sn = src.length - 14;
  if (sn > 0) {
    while (si < sn) {
      const m = le64(src, si);
      const h = hash(m), h2 = hash(m >> 8n);
      const ref = get(h, si), ref2 = get(h2, si);
      put(h, si);
      put(h2, si + 1);
      let off = si - ref;
      if (off <= 0 || off >= 65536 || Number(m & 0xffffffffn) !== le32(src, ref)) {
        const h3 = hash(m >> 16n);
        const ref3 = get(h3, si + 2);
        si += 1;
        off = si - ref2;
        if (off <= 0 || off >= 65536 || Number((m >> 8n) & 0xffffffffn) !== le32(src, ref2)) {
          si += 1;
          off = si - ref3;
          put(h3, si);
          if (off <= 0 || off >= 65536 || Number((m >> 16n) & 0xffffffffn) !== le32(src, ref3)) {
            si += 2 + ((si - anchor) >> 7);
            continue;
          }
        }
      }
      let lLen = si - anchor, mLen = 4, t = si - off - 1;
      while (lLen > 0 && t >= 0 && src[si - 1] === src[t]) {
        si--;
        t--;
        lLen--;
        mLen++;
      }
      const base = si + 4;
      si = si + mLen;
      while (si + 8 < sn) {
        const x = le64(src, si) ^ le64(src, si - off);
        if (x === 0n) si += 8;
        else {
          let tz = 0;
          while (((x >> BigInt(tz)) & 1n) === 0n) tz++;
          si += tz >> 3;
          break;
        }
      }
      mLen = si - base;
      emit((Math.min(lLen, 15) << 4) | Math.min(mLen, 15));
      if (lLen >= 15) {
        let l = lLen - 15;
        for (; l >= 255; l -= 255) emit(255);
        emit(l);
      }
      for (let k = anchor; k < anchor + lLen; k++) emit(src[k]);
      emit(off & 0xff);
      emit(off >> 8);
      anchor = si;
      if (mLen >= 15) {
        let l = mLen - 15;
        for (; l >= 255; l -= 255) emit(255);
        emit(l);
      }
      if (dst.length > D) return null;
      if (si >= sn) break;
      put(hash(le64(src, si - 2)), si - 2);
    }
  }
  if (anchor === 0) return null;
  const lLen = src.length - anchor;
  emit(Math.min(lLen, 15) << 4);
  if (lLen >= 15) {
    let l = lLen - 15;
    for (; l >= 255; l -= 255) emit(255);
    emit(l);
  }
  if (dst.length >= anchor) return null;
  for (let k = anchor; k < src.length; k++) emit(src[k]);
  if (dst.length > D) return null;
  return Uint8Array.from(dst);
}

function compress(src: Uint8Array): Uint8Array | null {
  const dst = new Uint8Array(src.length);
  const n = compressBlock(src, dst);
  return n === 0 ? null : dst.slice(0, n);
}

function decompress(block: Uint8Array, size: number): Uint8Array | null {
  const out = new Uint8Array(size);
  const n = decompressBlock(block, out);
  return n === size ? out : null;
}

/** Inputs with a mix of structure: repeats, small alphabets, random runs. */
function sample(r: () => number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  const mode = Math.floor(r() * 4);
  let i = 0;
  while (i < size) {
    const choice = mode === 3 ? 0 : Math.floor(r() * 3);
    const run = 1 + Math.floor(r() * (choice === 2 ? 300 : 40));
    for (let k = 0; k < run && i < size; k++, i++) {
      if (choice === 0) out[i] = Math.floor(r() * 256);
      else if (choice === 1) out[i] = 97 + Math.floor(r() * (mode + 2));
      else out[i] = i >= 64 ? out[i - 1 - Math.floor(r() * 63)] : 0x20;
    }
  }
  return out;
}

Deno.test("lz4: hand-derived vector: 32 bytes of 'a'", () => {
  const src = new Uint8Array(32).fill(0x61);
  // Literal 'a' + match (offset 1, 13 bytes); match (offset 2, 4 bytes); 14 literals.
  const want = "19 61 01 00 00 02 00 e0" + " 61".repeat(14);
  assert.equal(hex(compress(src)!), want);
  assert.deepEqual(decompress(compress(src)!, 32), src);
});

Deno.test("lz4: inputs of 14 bytes or fewer and incompressible inputs give 0", () => {
  for (let n = 0; n <= 14; n++) assert.equal(compress(new Uint8Array(n)), null);
  assert.notEqual(compress(new Uint8Array(15)), null);
  const r = rng(7);
  const noise = Uint8Array.from({ length: 5000 }, () => Math.floor(r() * 256));
  assert.equal(compress(noise), null);
});

Deno.test("lz4: compressor equals the spec transcription on many inputs", () => {
  const r = rng(12345);
  const sizes = [15, 16, 17, 20, 31, 64, 100, 255, 256, 270, 1000, 4096, 65535, 65536, 70000];
  for (let k = 0; k < 60; k++) sizes.push(1 + Math.floor(r() * 3000));
  sizes.push(200_000);
  let compressed = 0;
  for (const size of sizes) {
    const src = sample(r, size);
    const got = compress(src);
    const want = specCompress(src);
    assert.equal(got === null ? null : hex(got), want === null ? null : hex(want), `size ${size}`);
    if (got !== null) {
      compressed++;
      assert.deepEqual(decompress(got, size), src);
    }
  }
  assert.ok(compressed > sizes.length / 2);
});

Deno.test("lz4: long literal and match runs (255-byte length extensions)", () => {
  const r = rng(99);
  const parts: number[] = [];
  for (let i = 0; i < 600; i++) parts.push(Math.floor(r() * 256));
  for (let i = 0; i < 2000; i++) parts.push(0x41);
  for (let i = 0; i < 300; i++) parts.push(Math.floor(r() * 256));
  for (let i = 0; i < 900; i++) parts.push(parts[i]);
  const src = Uint8Array.from(parts);
  const got = compress(src)!;
  assert.equal(hex(got), hex(specCompress(src)!));
  assert.deepEqual(decompress(got, src.length), src);
});

Deno.test("lz4: decoder handles overlapping matches and rejects corrupt blocks", () => {
  // "ab" then a match of offset 2, length 4+6 = 10: "abababababab".
  const block = Uint8Array.from([0x26, 0x61, 0x62, 0x02, 0x00]);
  assert.equal(new TextDecoder().decode(decompress(block, 12)!), "abababababab");
  // Too small a destination, a zero offset, an offset before the start, truncation.
  assert.equal(decompressBlock(block, new Uint8Array(11)), -1);
  assert.equal(decompressBlock(Uint8Array.from([0x16, 0x61, 0x00, 0x00]), new Uint8Array(9)), -1);
  assert.equal(decompressBlock(Uint8Array.from([0x16, 0x61, 0x05, 0x00]), new Uint8Array(9)), -1);
  assert.equal(decompressBlock(Uint8Array.from([0x50, 0x61]), new Uint8Array(5)), -1);
  assert.equal(decompressBlock(Uint8Array.from([0xf0, 0xff]), new Uint8Array(500)), -1);
  assert.equal(decompressBlock(Uint8Array.from([0x16, 0x61, 0x01]), new Uint8Array(9)), -1);
  // An empty block decodes to nothing.
  assert.equal(decompressBlock(new Uint8Array(0), new Uint8Array(4)), 0);
});

Deno.test("lz4: random round trips, including incompressible data, never throw", () => {
  const r = rng(4242);
  for (let k = 0; k < 200; k++) {
    const size = Math.floor(r() * (k < 150 ? 2000 : 100_000));
    const src = sample(r, size);
    const got = compress(src);
    if (got === null) continue;
    assert.ok(got.length < size);
    assert.deepEqual(decompress(got, size), src);
    // Corrupting the block gives an error code or different bytes, not an exception.
    const bad = got.slice();
    bad[Math.floor(r() * bad.length)] ^= 1 + Math.floor(r() * 255);
    const out = new Uint8Array(size);
    const n = decompressBlock(bad, out);
    assert.ok(n >= -1 && n <= size);
  }
});
