// Line input (`-i line`, formats.md §9): each line is a string value, as Go's
// bufio.Scanner splits lines: the `\n` is removed and so is one `\r` before
// it (or at the very end), a last line without a newline still counts, and a
// line longer than the scanner's 64 KiB buffer is an error.

import { invalid } from "../../errors.ts";
import { TypeString } from "../../zed/types.ts";
import { utf8Length } from "../../zed/utf8.ts";
import { type Batch, Value } from "../../zed/value.ts";
import { BATCH_SIZE, ReadEnd, type TextInput, type ValueReader } from "../io.ts";

/** The most bytes a line may have (Go's bufio.MaxScanTokenSize less the newline). */
const MAX_LINE = 64 * 1024 - 1;

/** Whether text[from..to) has more than MAX_LINE bytes. */
function tooLong(text: string, from: number, to: number): boolean {
  // A UTF-16 code unit is at most 3 UTF-8 bytes; only long lines are measured.
  const n = to - from;
  if (n <= MAX_LINE / 3) return false;
  return n > MAX_LINE || utf8Length(text.slice(from, to)) > MAX_LINE;
}

const CR = 0x0d;

export class LineReader implements ValueReader {
  private readonly end = new ReadEnd();

  constructor(private input: TextInput) {}

  async read(): Promise<Batch | null> {
    if (this.end.ended()) return null;
    const input = this.input;
    const batch: Value[] = [];
    for (;;) {
      const text = input.text;
      let p = input.pos;
      while (batch.length < BATCH_SIZE) {
        const nl = text.indexOf("\n", p);
        if (nl < 0) break;
        if (tooLong(text, p, nl)) return this.fail(batch, p);
        const end = nl > p && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
        batch.push(new Value(TypeString, text.slice(p, end)));
        p = nl + 1;
      }
      input.pos = p;
      if (batch.length >= BATCH_SIZE) return batch;
      const n = text.length;
      // What is left is part of a line; it may already be too long.
      if (tooLong(text, p, n)) return this.fail(batch, p);
      if (input.eof) {
        if (p < n) {
          const end = text.charCodeAt(n - 1) === CR ? n - 1 : n;
          batch.push(new Value(TypeString, text.slice(p, end)));
          input.pos = n;
        }
        this.end.done = true;
        return batch.length > 0 ? batch : null;
      }
      if (batch.length > 0) return batch;
      await input.more();
    }
  }

  /** Reports the scanner's error after the lines before it. */
  private fail(batch: Value[], pos: number): Batch {
    this.input.pos = pos;
    const err = invalid("bufio.Scanner: token too long");
    return this.end.fail(err, batch);
  }
}
