// Table output (`-f table`, formats.md §9): flattened records aligned in
// columns by Go's tabwriter (minwidth 0, padding 1, spaces). A header row of
// column names starts the output, each change of record type (which first
// flushes the rows so far) and every 1000 rows. Cells are as in text output,
// except that a null time is an empty cell. Non-records are an error.

import { invalid } from "../../errors.ts";
import { Kind, type RecordType, typeUnder } from "../../zed/types.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { type Sink, TextSink, type ValueWriter } from "../io.ts";
import { formatZson } from "../zson/formatter.ts";
import { flatRecord } from "../zeek/writer.ts";
import { TabWriter } from "./tabwriter.ts";
import { recordCells } from "./text.ts";

/** Rows between repeated headers. */
const HEADER_EVERY = 1000;

export class TableWriter implements ValueWriter {
  private out: TextSink;
  private table: TabWriter;
  private type: RecordType | undefined;
  private rows = 0;

  constructor(sink: Sink) {
    const out = this.out = new TextSink(sink);
    this.table = new TabWriter((s) => out.push(s));
  }

  async write(batch: Batch): Promise<void> {
    await this.out.pushing(() => {
      try {
        for (const v of batch) this.writeValue(v);
      } catch (e) {
        this.table.flush(); // the rows before the failure are still written
        throw e;
      }
    });
  }

  async end(): Promise<void> {
    this.table.flush();
    await this.out.flush();
  }

  private writeValue(v: Value): void {
    if (typeUnder(v.type).kind !== Kind.Record) {
      throw invalid(`table output encountered non-record value: ${formatZson(v.type, v.body)}`);
    }
    const [t, body] = flatRecord(v);
    if (t !== this.type) {
      if (this.type !== undefined) {
        this.table.flush();
        this.rows = 0;
      }
      this.writeHeader(t);
      this.type = t;
    }
    if (this.rows >= HEADER_EVERY) {
      this.table.flush();
      this.writeHeader(t);
      this.rows = 0;
    }
    this.rows++;
    this.table.write(recordCells(t, body, "").join("\t") + "\n");
  }

  private writeHeader(t: RecordType): void {
    let s = "";
    for (let i = 0; i < t.fields.length; i++) s += (i > 0 ? "\t" : "") + t.fields[i].name;
    this.table.write(s + "\n");
  }
}
