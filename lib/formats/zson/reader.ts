// ZSON input (formats.md §2): a stream of values, parsed from incremental
// text, analyzed with one set of name bindings for the whole stream so that
// `(=name)` defined by one value can be used by later ones.

import { invalid, type LochError, messageOf } from "../../errors.ts";
import type { Type } from "../../zed/types.ts";
import type { Batch, Value } from "../../zed/value.ts";
import {
  BATCH_SIZE,
  type Detection,
  NeedMore,
  ReadEnd,
  type TextInput,
  type ValueReader,
} from "../io.ts";
import { Analyzer } from "./analyzer.ts";
import { Parser } from "./parser.ts";

/** JavaScript's stack overflow, from absurdly deep nesting, reported as bad input. */
function tooDeep(e: unknown): LochError | null {
  return e instanceof RangeError && /call stack/i.test(e.message)
    ? invalid("ZSON syntax error: nesting too deep")
    : null;
}

export class ZsonReader implements ValueReader {
  private readonly end = new ReadEnd();
  private parser = new Parser();
  private analyzer: Analyzer;

  /** `bindings` seeds (and receives) the stream's type names. */
  constructor(private input: TextInput, bindings?: Map<string, Type>) {
    this.analyzer = new Analyzer(bindings);
  }

  async read(): Promise<Batch | null> {
    if (this.end.ended()) return null;
    const input = this.input;
    const parser = this.parser;
    const batch: Value[] = [];
    while (batch.length < BATCH_SIZE) {
      let value: Value | null;
      try {
        parser.reset(input.text, input.pos, input.eof);
        const ast = parser.parseValue();
        value = ast === null ? null : this.analyzer.value(ast);
      } catch (e) {
        if (e instanceof NeedMore) {
          // Deliver what is complete before waiting for more input.
          if (batch.length > 0) return batch;
          await input.more();
          continue;
        }
        const err = tooDeep(e) ?? e;
        return this.end.fail(err, batch);
      }
      input.pos = parser.pos;
      if (value === null) {
        this.end.done = true;
        break;
      }
      batch.push(value);
    }
    return batch.length > 0 ? batch : null;
  }
}

/**
 * Whether text (a prefix of the input; all of it when eof) starts with a ZSON
 * value. The reference's detector reads one value.
 */
export function detectZson(text: string, eof: boolean): Detection {
  const parser = new Parser();
  parser.reset(text, 0, eof);
  try {
    const ast = parser.parseValue();
    if (ast !== null) new Analyzer().value(ast);
  } catch (e) {
    if (e instanceof NeedMore) return { ok: "more" };
    return { ok: false, error: messageOf(tooDeep(e) ?? e) };
  }
  return { ok: true };
}

function parseWhole<T>(text: string, parse: (p: Parser) => T): T {
  const parser = new Parser();
  parser.reset(text, 0, true);
  try {
    const out = parse(parser);
    if (!parser.atEnd()) throw invalid("ZSON syntax error");
    return out;
  } catch (e) {
    throw tooDeep(e) ?? e;
  }
}

/**
 * The one value in text (space and comments aside). `bindings` supplies type
 * names and receives any the text defines.
 */
export function parseZsonValue(text: string, bindings?: Map<string, Type>): Value {
  return parseWhole(text, (p) => {
    const ast = p.parseValue();
    if (ast === null) throw invalid("ZSON syntax error");
    return new Analyzer(bindings).value(ast);
  });
}

/** The type written in ZSON type syntax in text, e.g. `{a:int64,b:[string]}`. */
export function parseZsonType(text: string, bindings?: Map<string, Type>): Type {
  return parseWhole(text, (p) => new Analyzer(bindings).type(p.parseType()));
}
