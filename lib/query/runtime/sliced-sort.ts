// A stable sort that can pause: chunks sorted with Array.prototype.sort, then
// merged pairwise, pass by pass (a bottom-up merge sort), with pause points
// between chunks and within merges. A stable sort's result is fixed by the
// comparator, so it is the same as one items.sort(cmp).

import { currentSliceMs, sliceUsed } from "./turns.ts";

/** Items sorted by one Array.prototype.sort call (a few milliseconds of comparisons at most). */
export const SORT_CHUNK = 4096;

/** Items merged between looks at the clock (a power of two). */
const CHECK_EVERY = 1024;

/**
 * Sorts items stably by cmp, yielding when the slice is used up. Returns the
 * sorted items: items itself (sorted in place) or a new array.
 */
export function* sortSliced<T>(
  items: T[],
  cmp: (a: T, b: T) => number,
): Generator<void, T[], void> {
  const n = items.length;
  // One native sort when it is small, or when the loop is not shared (nothing to yield to).
  if (n <= SORT_CHUNK || currentSliceMs() === Infinity) return items.sort(cmp);
  for (let lo = 0; lo < n; lo += SORT_CHUNK) {
    const hi = Math.min(n, lo + SORT_CHUNK);
    const run = items.slice(lo, hi).sort(cmp);
    for (let k = lo; k < hi; k++) items[k] = run[k - lo];
    if (sliceUsed()) yield;
  }
  let src = items, dst = new Array<T>(n);
  for (let width = SORT_CHUNK; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width), hi = Math.min(n, lo + 2 * width);
      yield* merge(src, dst, lo, mid, hi, cmp);
    }
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}

/** Merges the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi); ties go left. */
function* merge<T>(
  src: T[],
  dst: T[],
  lo: number,
  mid: number,
  hi: number,
  cmp: (a: T, b: T) => number,
): Generator<void, void, void> {
  let k = lo;
  if (mid < hi && cmp(src[mid - 1], src[mid]) > 0) {
    let i = lo, j = mid;
    if (cmp(src[lo], src[hi - 1]) > 0) {
      // Every right item sorts before every left one (input in reverse order).
      while (j < hi) dst[k++] = src[j++];
      while (i < mid) dst[k++] = src[i++];
      return;
    }
    while (i < mid && j < hi) {
      dst[k++] = cmp(src[j], src[i]) < 0 ? src[j++] : src[i++];
      if ((k & (CHECK_EVERY - 1)) === 0 && sliceUsed()) yield;
    }
    while (i < mid) dst[k++] = src[i++];
    while (j < hi) dst[k++] = src[j++];
    return;
  }
  // Already in order (or a lone run at the end).
  for (let i = lo; i < hi; i++) dst[k++] = src[i];
}
