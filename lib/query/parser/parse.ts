// The query parser's entry point and the reference's syntax-error format
// (language.md §11): the farthest position the grammar reached, shown with
// its line and a `=== ^ ===` marker; columns count UTF-8 bytes.

import { LochError } from "../../errors.ts";
import { LruMap } from "../../lru.ts";
import { utf8Length } from "../../zed/utf8.ts";
import type { Sequential } from "../ast.ts";
import { Operations } from "./ops.ts";
import { ParseFailure, RawParseError } from "./peg.ts";

/** A query that failed to parse; offset is a byte offset into the source. */
export class ParseError extends LochError {
  constructor(message: string, readonly offset: number) {
    super("invalid", message);
  }
}

class QueryParser extends Operations {
  parse(src: string): Sequential {
    this.reset(src);
    let seq: Sequential | undefined;
    try {
      seq = this.start();
    } catch (e) {
      if (e instanceof ParseFailure) throw parseError(src, e.offset);
      if (e instanceof RawParseError) throw rawError(src, e.errors);
      throw e;
    }
    if (seq === undefined) throw parseError(src, this.maxFail);
    return seq;
  }
}

/** Errors formatted the way the reference's parser reports them when it cannot improve them. */
function rawError(src: string, errors: [number, string][]): ParseError {
  const lines = errors.map(([offset, text]) => {
    const before = src.slice(0, offset);
    const line = before.split("\n").length;
    const col = [...before.slice(before.lastIndexOf("\n") + 1)].length + 1;
    return `${line}:${col} (${utf8Length(before)}): ${text}`;
  });
  return new ParseError(lines.join("\n"), utf8Length(src.slice(0, errors[0][0])));
}

/**
 * Queries parsed lately, by text: clients send the same few queries again
 * and again (Zui's every few seconds), and parsing is most of compiling a
 * short one (~0.1 ms warm, ~0.35 in a server's first queries). Callers get
 * a copy, so none sees another's changes to its tree.
 */
const parsed = new LruMap<string, Sequential>(256);
/** Longer texts are parsed every time (rare, and their trees are big). */
const PARSED_TEXT_MAX = 8 << 10;

/** Parses query text (empty text means `*`). */
export function parseQuery(src: string): Sequential {
  if (src.length === 0) src = "*";
  let seq = parsed.get(src);
  if (seq === undefined) {
    seq = new QueryParser().parse(src);
    if (src.length > PARSED_TEXT_MAX) return seq;
    parsed.set(src, seq);
  }
  return copyTree(seq);
}

/** A deep copy of a syntax tree (plain objects, arrays and primitives). */
function copyTree<T>(node: T): T {
  if (typeof node !== "object" || node === null) return node;
  if (Array.isArray(node)) return node.map(copyTree) as T;
  const out: Record<string, unknown> = {};
  for (const k in node) out[k] = copyTree((node as Record<string, unknown>)[k]);
  return out as T;
}

/** The reference's message for a syntax error at a character offset of src. */
export function parseError(src: string, charOffset: number): ParseError {
  const before = src.slice(0, charOffset);
  const lineStart = before.lastIndexOf("\n") + 1;
  let lineEnd = src.indexOf("\n", charOffset);
  if (lineEnd < 0) lineEnd = src.length;
  const line = src.slice(lineStart, lineEnd);
  const column = utf8Length(src.slice(lineStart, charOffset));
  let msg = "error parsing Zed at ";
  if (src.includes("\n")) msg += `line ${before.split("\n").length}, `;
  msg += `column ${column + 1}:\n${line}\n`;
  for (let k = 0; k < column; k++) msg += k >= column - 4 && k !== column - 1 ? "=" : " ";
  msg += "^ ===";
  return new ParseError(msg, utf8Length(before));
}
