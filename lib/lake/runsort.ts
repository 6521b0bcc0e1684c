// A stable sort of indexes for inputs mostly in order already (log records
// arrive nearly sorted by time): runs already in order (or in reverse order)
// are found and merged, short runs first extended by insertion.
// Array.prototype.sort calls its comparator from a builtin, which costs more
// than the comparison itself when that is two numbers; here the comparator
// is a plain call the compiler can inline.

/** Runs shorter than this are extended by insertion before merging. */
const MIN_RUN = 32;

/** Sorts idx in place, stably, by cmp (negative: i before j). */
export function runSort(idx: Uint32Array, cmp: (i: number, j: number) => number): void {
  const n = idx.length;
  if (n < 2) return;
  // Runs: their starts, each extended to MIN_RUN (or the end) by insertion.
  const starts: number[] = [];
  let s = 0;
  while (s < n) {
    starts.push(s);
    let e = s + 1;
    if (e < n) {
      if (cmp(idx[s], idx[e]) > 0) {
        // A run in reverse order: no two are equal in it, so reversing it keeps the sort stable.
        e++;
        while (e < n && cmp(idx[e - 1], idx[e]) > 0) e++;
        idx.subarray(s, e).reverse();
      } else {
        e++;
        while (e < n && cmp(idx[e - 1], idx[e]) <= 0) e++;
      }
    }
    const want = Math.min(n, s + MIN_RUN);
    for (; e < want; e++) {
      const x = idx[e];
      let k = e - 1;
      while (k >= s && cmp(idx[k], x) > 0) {
        idx[k + 1] = idx[k];
        k--;
      }
      idx[k + 1] = x;
    }
    // Past MIN_RUN the run goes on while the next is in order.
    while (e < n && cmp(idx[e - 1], idx[e]) <= 0) e++;
    s = e;
  }
  if (starts.length === 1) return;
  starts.push(n);
  // Merge neighbouring runs pass by pass, between idx and a second array.
  let from: Uint32Array = idx, to: Uint32Array = new Uint32Array(n);
  let bounds = starts;
  while (bounds.length > 2) {
    const next: number[] = [];
    for (let r = 0; r + 1 < bounds.length; r += 2) {
      const a = bounds[r], m = bounds[r + 1];
      const b = r + 2 < bounds.length ? bounds[r + 2] : m;
      next.push(a);
      merge(from, to, a, m, b, cmp);
    }
    next.push(n);
    bounds = next;
    const t = from;
    from = to;
    to = t;
  }
  if (from !== idx) idx.set(from);
}

/**
 * Merges from[a, m) and from[m, b) into to[a, b); ties keep the left run's
 * first. What of the left run comes before the right run's first, and what
 * of the right run comes after the left run's last, is found by binary
 * search and copied: runs of nearly sorted input overlap only a little.
 */
function merge(
  from: Uint32Array,
  to: Uint32Array,
  a: number,
  m: number,
  b: number,
  cmp: (i: number, j: number) => number,
): void {
  if (m >= b || cmp(from[m - 1], from[m]) <= 0) {
    to.set(from.subarray(a, b), a);
    return;
  }
  // The first of the left run after the right run's first...
  const head = from[m];
  let lo = a, hi = m;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(from[mid], head) > 0) hi = mid;
    else lo = mid + 1;
  }
  const i0 = lo;
  // ...and the first of the right run not before the left run's last.
  const tail = from[m - 1];
  lo = m;
  hi = b;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(from[mid], tail) >= 0) hi = mid;
    else lo = mid + 1;
  }
  const j1 = lo;
  to.set(from.subarray(a, i0), a);
  let i = i0, j = m, k = i0;
  while (i < m && j < j1) {
    if (cmp(from[j], from[i]) < 0) to[k++] = from[j++];
    else to[k++] = from[i++];
  }
  while (i < m) to[k++] = from[i++];
  while (j < j1) to[k++] = from[j++];
  to.set(from.subarray(j1, b), k);
}
