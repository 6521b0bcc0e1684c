// Parquet output (formats.md §7, writer): one file with one schema, taken
// from the first record; every later record must have the same type. Rows
// are buffered and written as one row group at end(), SNAPPY-compressed. No
// values means no output at all.

import { ByteWriter, ParquetWriter as FileWriter } from "hyparquet-writer";
import { invalid } from "../../errors.ts";
import { Kind, type RecordType, typeUnder } from "../../zed/types.ts";
import type { Batch, Body, Value } from "../../zed/value.ts";
import type { Sink, ValueWriter } from "../io.ts";
import { formatZson } from "../zson/formatter.ts";
import { type WritePlan, writePlan } from "./schema_write.ts";

export class ParquetWriter implements ValueWriter {
  private type: RecordType | undefined;
  private plan: WritePlan | undefined;
  /** Converted values, one array per root column. */
  private columns: unknown[][] = [];
  private rows = 0;

  constructor(private sink: Sink) {}

  // deno-lint-ignore require-await
  async write(batch: Batch): Promise<void> {
    for (let i = 0; i < batch.length; i++) this.add(batch[i]);
  }

  private add(v: Value): void {
    const t = typeUnder(v.type);
    if (t.kind !== Kind.Record) {
      throw invalid(`Parquet output encountered non-record value: ${formatZson(v.type, v.body)}`);
    }
    if (this.plan === undefined) {
      this.plan = writePlan(t);
      this.type = t;
      this.columns = this.plan.columns.map(() => []);
    } else if (t !== this.type) {
      throw invalid(
        "Parquet output requires uniform records but multiple types encountered (consider 'fuse')",
      );
    }
    const cols = this.plan.columns;
    const body = v.body as Body[] | null;
    // Convert the whole row before keeping any of it, so a failure leaves
    // the columns the same length.
    const row = new Array<unknown>(cols.length);
    for (let i = 0; i < cols.length; i++) row[i] = cols[i].conv(body === null ? null : body[i]);
    for (let i = 0; i < cols.length; i++) this.columns[i].push(row[i]);
    this.rows++;
  }

  async end(): Promise<void> {
    const plan = this.plan;
    if (plan === undefined) return;
    this.plan = undefined;
    const out = new ByteWriter();
    const fw = new FileWriter({
      writer: out,
      schema: plan.schema,
      codec: "SNAPPY",
      createdBy: "loch",
    });
    const columnData = plan.columns.map((c, i) => ({ name: c.name, data: this.columns[i] }));
    await fw.write({ columnData, rowGroupSize: Math.max(this.rows, 1) });
    relabel(fw, plan);
    await fw.finish();
    this.columns = [];
    await this.sink(out.getBytes());
  }
}

/**
 * Applies what hyparquet-writer cannot write directly: the JSON converted
 * type (it would encode the text as JSON again) and INT96 columns (written as
 * the identical 12-byte fixed-length layout). Only the footer changes.
 */
function relabel(fw: FileWriter, plan: WritePlan): void {
  for (const el of plan.json) el.converted_type = "JSON";
  if (plan.int96.length === 0) return;
  const keys = new Set(plan.int96.map((c) => c.path.join("\0")));
  for (const rg of fw.row_groups) {
    for (const chunk of rg.columns) {
      const md = chunk.meta_data;
      if (md === undefined || !keys.has(md.path_in_schema.join("\0"))) continue;
      md.type = "INT96";
      // FIXED_LEN_BYTE_ARRAY statistics do not describe INT96 ordering.
      delete md.statistics;
    }
  }
  for (const { element } of plan.int96) {
    element.type = "INT96";
    delete element.type_length;
  }
}
