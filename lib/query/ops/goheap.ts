// The sift steps of Go's container/heap, over anything that can compare and
// swap two of its places: `top` keeps its values this way, so which of equal
// values it keeps, and the order it emits them in, are the reference's. The
// lake runs the same heap over column rows (lake/topheap.ts).

/** A heap's places, by index: Go's heap.Interface, less its Push and Pop. */
export interface HeapPlaces {
  less(i: number, j: number): boolean;
  swap(i: number, j: number): void;
}

/** Moves place j up to where it belongs (Go's heap.up). */
export function heapUp(h: HeapPlaces, j: number): void {
  for (;;) {
    const i = (j - 1) >> 1;
    if (j <= 0 || i === j || !h.less(j, i)) break;
    h.swap(i, j);
    j = i;
  }
}

/** Moves place i0 down among the first n places (Go's heap.down). */
export function heapDown(h: HeapPlaces, i0: number, n: number): void {
  let i = i0;
  for (;;) {
    const j1 = 2 * i + 1;
    if (j1 >= n || j1 < 0) break;
    let j = j1;
    const j2 = j1 + 1;
    if (j2 < n && h.less(j2, j1)) j = j2;
    if (!h.less(j, i)) break;
    h.swap(i, j);
    i = j;
  }
}
