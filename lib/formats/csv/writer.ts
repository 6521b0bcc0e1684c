// CSV output (formats.md §6.1): records are flattened; the first one's
// columns make the header and every later record must flatten to the same
// type. Cells are the values' text (strings raw, primitives as ZSON without
// decorators, complex values as decorated ZSON), quoted as Go's encoding/csv
// quotes them, one `\n`-terminated line per record.

import { invalid } from "../../errors.ts";
import {
  ID_BYTES,
  ID_STRING,
  isFloat,
  Kind,
  type RecordType,
  type Type,
  typeUnder,
} from "../../zed/types.ts";
import { formatPrimitive } from "../../zed/primitive.ts";
import type { Batch, Body, Value } from "../../zed/value.ts";
import { type Sink, TextSink, type ValueWriter } from "../io.ts";
import { formatZson } from "../zson/formatter.ts";
import { flattenValue } from "./flatten.ts";
import { isGoSpace } from "./gospace.ts";

const NOT_UNIFORM =
  "CSV output requires uniform records but multiple types encountered (consider 'fuse')";

const needsQuotesRE = /[",\r\n]/;

/** A field as Go's csv.Writer writes it: quoted only when it must be. */
export function quoteCsvField(s: string): string {
  if (s.length === 0) return s;
  if (needsQuotesRE.test(s)) return '"' + s.replaceAll('"', '""') + '"';
  if (s === "\\." || isGoSpace(s.charCodeAt(0))) return '"' + s + '"';
  return s;
}

/** How a column's non-null bodies become cell text. */
type CellFormat = (b: Body) => string;

function cellFormat(t: Type): CellFormat {
  const u = typeUnder(t);
  if (u.kind !== Kind.Primitive) return (b) => formatZson(t, b);
  const id = u.id;
  if (id === ID_STRING) return (b) => b as string;
  // An empty bytes value is an empty cell, not `0x`.
  if (id === ID_BYTES) return (b) => (b as Uint8Array).length === 0 ? "" : formatPrimitive(id, b);
  if (isFloat(id)) {
    return (b) => {
      const s = formatPrimitive(id, b);
      return s.endsWith(".") ? s.slice(0, -1) : s;
    };
  }
  return (b) => formatPrimitive(id, b);
}

/** Runs of commas, by length. */
const COMMAS: string[] = [""];

function commasOf(n: number): string {
  while (COMMAS.length <= n) COMMAS.push(COMMAS[COMMAS.length - 1] + ",");
  return COMMAS[n];
}

export class CsvWriter implements ValueWriter {
  private out: TextSink;
  /** The header's record type; every later record must flatten to it. */
  private first: RecordType | null = null;
  private formats: CellFormat[] = [];

  constructor(sink: Sink) {
    this.out = new TextSink(sink);
  }

  async write(batch: Batch): Promise<void> {
    await this.out.pushing(() => {
      for (let i = 0; i < batch.length; i++) this.out.push(this.row(batch[i]));
    });
  }

  async end(): Promise<void> {
    await this.out.flush();
  }

  /** The text of v's row, preceded by the header for the first record. */
  private row(v: Value): string {
    if (typeUnder(v.type).kind !== Kind.Record) {
      throw invalid(`CSV output encountered non-record value: ${formatZson(v.type, v.body)}`);
    }
    const flat = flattenValue(v);
    let header = "";
    if (this.first === null) {
      const rt = typeUnder(flat.type) as RecordType;
      this.first = rt;
      this.formats = rt.fields.map((f) => cellFormat(f.type));
      header = this.line(rt.fields.map((f) => f.name));
    } else if (flat.type !== this.first) {
      // A flat record keeps its type name, so it differs from the header's
      // unnamed type: the reference rejects it too.
      throw invalid(NOT_UNIFORM);
    }
    // A null record that was already flat has no cells at all.
    const body = flat.body as Body[] | null;
    if (body === null) return header + "\n";
    // Commas for a run of empty cells are added at once: a fused record's
    // rows are mostly empty cells, and a string of one piece per comma is
    // slow to build and to join.
    const formats = this.formats;
    let s = header, commas = 0;
    for (let i = 0; i < body.length; i++) {
      if (i > 0) commas++;
      const b = body[i];
      if (b === null) continue;
      s += commasOf(commas) + quoteCsvField(formats[i](b));
      commas = 0;
    }
    return s + commasOf(commas) + "\n";
  }

  private line(cells: string[]): string {
    return cells.map(quoteCsvField).join(",") + "\n";
  }
}
