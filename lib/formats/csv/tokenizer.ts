// CSV records as Go's encoding/csv reads them with the options the reference
// sets (comma `,`, TrimLeadingSpace, strict quotes, the field count fixed by
// the first record), including its error texts and positions. It runs over
// the output of the quote repair (repair.ts), incrementally: record() throws
// NeedMore when the text ends inside a record and more may follow.
//
// Go's reader works line by line: `\r\n` counts as `\n`, a `\r` just before
// the end of the input is dropped, and empty lines are skipped. A quoted
// field may span lines. Error columns count UTF-8 bytes from the start of the
// line, starting at 1.

import { invalid } from "../../errors.ts";
import { utf8Length } from "../../zed/utf8.ts";
import { NeedMore } from "../io.ts";
import { isGoSpace } from "./gospace.ts";

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;

const ERR_BARE_QUOTE = 'bare " in non-quoted-field';
const ERR_QUOTE = 'extraneous or missing " in quoted-field';

function parseError(startLine: number, line: number, column: number, err: string): Error {
  if (startLine !== line) {
    return invalid(
      `record on line ${startLine}; parse error on line ${line}, column ${column}: ${err}`,
    );
  }
  return invalid(`parse error on line ${line}, column ${column}: ${err}`);
}

export class CsvTokenizer {
  /** Repaired text; records are read from pos. */
  text = "";
  pos = 0;
  /** True when text holds the rest of the input. */
  eof = false;
  /** Lines read so far (Go's numLine). */
  private numLine = 0;
  private fieldsPerRecord = 0;
  private fields: string[] = [];

  // The current line: text[ls..le), followed by a newline when nl.
  private ls = 0;
  private le = 0;
  private nl = false;
  /** Where the next line starts. */
  private next = 0;

  // The next comma and quote at or after some earlier offset (-1: none in
  // text, -2: not searched yet). They keep plain fields from rescanning the
  // buffer when commas or quotes are rare.
  private nextComma = -2;
  private nextQuote = -2;

  /** Appends text, dropping what has been read. */
  append(s: string, eof: boolean): void {
    if (this.pos > 0) {
      this.text = this.pos < this.text.length ? this.text.slice(this.pos) + s : s;
      this.pos = 0;
    } else if (s.length > 0) {
      this.text += s;
    }
    this.eof = eof;
    this.nextComma = -2;
    this.nextQuote = -2;
  }

  /** Text not yet read. */
  get pending(): number {
    return this.text.length - this.pos;
  }

  /**
   * The next record's fields (an array reused by the next call), or null at
   * the end of the input.
   */
  record(): string[] | null {
    const line0 = this.numLine;
    this.next = this.pos;
    try {
      return this.parseRecord();
    } catch (e) {
      if (e instanceof NeedMore) this.numLine = line0;
      throw e;
    }
  }

  /** Reads the next line into ls/le/nl; false when no input is left. */
  private readLine(): boolean {
    const text = this.text;
    const p = this.next;
    const i = text.indexOf("\n", p);
    this.numLine++;
    this.ls = p;
    if (i >= 0) {
      this.le = i > p && text.charCodeAt(i - 1) === CR ? i - 1 : i;
      this.nl = true;
      this.next = i + 1;
      return true;
    }
    if (!this.eof) throw new NeedMore();
    const n = text.length;
    this.le = n > p && text.charCodeAt(n - 1) === CR ? n - 1 : n;
    this.nl = false;
    this.next = n;
    return n > p;
  }

  /** Go's column of text offset i in the current line. */
  private column(i: number): number {
    return 1 + utf8Length(this.text.slice(this.ls, i));
  }

  private parseRecord(): string[] | null {
    // Empty lines are skipped.
    do {
      if (!this.readLine()) return null;
    } while (this.le === this.ls);
    const text = this.text;
    const recLine = this.numLine;
    const fields = this.fields;
    fields.length = 0;
    let i = this.ls;
    for (;;) {
      let le = this.le;
      while (i < le && isGoSpace(text.charCodeAt(i))) i++;
      if (i >= le || text.charCodeAt(i) !== QUOTE) {
        // A plain field, up to the next comma or the end of the line.
        if (this.nextComma !== -1 && this.nextComma < i) this.nextComma = text.indexOf(",", i);
        const end = this.nextComma >= 0 && this.nextComma < le ? this.nextComma : le;
        if (this.nextQuote !== -1 && this.nextQuote < i) this.nextQuote = text.indexOf('"', i);
        if (this.nextQuote >= 0 && this.nextQuote < end) {
          throw parseError(recLine, this.numLine, this.column(this.nextQuote), ERR_BARE_QUOTE);
        }
        fields.push(text.slice(i, end));
        if (end === le) break;
        i = end + 1;
        continue;
      }
      // A quoted field, possibly spanning lines.
      i++;
      let value = "";
      let endOfLine = false;
      for (;;) {
        const j = text.indexOf('"', i);
        if (j >= 0 && j < le) {
          value += text.slice(i, j);
          i = j + 1;
          if (i >= le) {
            // The line ends right after the quote: so do the field and the record.
            endOfLine = true;
            break;
          }
          const c = text.charCodeAt(i);
          if (c === QUOTE) {
            value += '"';
            i++;
          } else if (c === COMMA) {
            i++;
            break;
          } else {
            throw parseError(recLine, this.numLine, this.column(j), ERR_QUOTE);
          }
        } else if (i < le || this.nl) {
          // The field goes on past this line.
          value += text.slice(i, le);
          if (this.nl) value += "\n";
          const lastLine = this.numLine;
          const lastColumn = this.column(le) + (this.nl ? 1 : 0);
          if (!this.readLine() || this.le === this.ls && !this.nl) {
            // The input ended inside the quotes.
            throw parseError(recLine, lastLine, lastColumn, ERR_QUOTE);
          }
          i = this.ls;
          le = this.le;
        } else {
          // The input ended right after the opening quote.
          throw parseError(recLine, this.numLine, this.column(i), ERR_QUOTE);
        }
      }
      fields.push(value);
      if (endOfLine) break;
    }
    this.pos = this.next;
    if (this.fieldsPerRecord === 0) {
      this.fieldsPerRecord = fields.length;
    } else if (fields.length !== this.fieldsPerRecord) {
      throw invalid(`record on line ${recLine}: wrong number of fields`);
    }
    return fields;
  }
}
