// The HyperLogLog sketch behind dcount, as the reference builds it (Axiom's
// hyperloglog at the version Zed v1.3 uses: precision 14, a sparse form with
// 25-bit precision until it grows past half the registers' size, then 2^14
// four-bit registers over a shared base), so that estimates are the
// reference's to the unit: exact up to a few thousand distinct values, an
// estimate beyond. Its quirks are kept on purpose (the sparse form's size
// is its encoded bytes; the overflow test is on 8-bit arithmetic; the
// non-zero register count after a rebase); each is marked where it is.

import { uvarintLength } from "../../zed/bytes.ts";
import { hashed, metroHash64 } from "./metro.ts";

const P = 14;
const M = 1 << P;
const PP = 25;
const MP = 2 ** PP;
/** Register values are 4 bits, above the base. */
const CAPACITY = 16;
const ALPHA = 0.7213 / (1 + 1.079 / M);
const SEED = 1337;

/** Leading zeros of the 64-bit word hi:lo. */
function clz64(hi: number, lo: number): number {
  return hi !== 0 ? Math.clz32(hi) : 32 + Math.clz32(lo);
}

/** x^k for a whole k >= 1 by Go's math.Pow: the same products, in the same order. */
function powInt(x: number, k: number): number {
  let a = 1, x1 = x;
  for (let i = k; i !== 0; i >>= 1) {
    if (i & 1) a *= x1;
    x1 *= x1;
  }
  return a;
}

function beta14(ez: number): number {
  const zl = Math.log(ez + 1);
  return -0.370393911 * ez +
    0.070471823 * zl +
    0.17393686 * powInt(zl, 2) +
    0.16339839 * powInt(zl, 3) +
    -0.09237745 * powInt(zl, 4) +
    0.03738027 * powInt(zl, 5) +
    -0.005384159 * powInt(zl, 6) +
    0.00042419 * powInt(zl, 7);
}

/** The sparse form's encoding of the hash hi:lo (a 32-bit number). */
function encodeHash(hi: number, lo: number): number {
  const idx = hi >>> 7; // the top 25 bits
  if (((hi >>> 7) & 0x7ff) === 0) {
    // The bits after the top 14 are zero as far as 25: keep the run's length.
    const wHi = (((hi & 0x7f) << 25) | (lo >>> 7)) >>> 0;
    const wLo = (((lo & 0x7f) << 25) | 0x1ffffff) >>> 0;
    const zeros = clz64(wHi, wLo) + 1;
    return ((idx << 7) | (zeros << 1) | 1) >>> 0;
  }
  return (idx << 1) >>> 0;
}

/** The register index of a sparse encoding (with its value in `decodedRank`). */
let decodedRank = 0;
function decodeHash(k: number): number {
  if (k & 1) {
    decodedRank = ((k >>> 1) & 0x3f) + PP - P;
    return k >>> (32 - P);
  }
  decodedRank = Math.clz32((k << (32 - PP + P - 1)) >>> 0) + 1;
  return (k >>> (PP - P + 1)) & (M - 1);
}

/** 2^14 four-bit registers, two to a byte (the first in the high half). */
class Registers {
  readonly bytes = new Uint8Array(M / 2);
  /** Registers at zero, as the reference counts them (see rebase). */
  nz = M;

  get(i: number): number {
    const r = this.bytes[i >> 1];
    return i & 1 ? r & 0x0f : r >> 4;
  }

  set(i: number, val: number): void {
    const at = i >> 1, r = this.bytes[at];
    let wasZero: boolean;
    if ((i & 1) === 0) {
      wasZero = r < 16;
      this.bytes[at] = (r & 0x0f) | (val << 4);
    } else {
      wasZero = (r & 0x0f) === 0;
      this.bytes[at] = (r & 0xf0) | val;
    }
    if (wasZero) this.nz--;
  }

  /** The least register (0 while some are counted zero; a byte of two zeros also gives 0). */
  min(): number {
    if (this.nz > 0) return 0;
    let min = 255;
    for (const r of this.bytes) {
      if (r === 0 || min === 0) return 0;
      if ((r & 0x0f) < min) min = r & 0x0f;
      if (r >> 4 < min) min = r >> 4;
    }
    return min;
  }

  /** Lowers every register by delta (the base rises by it). */
  rebase(delta: number): void {
    // (The reference's count: every register, less those left above zero.)
    let nz = M;
    const b = this.bytes;
    for (let at = 0; at < b.length; at++) {
      let hi = b[at] >> 4, lo = b[at] & 0x0f;
      if (hi >= delta) {
        hi -= delta;
        if (hi > 0) nz--;
      }
      if (lo >= delta) {
        lo -= delta;
        if (lo > 0) nz--;
      }
      b[at] = (hi << 4) | lo;
    }
    this.nz = nz;
  }
}

/**
 * The sparse form's sorted list of encodings. The reference stores it as
 * varints of the differences and compares the size of that encoding with
 * its limit; this keeps the numbers in a sorted array and that size beside.
 */
class SparseList {
  values = new Uint32Array(64);
  count = 0;
  /** Bytes of the reference's encoding (each difference from the one before as a varint). */
  encodedLength = 0;

  /** Adds keys (sorted ascending) not already in the list. */
  merge(keys: Uint32Array): void {
    const n = this.count + keys.length;
    if (n > this.values.length) {
      const grown = new Uint32Array(Math.max(n, this.values.length * 2));
      grown.set(this.values.subarray(0, this.count));
      this.values = grown;
    }
    if (keys.length <= 8) {
      for (const k of keys) this.insert(k);
      return;
    }
    // Merge from the back into the array's free end.
    const v = this.values;
    let i = this.count - 1, j = keys.length - 1, out = n - 1;
    while (j >= 0) {
      if (i >= 0 && v[i] > keys[j]) v[out--] = v[i--];
      else if (i >= 0 && v[i] === keys[j]) {
        v[out--] = v[i--];
        j--;
      } else v[out--] = keys[j--];
    }
    // Duplicates leave a gap below out: close it.
    const gap = out - i;
    if (gap > 0) v.copyWithin(i + 1, out + 1, n);
    this.count = n - gap;
    this.encodedLength = 0;
    let prev = 0;
    for (let k = 0; k < this.count; k++) {
      this.encodedLength += uvarintLength(v[k] - prev);
      prev = v[k];
    }
  }

  private insert(k: number): void {
    const v = this.values;
    let lo = 0, hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v[mid] < k) lo = mid + 1;
      else hi = mid;
    }
    if (lo < this.count && v[lo] === k) return;
    const prev = lo > 0 ? v[lo - 1] : 0;
    this.encodedLength += uvarintLength(k - prev);
    if (lo < this.count) {
      this.encodedLength += uvarintLength(v[lo] - k) - uvarintLength(v[lo] - prev);
      v.copyWithin(lo + 1, lo, this.count);
    }
    v[lo] = k;
    this.count++;
  }
}

export class Sketch {
  /** The base the registers count from. */
  private b = 0;
  /** Sparse form: encodings not yet merged into the list, and the list. */
  private tmpSet: Set<number> | null = new Set();
  private sparseList: SparseList | null = new SparseList();
  private regs: Registers | null = null;
  /** Whether the state changed since the last estimate (which is `last`). */
  private changed = true;
  private last = 0;

  /** Adds the hash of bytes[0, len). */
  insert(bytes: Uint8Array, len: number): void {
    metroHash64(bytes, len, SEED);
    const { hi, lo } = hashed;
    if (this.tmpSet !== null) {
      const k = encodeHash(hi, lo);
      if (this.tmpSet.has(k)) return;
      this.tmpSet.add(k);
      if (this.tmpSet.size * 100 > M / 2) {
        this.mergeSparse();
        // (The list's size is its encoded bytes, not its count.)
        if (this.sparseList!.encodedLength > M / 2) this.toNormal();
      }
      return;
    }
    const i = hi >>> (32 - P);
    const wHi = ((hi << P) | (lo >>> (32 - P))) >>> 0;
    const wLo = ((lo << P) | (1 << (P - 1))) >>> 0;
    this.insertAt(i, clz64(wHi, wLo) + 1);
  }

  private insertAt(i: number, r: number): void {
    const regs = this.regs!;
    // (An 8-bit difference: a rank below the base wraps to above capacity.)
    if (((r - this.b) & 0xff) >= CAPACITY) {
      const db = regs.min();
      if (db > 0) {
        this.b += db;
        regs.rebase(db);
        this.changed = true;
      }
    }
    if (r > this.b) {
      const val = Math.min(r - this.b, CAPACITY - 1);
      if (val > regs.get(i)) {
        regs.set(i, val);
        this.changed = true;
      }
    }
  }

  /** Merges the pending encodings into the sorted list. */
  private mergeSparse(): void {
    const tmp = this.tmpSet!;
    if (tmp.size === 0) return;
    this.sparseList!.merge(Uint32Array.from(tmp).sort());
    tmp.clear();
    this.changed = true;
  }

  /** Turns the sparse form into registers. */
  private toNormal(): void {
    if (this.tmpSet!.size > 0) this.mergeSparse();
    this.regs = new Registers();
    const list = this.sparseList!;
    for (const k of list.values.subarray(0, list.count)) {
      const i = decodeHash(k);
      this.insertAt(i, decodedRank);
    }
    this.tmpSet = null;
    this.sparseList = null;
    this.changed = true;
  }

  /** The estimated number of distinct values inserted. */
  estimate(): number {
    if (this.tmpSet !== null) this.mergeSparse();
    // Unchanged since the last estimate: the same one (what computing it
    // again would set, the registers' zero count, is what it set then).
    if (!this.changed) return this.last;
    this.changed = false;
    this.last = this.compute();
    return this.last;
  }

  private compute(): number {
    if (this.sparseList !== null) {
      const v = MP - this.sparseList.count;
      return Math.trunc(MP * Math.log(MP / v));
    }
    const regs = this.regs!;
    let sum = 0, ez = 0;
    const bytes = regs.bytes;
    for (let at = 0; at < bytes.length; at++) {
      const r = bytes[at];
      let v = this.b + (r >> 4);
      if (v === 0) ez++;
      sum += 1 / 2 ** v;
      v = this.b + (r & 0x0f);
      if (v === 0) ez++;
      sum += 1 / 2 ** v;
    }
    regs.nz = ez;
    const est = this.b === 0 ? ALPHA * M * (M - ez) / (sum + beta14(ez)) : ALPHA * M * M / sum;
    return Math.trunc(est + 0.5);
  }

  /** Bytes the sketch holds (for memory accounting). */
  size(): number {
    if (this.regs !== null) return M / 2 + 64;
    return this.tmpSet!.size * 16 + this.sparseList!.values.byteLength + 64;
  }

  /** Its whole state, to be taken back by restore() exactly. */
  save(): Uint8Array {
    if (this.regs !== null) {
      const out = new Uint8Array(1 + 1 + 4 + M / 2);
      out[0] = 0;
      out[1] = this.b;
      new DataView(out.buffer).setUint32(2, this.regs.nz);
      out.set(this.regs.bytes, 6);
      return out;
    }
    const tmp = this.tmpSet!, list = this.sparseList!;
    const out = new Uint8Array(1 + 3 * 4 + (tmp.size + list.count) * 4);
    const view = new DataView(out.buffer);
    out[0] = 1;
    view.setUint32(1, tmp.size);
    view.setUint32(5, list.count);
    view.setUint32(9, list.encodedLength);
    let p = 13;
    for (const k of tmp) {
      view.setUint32(p, k);
      p += 4;
    }
    for (let i = 0; i < list.count; i++, p += 4) view.setUint32(p, list.values[i]);
    return out;
  }

  /** A sketch in the state save() wrote. */
  static restore(state: Uint8Array): Sketch {
    const sk = new Sketch();
    const view = new DataView(state.buffer, state.byteOffset, state.byteLength);
    if (state[0] === 0) {
      sk.tmpSet = null;
      sk.sparseList = null;
      sk.b = state[1];
      sk.regs = new Registers();
      sk.regs.nz = view.getUint32(2);
      sk.regs.bytes.set(state.subarray(6, 6 + M / 2));
      return sk;
    }
    const n = view.getUint32(1);
    const list = sk.sparseList!;
    list.count = view.getUint32(5);
    list.encodedLength = view.getUint32(9);
    let p = 13;
    for (let i = 0; i < n; i++, p += 4) sk.tmpSet!.add(view.getUint32(p));
    list.values = new Uint32Array(Math.max(64, list.count));
    for (let i = 0; i < list.count; i++, p += 4) list.values[i] = view.getUint32(p);
    return sk;
  }
}
