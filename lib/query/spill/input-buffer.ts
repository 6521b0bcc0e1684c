// One input of an operator that must hold all of it before it can start (a
// join's left or right): values in arrival order, in memory and, once
// spilled, in a temporary file before them; read back once, in order.

import type { Batch, Value } from "../../zed/value.ts";
import { type RunReader, type RunWriter, SpillFile } from "./file.ts";

/** Reads the values held, in order: head is the current one, undefined at the end. */
export class InputCursor {
  head: Value | undefined;
  private pos = 0;

  constructor(private reader: RunReader | null, private readonly vals: Value[]) {
    this.advance();
  }

  advance(): void {
    if (this.reader !== null) {
      this.head = this.reader.next();
      if (this.head !== undefined) return;
      this.reader = null;
    }
    this.head = this.pos < this.vals.length ? this.vals[this.pos++] : undefined;
  }
}

export class InputBuffer {
  private vals: Value[] = [];
  private file: SpillFile | null = null;
  private writer: RunWriter | null = null;

  push(batch: Batch): void {
    const vals = this.vals;
    for (let i = 0; i < batch.length; i++) vals.push(batch[i]);
  }

  /** Moves the values held in memory to the file. */
  spill(): void {
    if (this.vals.length === 0) return;
    if (this.writer === null) {
      this.file = SpillFile.create();
      this.writer = this.file.writer();
    }
    for (const v of this.vals) this.writer.write(v);
    this.vals = [];
  }

  /** A cursor over everything pushed (call once, after the last push). */
  cursor(): InputCursor {
    let reader: RunReader | null = null;
    if (this.writer !== null) {
      this.writer.close();
      this.writer = null;
      reader = this.file!.reader();
    }
    return new InputCursor(reader, this.vals);
  }

  /** Removes the file, if any, and drops the values. */
  close(): void {
    this.file?.remove();
    this.file = null;
    this.writer = null;
    this.vals = [];
  }
}
