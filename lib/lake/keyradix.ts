// Ordering keys that are byte strings (Zeek's ts as text, in the values'
// bodies) by a least-significant-digit radix sort: a pass per two byte
// positions, from the last to the first, each a stable counting sort of the
// indexes, so no comparison is made at all. The keys arrive in short runs (a
// Zeek log is written as connections end, ordered by when they began: the
// dns log's 536k records came in 32k runs), where a merge sort with a
// comparator spent ~12% of a big load's time; these passes take ~4%.

/** Keys longer than this are left to a comparison sort. */
export const MAX_RADIX_KEY = 64;

/**
 * Per digit value, a pass's counts then offsets: all zero between passes
 * (each pass clears what it used), kept for the thread's next sort rather
 * than allocated and cleared whole each time (a small load's sort is a few
 * keys).
 */
let counts: Int32Array | undefined;

/** Keys in order, and which of them equal the one before. */
export interface RadixOrder {
  /** The keys' indexes in order. */
  order: Uint32Array;
  /** 1 where the key at order[k] equals the one at order[k - 1]. */
  same: Uint8Array;
}

/**
 * The indexes of n keys in ascending order of their bytes, a shorter key
 * first where one is a prefix of the other (as the bytes past its end were
 * zeros, then by length), stably: equal keys keep their indexes' order.
 * Key i is bufs[chunkOf[i]] from at[i], len[i] bytes long. Null when a key
 * is longer than MAX_RADIX_KEY.
 */
export function radixOrder(
  n: number,
  bufs: readonly Uint8Array[],
  chunkOf: readonly number[],
  at: readonly number[],
  len: readonly number[],
): RadixOrder | null {
  let width = 0, sameLength = true;
  for (let i = 0; i < n; i++) {
    const m = len[i];
    if (m > width) width = m;
    if (m !== len[0]) sameLength = false;
  }
  if (width > MAX_RADIX_KEY) return null;
  // Digits of two bytes each (0 past a key's end), the most significant
  // first; the length last (least significant) where lengths differ.
  const digits: Uint16Array[] = [];
  for (let p = 0; p < width; p += 2) digits.push(new Uint16Array(n));
  for (let i = 0; i < n; i++) {
    const b = bufs[chunkOf[i]], s = at[i], m = len[i];
    let p = 0;
    for (; p + 1 < m; p += 2) digits[p >> 1][i] = (b[s + p] << 8) | b[s + p + 1];
    if (p < m) digits[p >> 1][i] = b[s + p] << 8;
  }
  if (!sameLength) {
    const d = new Uint16Array(n);
    for (let i = 0; i < n; i++) d[i] = len[i];
    digits.push(d);
  }
  let order = new Uint32Array(n), tmp = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  counts ??= new Int32Array(65536);
  /** The digits that differ between keys, least significant first. */
  const differing: Uint16Array[] = [];
  for (let k = digits.length - 1; k >= 0; k--) {
    if (!countingPass(order, tmp, digits[k], counts)) continue;
    [order, tmp] = [tmp, order];
    differing.push(digits[k]);
  }
  // Equal keys are next to each other now; the least significant digits tell most apart.
  const same = new Uint8Array(n);
  for (let k = 1; k < n; k++) {
    const i = order[k - 1], j = order[k];
    let d = 0;
    while (d < differing.length && differing[d][i] === differing[d][j]) d++;
    if (d === differing.length) same[k] = 1;
  }
  return { order, same };
}

/**
 * One stable counting sort of idx by digit[idx[k]] into out; false (out
 * untouched) when every digit is the same, which leaves the order as it is.
 * counts is all zero before and after.
 */
function countingPass(
  idx: Uint32Array,
  out: Uint32Array,
  digit: Uint16Array,
  counts: Int32Array,
): boolean {
  const n = idx.length;
  let lo = 65535, hi = 0;
  for (let i = 0; i < n; i++) {
    const d = digit[i];
    counts[d]++;
    if (d < lo) lo = d;
    if (d > hi) hi = d;
  }
  if (n === 0) return false;
  if (lo === hi) {
    counts[lo] = 0;
    return false;
  }
  let sum = 0;
  for (let d = lo; d <= hi; d++) {
    const c = counts[d];
    counts[d] = sum;
    sum += c;
  }
  for (let k = 0; k < n; k++) {
    const j = idx[k];
    out[counts[digit[j]]++] = j;
  }
  counts.fill(0, lo, hi + 1);
  return true;
}
