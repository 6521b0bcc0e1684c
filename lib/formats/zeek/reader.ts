// Zeek TSV input (formats.md §9): lines are read as the reference's scanner
// reads them (CRLF ends a line like LF; lines of at most one byte, newline
// included, are skipped), `#` lines are header directives and the rest are
// records. Errors name the line, counting skipped ones.

import { invalid, messageOf } from "../../errors.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { BATCH_SIZE, type Detection, ReadEnd, type TextInput, type ValueReader } from "../io.ts";
import { ZeekParser } from "./parser.ts";

const enum Scan {
  /** `line` holds the next line. */
  Line,
  /** The text ends in the middle of a line. */
  More,
  /** The input is exhausted. */
  End,
}

/** Walks the lines of a text buffer. */
class LineScanner {
  text = "";
  pos = 0;
  eof = false;
  line = "";
  /** A line the reference skips as blank. */
  blank = false;

  next(): Scan {
    const text = this.text, pos = this.pos;
    if (pos >= text.length) return this.eof ? Scan.End : Scan.More;
    const nl = text.indexOf("\n", pos);
    if (nl < 0) {
      if (!this.eof) return Scan.More;
      // A last line without a newline is kept as it is.
      const line = text.slice(pos);
      this.pos = text.length;
      this.line = line;
      this.blank = line.length === 0 || (line.length === 1 && line.charCodeAt(0) < 0x80);
      return Scan.Line;
    }
    const end = nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    this.line = text.slice(pos, end);
    this.pos = nl + 1;
    this.blank = end === pos;
    return Scan.Line;
  }
}

/** Applies one line to the parser: the record it holds, or null for a header or blank line. */
function parseLine(parser: ZeekParser, s: LineScanner, lineNo: number): Value | null {
  if (s.blank) return null;
  try {
    if (s.line.charCodeAt(0) === 35) {
      parser.parseDirective(s.line);
      return null;
    }
    return parser.parseValue(s.line);
  } catch (e) {
    throw invalid(`line ${lineNo}: ${messageOf(e)}`);
  }
}

export class ZeekReader implements ValueReader {
  private readonly end = new ReadEnd();
  private parser = new ZeekParser();
  private scanner = new LineScanner();
  /** Lines read so far. */
  private lines = 0;

  constructor(private input: TextInput) {}

  async read(): Promise<Batch | null> {
    if (this.end.ended()) return null;
    const input = this.input;
    const s = this.scanner;
    const batch: Value[] = [];
    for (;;) {
      s.text = input.text;
      s.pos = input.pos;
      s.eof = input.eof;
      let r = Scan.Line;
      try {
        while (batch.length < BATCH_SIZE) {
          r = s.next();
          if (r !== Scan.Line) break;
          const v = parseLine(this.parser, s, ++this.lines);
          if (v !== null) batch.push(v);
        }
      } catch (e) {
        input.pos = s.pos;
        // Values before the bad line are delivered first.
        return this.end.fail(e, batch);
      }
      input.pos = s.pos;
      if (batch.length >= BATCH_SIZE) return batch;
      if (r === Scan.End) {
        this.end.done = true;
        return batch.length > 0 ? batch : null;
      }
      // Deliver what is complete before waiting for more input.
      if (batch.length > 0) return batch;
      await input.more();
    }
  }
}

/**
 * Whether text (a prefix of the input; all of it when eof) starts as a Zeek
 * log: the reference's detector reads one record (or reaches the end).
 */
export function detectZeek(text: string, eof: boolean, _bytes?: Uint8Array): Detection {
  const parser = new ZeekParser();
  const s = new LineScanner();
  s.text = text;
  s.eof = eof;
  let lines = 0;
  for (;;) {
    const r = s.next();
    if (r === Scan.End) return { ok: true };
    if (r === Scan.More) return { ok: "more" };
    try {
      if (parseLine(parser, s, ++lines) !== null) return { ok: true };
    } catch (e) {
      return { ok: false, error: messageOf(e) };
    }
  }
}
