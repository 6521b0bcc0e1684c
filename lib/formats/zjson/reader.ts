// ZJSON input (formats.md §3.5): one JSON object per line. Lines are split
// the way the reference's line scanner does: `\r\n` counts as a newline,
// blank lines are skipped but counted for error line numbers, and a line too
// long for its 50 MiB buffer is skipped silently.

import { messageOf } from "../../errors.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { BATCH_SIZE, type Detection, type TextInput, type ValueReader } from "../io.ts";
import { ZjsonDecoder } from "./decoder.ts";
import { goJsonSyntaxError } from "./gojson.ts";

/** The reference's maximum line length (measured here in UTF-16 units, not bytes). */
const MAX_LINE = 50 * 1024 * 1024;

/** The scanner treats an unterminated last line (text[start:]) of at most one byte as blank. */
function blankLastLine(text: string, start: number): boolean {
  const n = text.length - start;
  return n === 0 || (n === 1 && text.charCodeAt(start) < 0x80);
}

export class ZjsonReader implements ValueReader {
  private decoder = new ZjsonDecoder();
  /** Lines scanned so far, blank ones included (the reference's line count). */
  private lineNo = 0;
  /** In the middle of discarding a too-long line. */
  private skipping = false;
  /** An error met after some values of a batch, thrown on the next read. */
  private failure: unknown = undefined;

  constructor(private input: TextInput) {}

  async read(): Promise<Batch | null> {
    if (this.failure !== undefined) throw this.failure;
    const batch: Value[] = [];
    try {
      await this.fill(batch);
    } catch (e) {
      // The values before the bad line are delivered first, as the reference
      // reader would have returned them one by one.
      if (batch.length === 0) throw e;
      this.failure = e;
    }
    return batch.length > 0 ? batch : null;
  }

  private async fill(batch: Value[]): Promise<void> {
    const inp = this.input;
    while (batch.length < BATCH_SIZE) {
      const text = inp.text;
      const nl = text.indexOf("\n", inp.pos);
      if (this.skipping) {
        if (nl >= 0) {
          inp.pos = nl + 1;
          this.skipping = false;
          continue;
        }
        inp.pos = text.length;
        if (inp.eof) break;
        await inp.more();
        continue;
      }
      if ((nl < 0 ? text.length : nl) - inp.pos >= MAX_LINE) {
        this.lineNo++;
        this.skipping = true;
        continue;
      }
      if (nl < 0) {
        if (!inp.eof) {
          await inp.more();
          continue;
        }
        if (inp.pos >= text.length) break;
        const start = inp.pos;
        inp.pos = text.length;
        this.lineNo++;
        if (!blankLastLine(text, start)) {
          batch.push(this.decoder.decodeLine(text, start, text.length, this.lineNo, false));
        }
        continue;
      }
      let end = nl;
      if (end > inp.pos && text.charCodeAt(end - 1) === 0x0d) end--;
      const start = inp.pos;
      inp.pos = nl + 1;
      this.lineNo++;
      if (end === start) continue;
      batch.push(this.decoder.decodeLine(text, start, end, this.lineNo, true));
    }
  }
}

/**
 * Format detection (formats.md §8): the first value must decode. Plain JSON
 * objects fail (`line 1: cannot unpack non-object JSON value`).
 */
export function detectZjson(text: string, eof: boolean): Detection {
  const decoder = new ZjsonDecoder();
  let pos = 0;
  let lineNo = 0;
  for (;;) {
    const nl = text.indexOf("\n", pos);
    lineNo++;
    let end: number;
    if (nl < 0) {
      if (!eof) {
        // A syntax error before the end of the prefix stays an error however
        // the line continues, so garbage is rejected without reading more.
        const err = pos < text.length ? goJsonSyntaxError(text.slice(pos)) : undefined;
        if (err !== undefined && err !== "unexpected end of JSON input") {
          return { ok: false, error: `line ${lineNo}: ${err}` };
        }
        return { ok: "more" };
      }
      if (blankLastLine(text, pos)) return { ok: true };
      end = text.length;
    } else {
      end = nl;
      if (end > pos && text.charCodeAt(end - 1) === 0x0d) end--;
      if (end === pos) {
        pos = nl + 1;
        continue;
      }
    }
    try {
      decoder.decodeLine(text, pos, end, lineNo, nl >= 0);
      return { ok: true };
    } catch (e) {
      return { ok: false, error: messageOf(e) };
    }
  }
}
