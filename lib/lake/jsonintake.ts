// A JSON load read through the transcoder (formats/json/transcode.ts): the
// input's bytes go straight into a load's sort buffer, encoded, with no
// Value per record. A value the transcoder leaves alone is parsed by itself
// (its bytes found by their brackets) and added as a Value; one that does
// not parse — an error, or text that is not a JSON object — ends this
// path: the bytes from there on are put back into the input for the
// reader, which reads them as it would have read the whole input (with its
// errors, and a part's continuation).

import type { ByteInput } from "../formats/io.ts";
import { isWs, JsonParser } from "../formats/json/parser.ts";
import { Bail, JsonTranscoder, Short } from "../formats/json/transcode.ts";
import type { ValueReader } from "../formats/io.ts";
import type { Value } from "../zed/value.ts";
import type { PoolKey } from "./poolkey.ts";
import type { SortBuffer } from "./sortbuffer.ts";

/** Bytes read at a time (at least; more when one value is longer). */
const WINDOW = 1 << 20;

/**
 * The end of the object at b[i] (after its `}`); -1 when it runs past end;
 * -2 when b[i] does not start an object.
 */
export function objectEnd(b: Uint8Array, i: number, end: number): number {
  if (b[i] !== 123) return -2;
  let depth = 0;
  for (; i < end; i++) {
    const c = b[i];
    if (c === 34) {
      for (i++; i < end; i++) {
        const x = b[i];
        if (x === 92) i++;
        else if (x === 34) break;
      }
    } else if (c === 123 || c === 91) {
      depth++;
    } else if (c === 125 || c === 93) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

export class JsonIntake {
  private win: Uint8Array = new Uint8Array(0);
  private at = 0;
  private end = 0;
  private eof = false;
  private transcoder = new JsonTranscoder();
  private parser = new JsonParser();
  private decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** The input has been read to its end. */
  done = false;
  /** The rest of the input was put back for the reader. */
  handedOver = false;

  private constructor(private input: ByteInput, private key: PoolKey) {}

  /** An intake for reader's input, when reader is a JSON reader that has read nothing. */
  static async of(reader: ValueReader, key: PoolKey): Promise<JsonIntake | null> {
    const input = await reader.jsonInput?.() ?? null;
    return input === null ? null : new JsonIntake(input, key);
  }

  /**
   * Adds the values in the bytes read so far to buf, returning how many;
   * stops early once buf holds more than limit bytes of bodies (and more
   * than one value). Call more() when it stopped for want of bytes (not
   * done or handed over, and buf not full).
   */
  take(buf: SortBuffer, limit: number): number {
    let n = 0;
    const b = this.win, end = this.end;
    for (;;) {
      let i = this.at;
      while (i < end && isWs(b[i])) i++;
      this.at = i;
      if (i >= end) {
        if (this.eof) this.done = true;
        return n;
      }
      const w = buf.begin();
      try {
        const t = this.transcoder.value(b, i, end, this.eof, w);
        buf.addedEncoded(t, this.key);
        this.at = this.transcoder.next;
      } catch (e) {
        buf.dropped();
        if (e instanceof Short) return n;
        if (!(e instanceof Bail)) throw e;
        const v = this.parseAlone(i);
        if (v === undefined) return n;
        if (v === null) {
          this.input.unread(b.subarray(i, end));
          this.handedOver = true;
          return n;
        }
        buf.add(v, this.key.keyOf(v));
      }
      n++;
      if (buf.bodyBytes > limit && buf.length > 1) return n;
    }
  }

  /**
   * The object at i parsed by itself (the position then past it); undefined
   * when its end is past the bytes read so far; null when it does not
   * parse by itself (the reader is to read on from there).
   */
  private parseAlone(i: number): Value | null | undefined {
    const e = objectEnd(this.win, i, this.end);
    if (e === -1) return this.eof ? null : undefined;
    if (e < 0) return null;
    const text = this.decoder.decode(this.win.subarray(i, e));
    const out: Value[] = [];
    const parser = this.parser;
    try {
      parser.reset(text, 0, true);
      parser.parseValues(out, 1);
    } catch {
      return null;
    }
    if (out.length !== 1 || parser.pos !== text.length || parser.truncated) return null;
    this.at = e;
    return out[0];
  }

  /** Reads more bytes, keeping those of a value not yet taken (put back, read with the rest). */
  async more(): Promise<void> {
    const carry = this.win.subarray(this.at, this.end);
    this.input.unread(carry);
    const [win, eof] = await this.input.readAtLeast(Math.max(WINDOW, 2 * carry.length));
    this.win = win;
    this.at = 0;
    this.end = win.length;
    this.eof = eof;
  }
}
