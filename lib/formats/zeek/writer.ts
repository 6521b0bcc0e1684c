// Zeek TSV output (formats.md §9): records are flattened to dotted column
// names; the standard header comes first, `#path` whenever the `_path` field
// changes, and `#fields`/`#types` whenever the record type changes. The
// `_path` column itself is never written as a field.

import { invalid } from "../../errors.ts";
import { ID_STRING, Kind, type RecordType, typeUnder } from "../../zed/types.ts";
import type { Batch, Body, Value } from "../../zed/value.ts";
import { flattenBody, flattenType } from "../csv/flatten.ts";
import { type Sink, TextSink, type ValueWriter } from "../io.ts";
import { formatZson } from "../zson/formatter.ts";
import { formatZeekValue } from "./format.ts";
import { zeekTypeName } from "./types.ts";

/** The flattened record of a value whose type is (or names) a record. */
export function flatRecord(v: Value): [RecordType, Body[]] {
  const rt = typeUnder(v.type) as RecordType;
  const flat = flattenType(rt);
  let body = v.body as Body[] | null;
  if (flat !== rt || body === null) {
    const out: Body[] = [];
    flattenBody(rt, body, out);
    body = out;
  }
  return [flat, body];
}

/** The `_path` of a flat record: its string value, or "" when absent, null or not a string. */
function pathOf(t: RecordType, body: Body[]): string {
  const i = t.indexOf("_path");
  if (i < 0) return "";
  const ft = typeUnder(t.fields[i].type);
  if (ft.kind !== Kind.Primitive || ft.id !== ID_STRING || body[i] === null) return "";
  return body[i] as string;
}

export class ZeekWriter implements ValueWriter {
  private out: TextSink;
  private started = false;
  private path = "";
  private type: RecordType | undefined;

  constructor(sink: Sink) {
    this.out = new TextSink(sink);
  }

  async write(batch: Batch): Promise<void> {
    await this.out.pushing(() => {
      for (const v of batch) this.writeValue(v);
    });
  }

  async end(): Promise<void> {
    await this.out.flush();
  }

  private writeValue(v: Value): void {
    if (typeUnder(v.type).kind !== Kind.Record) {
      // The reference crashes here; an error says why.
      throw invalid(`zeek output encountered non-record value: ${formatZson(v.type, v.body)}`);
    }
    const [t, body] = flatRecord(v);
    const path = pathOf(t, body);
    if (t !== this.type || path !== this.path) this.writeHeader(t, path);
    let line = "";
    let sep = false;
    const fields = t.fields;
    for (let i = 0; i < fields.length; i++) {
      if (fields[i].name === "_path") continue;
      if (sep) line += "\t";
      sep = true;
      line += formatZeekValue(fields[i].type, body[i]);
    }
    this.out.push(line + "\n");
  }

  private writeHeader(t: RecordType, path: string): void {
    let s = "";
    if (!this.started) {
      this.started = true;
      s = "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n";
    }
    if (path !== this.path) {
      this.path = path;
      s += `#path\t${path === "" ? "-" : path}\n`;
    }
    if (t !== this.type) {
      let names = "#fields", types = "#types";
      for (const f of t.fields) {
        if (f.name === "_path") continue;
        names += "\t" + f.name;
        types += "\t" + zeekTypeName(f.type);
      }
      s += names + "\n" + types + "\n";
      this.type = t;
    }
    this.out.push(s);
  }
}
