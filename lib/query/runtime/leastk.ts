// The k least items offered, by a comparator: a heap whose root is the
// greatest of them, so an item that does not come before it is turned away
// at one comparison. (An item equal to the greatest is turned away too: the
// earlier one stays, as a stable sort keeps it first.)

export class LeastK<T> {
  private items: T[] = [];

  constructor(private cmp: (a: T, b: T) => number, private k: number) {}

  get size(): number {
    return this.items.length;
  }

  /** The greatest item kept (the k-th least once k are kept); undefined when none. */
  get greatest(): T | undefined {
    return this.items[0];
  }

  offer(x: T): void {
    const items = this.items, cmp = this.cmp;
    if (items.length < this.k) {
      items.push(x);
      let i = items.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (cmp(items[i], items[p]) <= 0) break;
        const t = items[i];
        items[i] = items[p];
        items[p] = t;
        i = p;
      }
      return;
    }
    if (this.k === 0 || cmp(x, items[0]) >= 0) return;
    items[0] = x;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < items.length && cmp(items[l], items[m]) > 0) m = l;
      if (r < items.length && cmp(items[r], items[m]) > 0) m = r;
      if (m === i) return;
      const t = items[i];
      items[i] = items[m];
      items[m] = t;
      i = m;
    }
  }

  /** The items kept, least first. */
  sorted(): T[] {
    return this.items.slice().sort(this.cmp);
  }
}
