// K-way merge of sorted runs. Runs are numbered in input order (the order
// they were spilled), and entries that compare equal come out in run order,
// so merging stably sorted runs gives the stable sort of the whole input.

import { type RunReader, SpillFile, type ValueIn, type ValueOut } from "./file.ts";

/** A sorted run being read: its current entry, undefined once exhausted. */
export interface RunSource<E> {
  readonly head: E | undefined;
  advance(): void;
  close(): void;
}

/** A run held in memory. */
export class ArraySource<E> implements RunSource<E> {
  private pos = 0;
  constructor(private items: E[]) {}
  get head(): E | undefined {
    return this.pos < this.items.length ? this.items[this.pos] : undefined;
  }
  advance(): void {
    this.pos++;
  }
  close(): void {
    this.items = [];
    this.pos = 0;
  }
}

/** Reads one entry from a spill file's values; undefined at the end. */
export type EntryReader<E> = (r: ValueIn) => E | undefined;

/** A run read back from a spill file. */
export class FileSource<E> implements RunSource<E> {
  private reader: RunReader;
  head: E | undefined;
  constructor(file: SpillFile, private readonly read: EntryReader<E>) {
    this.reader = file.reader();
    this.head = read(this.reader);
  }
  advance(): void {
    this.head = this.read(this.reader);
  }
  close(): void {
    this.head = undefined;
    this.reader.close();
  }
}

export class Merger<E> implements Iterable<E> {
  /** Indexes of the sources with entries left, as a binary min-heap. */
  private heap: number[] = [];

  constructor(
    private readonly sources: RunSource<E>[],
    private readonly cmp: (a: E, b: E) => number,
  ) {
    for (let i = 0; i < sources.length; i++) {
      if (sources[i].head !== undefined) this.push(i);
    }
  }

  /** The next entry in order, or undefined when every run is exhausted. */
  next(): E | undefined {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const i = heap[0];
    const src = this.sources[i];
    const e = src.head;
    src.advance();
    if (src.head === undefined) {
      const last = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = last;
        this.down(0);
      }
    } else {
      this.down(0);
    }
    return e;
  }

  *[Symbol.iterator](): Iterator<E> {
    for (let e = this.next(); e !== undefined; e = this.next()) yield e;
  }

  /** The entry next() would return, without taking it. */
  peek(): E | undefined {
    return this.heap.length === 0 ? undefined : this.sources[this.heap[0]].head;
  }

  /** Closes every run. */
  close(): void {
    for (const s of this.sources) s.close();
    this.heap = [];
  }

  private less(i: number, j: number): boolean {
    const c = this.cmp(this.sources[i].head!, this.sources[j].head!);
    return c < 0 || (c === 0 && i < j);
  }

  private push(i: number): void {
    const heap = this.heap;
    heap.push(i);
    let k = heap.length - 1;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (!this.less(heap[k], heap[p])) break;
      [heap[k], heap[p]] = [heap[p], heap[k]];
      k = p;
    }
  }

  private down(k: number): void {
    const heap = this.heap, n = heap.length;
    for (;;) {
      const l = 2 * k + 1, r = l + 1;
      let m = k;
      if (l < n && this.less(heap[l], heap[m])) m = l;
      if (r < n && this.less(heap[r], heap[m])) m = r;
      if (m === k) return;
      [heap[k], heap[m]] = [heap[m], heap[k]];
      k = m;
    }
  }
}

/** Runs of one level merged into one of the next level (see compactNewest). */
export const FANIN = 32;

/** A spilled run; level 0 when spilled, one more than its inputs when merged from runs. */
export interface LeveledRun {
  level: number;
}

/**
 * Keeps the number of runs small without rewriting much: whenever the
 * newest FANIN runs have the same level (and can be merged), they are merged
 * into one run of the next level in their place, so runs stay in input
 * order and each value is rewritten once per level.
 */
export function compactNewest<R extends LeveledRun>(
  runs: R[],
  compatible: (a: R, b: R) => boolean,
  merge: (group: R[]) => R,
): void {
  for (;;) {
    const n = runs.length;
    if (n < FANIN) return;
    const last = runs[n - 1];
    for (let i = n - FANIN; i < n - 1; i++) {
      if (runs[i].level !== last.level || !compatible(runs[i], last)) return;
    }
    const merged = merge(runs.slice(n - FANIN));
    merged.level = last.level + 1;
    runs.splice(n - FANIN, FANIN, merged);
  }
}

/** How entries are written to and read from spill files. */
export interface EntryCodec<E> {
  read: EntryReader<E>;
  write(w: ValueOut, e: E): void;
}

/** Writes entries to a new spill file as one run. */
export function writeRun<E>(entries: Iterable<E>, codec: EntryCodec<E>): SpillFile {
  const f = SpillFile.create();
  const w = f.writer();
  try {
    for (const e of entries) codec.write(w, e);
    w.close();
  } catch (e) {
    f.remove();
    throw e;
  }
  return f;
}

/**
 * Merges consecutive sorted runs into one new run (so the merge order, and
 * with it stability, is kept) and removes them.
 */
export function compactRuns<E>(
  files: SpillFile[],
  codec: EntryCodec<E>,
  cmp: (a: E, b: E) => number,
): SpillFile {
  const merger = new Merger(files.map((f) => new FileSource(f, codec.read)), cmp);
  let out: SpillFile;
  try {
    out = writeRun(merger, codec);
  } finally {
    merger.close();
  }
  for (const f of files) f.remove();
  return out;
}
