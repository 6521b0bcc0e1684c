// CSV input (formats.md §6.2): the quote repair (repair.ts) feeds Go-style
// CSV tokenizing (tokenizer.ts); the first record is the header and every
// later one a record whose cells are typed one by one: empty is null, a Go
// float is float64, a Go bool is bool, anything else a string (kept as read,
// not NFC-normalized).
//
// papaparse is not used: the reference's semantics (the repair pass over the
// raw bytes, TrimLeadingSpace over Unicode spaces, strict quote errors and
// their line/column texts) are not options of it, and the tokenizer those
// rules need is small.

import { messageOf } from "../../errors.ts";
import { invalid } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { parseGoFloat } from "../../zed/float.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import {
  type RecordType,
  type Type,
  TypeBool,
  TypeFloat64,
  TypeNull,
  TypeString,
} from "../../zed/types.ts";
import { compareStrings } from "../../zed/utf8.ts";
import { type Batch, type Body, Value } from "../../zed/value.ts";
import {
  BATCH_SIZE,
  type Detection,
  NeedMore,
  ReadEnd,
  type TextInput,
  type ValueReader,
} from "../io.ts";
import { repairQuotes } from "./repair.ts";
import { CsvTokenizer } from "./tokenizer.ts";

/** Go's strconv.ParseBool. */
const goBools = new Map<string, boolean>([
  ["1", true],
  ["t", true],
  ["T", true],
  ["TRUE", true],
  ["true", true],
  ["True", true],
  ["0", false],
  ["f", false],
  ["F", false],
  ["FALSE", false],
  ["false", false],
  ["False", false],
]);

// Cell kinds, indexes into cellTypes.
const NULL = 0;
const FLOAT = 1;
const BOOL = 2;
const STRING = 3;
const cellTypes: Type[] = [TypeNull, TypeFloat64, TypeBool, TypeString];

/**
 * The synchronous core shared by the reader and the detector: repaired text
 * goes in, values come out; next() throws NeedMore when it runs out of text.
 */
export class CsvDecoder {
  private tok = new CsvTokenizer();
  private header: string[] | null = null;
  /** Go reports a duplicate header name only when a data record is built. */
  private duplicate: string | undefined;
  private valid = false;
  /** Record types by their cells' kinds. */
  private types = new Map<number | string, RecordType>();
  private kinds: number[] = [];
  private repaired: string[] = [];

  /** Repairs raw[pos..] and queues it; returns how far raw was consumed. */
  feed(raw: string, pos: number, eof: boolean): number {
    const out = this.repaired;
    out.length = 0;
    const end = repairQuotes(raw, pos, eof, out);
    this.tok.append(out.length === 1 ? out[0] : out.join(""), eof && end === raw.length);
    out.length = 0;
    return end;
  }

  /** Repaired text queued but not yet read. */
  get pending(): number {
    return this.tok.pending;
  }

  /** Whether all of the input has been fed. */
  get eof(): boolean {
    return this.tok.eof;
  }

  /** The next record, or null at the end. */
  next(): Value | null {
    for (;;) {
      const fields = this.tok.record();
      if (fields === null) {
        if (!this.valid) throw invalid("empty csv file");
        return null;
      }
      if (this.header === null) {
        this.header = fields.slice();
        this.duplicate = duplicateName(this.header);
        continue;
      }
      if (this.duplicate !== undefined) {
        throw invalid(`duplicate field: ${quoteGoString(this.duplicate)}`);
      }
      this.valid = true;
      return this.record(fields);
    }
  }

  private record(fields: string[]): Value {
    const n = fields.length;
    const body: Body[] = new Array(n);
    const kinds = this.kinds;
    kinds.length = n;
    for (let i = 0; i < n; i++) {
      const s = fields[i];
      let kind = STRING;
      let b: Body = s;
      if (s.length === 0) {
        kind = NULL;
        b = null;
      } else {
        const f = mayBeFloat(s.charCodeAt(0)) ? parseGoFloat(s) : undefined;
        if (f !== undefined) {
          kind = FLOAT;
          b = f;
        } else {
          const v = s.length <= 5 ? goBools.get(s) : undefined;
          if (v !== undefined) {
            kind = BOOL;
            b = v;
          }
        }
      }
      body[i] = b;
      kinds[i] = kind;
    }
    return new Value(this.recordType(kinds), body);
  }

  /** The record type of the header with cells of these kinds. */
  private recordType(kinds: number[]): RecordType {
    const n = kinds.length;
    // Up to 26 columns the kinds pack into one safe integer (2 bits each).
    let key: number | string;
    if (n <= 26) {
      key = 0;
      for (let i = 0; i < n; i++) key = key * 4 + kinds[i];
    } else {
      key = kinds.join("");
    }
    let t = this.types.get(key);
    if (t === undefined) {
      t = zctx.lookupRecordOf(this.header!, kinds.map((k) => cellTypes[k]));
      this.types.set(key, t);
    }
    return t;
  }
}

/** Whether a string starting with code unit c can be a Go float (digit, sign, dot, inf, nan). */
function mayBeFloat(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e ||
    (c | 0x20) === 0x69 || (c | 0x20) === 0x6e;
}

/** The duplicate the reference reports: the least duplicated name in byte order. */
function duplicateName(names: string[]): string | undefined {
  if (names.length < 2) return undefined;
  const sorted = names.slice().sort(compareStrings);
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) return sorted[i];
  return undefined;
}

export class CsvReader implements ValueReader {
  private readonly end = new ReadEnd();
  private decoder = new CsvDecoder();

  constructor(private input: TextInput) {}

  async read(): Promise<Batch | null> {
    if (this.end.ended()) return null;
    const batch: Value[] = [];
    while (batch.length < BATCH_SIZE) {
      let v: Value | null;
      try {
        v = this.decoder.next();
      } catch (e) {
        if (e instanceof NeedMore) {
          // Deliver what is complete before waiting for more input.
          if (batch.length > 0) return batch;
          await this.refill();
          continue;
        }
        return this.end.fail(e, batch);
      }
      if (v === null) {
        this.end.done = true;
        break;
      }
      batch.push(v);
    }
    return batch.length > 0 ? batch : null;
  }

  /**
   * Feeds at least as much text again as is waiting, so a record that spans
   * many chunks is re-tokenized a logarithmic number of times.
   */
  private async refill(): Promise<void> {
    const input = this.input;
    const dec = this.decoder;
    const waiting = dec.pending;
    do {
      await input.more();
      input.pos = dec.feed(input.text, input.pos, input.eof);
    } while (!dec.eof && dec.pending <= 2 * waiting);
  }
}

/**
 * The reference's CSV detector (formats.md §8): the first line must end in a
 * newline and contain a comma, and then one value must read.
 */
export function detectCsv(text: string, eof: boolean, _bytes?: Uint8Array): Detection {
  const nl = text.indexOf("\n");
  if (nl < 0) return eof ? { ok: false, error: "line 1: EOF" } : { ok: "more" };
  const comma = text.indexOf(",");
  if (comma < 0 || comma > nl) return { ok: false, error: "line 1: no comma found" };
  const dec = new CsvDecoder();
  dec.feed(text, 0, eof);
  try {
    dec.next();
  } catch (e) {
    if (e instanceof NeedMore) return { ok: "more" };
    return { ok: false, error: messageOf(e) };
  }
  return { ok: true };
}
