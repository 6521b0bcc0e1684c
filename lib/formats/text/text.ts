// Text output (`-f text`, formats.md §9): a record is one line of its
// flattened fields joined by tabs; any other value is one line. Values use
// Zeek formatting, except that a `time` column prints as RFC3339Nano.

import { formatTime } from "../../zed/time.ts";
import { Kind, type RecordType, TypeTime, typeUnder } from "../../zed/types.ts";
import type { Batch, Body, Value } from "../../zed/value.ts";
import { type Sink, TextSink, type ValueWriter } from "../io.ts";
import { formatZeekValue } from "../zeek/format.ts";
import { flatRecord } from "../zeek/writer.ts";

/** The cells of a flat record: time columns as RFC3339Nano (null as nullTime), others Zeek-formatted. */
export function recordCells(t: RecordType, body: Body[], nullTime: string): string[] {
  const fields = t.fields;
  const out: string[] = new Array(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const ft = fields[i].type;
    const b = body[i];
    if (ft === TypeTime) out[i] = b === null ? nullTime : formatTime(b as number | bigint);
    else out[i] = formatZeekValue(ft, b);
  }
  return out;
}

export class TextWriter implements ValueWriter {
  private out: TextSink;

  constructor(sink: Sink) {
    this.out = new TextSink(sink);
  }

  async write(batch: Batch): Promise<void> {
    const out = this.out;
    for (const v of batch) out.push(this.line(v) + "\n");
    await out.maybeFlush();
  }

  async end(): Promise<void> {
    await this.out.flush();
  }

  private line(v: Value): string {
    if (typeUnder(v.type).kind !== Kind.Record) return formatZeekValue(v.type, v.body);
    const [t, body] = flatRecord(v);
    return recordCells(t, body, "-").join("\t");
  }
}
