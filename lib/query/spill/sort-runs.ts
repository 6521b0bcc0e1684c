// The spilled runs of a sort: entries of the sort keys then the value, each
// run stably sorted, merged at the end with ties going to the earlier run.
//
// When every primary key of the input is an integer, the keys compare as
// numbers (as the reference does); otherwise in the general order, where
// int8 and uint8 compare byte-wise. In memory the whole input decides, so a
// run is sorted numerically while all the input so far had integer keys,
// and when later input turns out not to, the runs sorted numerically that
// hold int8 or uint8 keys are sorted again before the merge. (Ties are the
// same in both orders, so re-sorting a run stably keeps the input order of
// ties.) Runs are merged in stages only with runs sorted the same way.

import type { Value } from "../../zed/value.ts";
import { entryComparator, type SortOptions } from "../ops/sort.ts";
import type { SpillFile } from "./file.ts";
import {
  ArraySource,
  compactNewest,
  compactRuns,
  type EntryCodec,
  FileSource,
  Merger,
  type RunSource,
  writeRun,
} from "./merge.ts";
import { valueSize } from "./size.ts";
import { tupleCodec } from "./tuples.ts";

interface Run {
  file: SpillFile;
  level: number;
  /** Sorted with integer primary keys compared as numbers. */
  native: boolean;
  /** Holds int8 or uint8 primary keys (whose order differs between the two). */
  small: boolean;
}

/** Sorted entries held in memory, in the form sorts hand over. */
export interface SortedEntries {
  entries: Value[][];
  native: boolean;
  small: boolean;
}

export class SortRuns {
  private runs: Run[] = [];
  private readonly codec: EntryCodec<Value[]>;

  constructor(
    private readonly nk: number,
    private readonly opts: SortOptions,
    private readonly budget: number,
  ) {
    this.codec = tupleCodec(nk + 1);
  }

  /** Writes sorted entries as the next run. */
  add(s: SortedEntries): void {
    const file = writeRun(s.entries, this.codec);
    this.runs.push({ file, level: 0, native: s.native, small: s.small });
    compactNewest(this.runs, (a, b) => a.native === b.native, (group) => this.combine(group));
  }

  /**
   * A merge of the runs and then the entries still in memory (sorted
   * numerically only if all the input was: the order is the last one's).
   */
  merge(tail: SortedEntries | undefined): Merger<Value[]> {
    const native = tail?.native ?? this.runs[this.runs.length - 1].native;
    if (!native) this.resortNumeric();
    const sources: RunSource<Value[]>[] = this.runs.map((r) =>
      new FileSource(r.file, this.codec.read)
    );
    if (tail !== undefined) sources.push(new ArraySource(tail.entries));
    return new Merger(sources, entryComparator(this.nk, native, this.opts));
  }

  /** Removes every run file. */
  close(): void {
    for (const r of this.runs) r.file.remove();
    this.runs = [];
  }

  /** Merges runs sorted the same way into one. */
  private combine(group: Run[]): Run {
    const native = group[0].native;
    const file = compactRuns(
      group.map((r) => r.file),
      this.codec,
      entryComparator(this.nk, native, this.opts),
    );
    return { file, level: 0, native, small: group.some((r) => r.small) };
  }

  /**
   * Re-sorts, in the general order, the runs sorted numerically whose order
   * differs in it, in chunks of the budget (each chunk a run of its own).
   */
  private resortNumeric(): void {
    const out: Run[] = [];
    for (const r of this.runs) {
      if (!r.native || !r.small) {
        out.push(r);
        continue;
      }
      const src = new FileSource(r.file, this.codec.read);
      try {
        let chunk: Value[][] = [];
        let bytes = 0;
        for (; src.head !== undefined; src.advance()) {
          const e = src.head;
          chunk.push(e);
          bytes += valueSize(e[this.nk]);
          if (bytes > this.budget) {
            out.push(this.chunkRun(chunk));
            chunk = [];
            bytes = 0;
          }
        }
        if (chunk.length > 0) out.push(this.chunkRun(chunk));
      } finally {
        src.close();
      }
      r.file.remove();
    }
    this.runs = out;
  }

  /** A chunk of a run sorted numerically, sorted (stably) in the general order, as a run. */
  private chunkRun(chunk: Value[][]): Run {
    chunk.sort(entryComparator(this.nk, false, this.opts));
    return { file: writeRun(chunk, this.codec), level: 0, native: false, small: false };
  }
}
