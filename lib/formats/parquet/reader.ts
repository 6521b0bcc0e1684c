// Parquet input (formats.md §7, reader). Parquet keeps its metadata at the
// end of the file, so the whole input is read into memory first. Each row
// group is decoded column by column, then assembled into records of the one
// record type the schema defines.

import type { FileMetaData } from "hyparquet";
import { parquetMetadata, parquetSchema } from "hyparquet";
import { LochError } from "../../errors.ts";
import { type Batch, Value } from "../../zed/value.ts";
import { BATCH_SIZE, type ByteInput, type ValueReader } from "../io.ts";
import { Assembler } from "./assemble.ts";
import { type LeafData, readChunk } from "./chunk.ts";
import { type ReadPlan, readPlan } from "./schema_read.ts";

export class ParquetReader implements ValueReader {
  private file: Uint8Array | undefined;
  private meta: FileMetaData | undefined;
  private plan: ReadPlan | undefined;
  private group = 0;
  private rows = 0;
  private assembler: Assembler | undefined;
  /** Leaf position by its path in the schema. */
  private leafIndex = new Map<string, number>();

  constructor(private input: ByteInput) {}

  async read(): Promise<Batch | null> {
    if (this.file === undefined) await this.open();
    const meta = this.meta!, plan = this.plan!;
    while (this.rows === 0) {
      if (this.group >= meta.row_groups.length) return null;
      this.loadGroup(this.group++);
    }
    const n = Math.min(this.rows, BATCH_SIZE);
    const batch: Batch = new Array(n);
    const a = this.assembler!;
    for (let i = 0; i < n; i++) batch[i] = new Value(plan.type, a.row());
    this.rows -= n;
    return batch;
  }

  private async open(): Promise<void> {
    this.file = await readAll(this.input);
    this.meta = wrapErrors(() => parquetMetadata(this.file!, { geoparquet: false }));
    this.plan = wrapErrors(() => readPlan(parquetSchema(this.meta!)));
    this.plan.leaves.forEach((l, i) => this.leafIndex.set(l.path.join("\0"), i));
  }

  private loadGroup(g: number): void {
    const file = this.file!, plan = this.plan!;
    const rg = this.meta!.row_groups[g];
    const data = new Array<LeafData | undefined>(plan.leaves.length);
    wrapErrors(() => {
      for (const chunk of rg.columns) {
        const md = chunk.meta_data;
        if (md === undefined) throw new Error("parquet column metadata is undefined");
        const i = this.leafIndex.get(md.path_in_schema.join("\0"));
        if (i !== undefined) data[i] = readChunk(file, md, plan.leaves[i]);
      }
    });
    for (let i = 0; i < data.length; i++) {
      if (data[i] === undefined) {
        throw new LochError("invalid", `parquet column ${plan.leaves[i].path.join(".")} missing`);
      }
    }
    const rows = Number(rg.num_rows);
    for (let i = 0; i < data.length; i++) {
      if (rowsOf(data[i]!, plan.leaves[i].maxRep) !== rows) {
        throw new LochError(
          "invalid",
          `parquet row group ${g} says ${rg.num_rows} rows, column ${
            plan.leaves[i].path.join(".")
          } holds ${rowsOf(data[i]!, plan.leaves[i].maxRep)}`,
        );
      }
    }
    this.assembler = new Assembler(plan.fields, data as LeafData[]);
    this.rows = rows;
  }
}

/** How many rows a leaf's entries make: one per entry, or per entry that starts a row. */
function rowsOf(d: LeafData, maxRep: number): number {
  if (maxRep === 0) return d.count;
  let n = 0;
  for (let i = 0; i < d.rep.length; i++) if (d.rep[i] === 0) n++;
  return n;
}

/** hyparquet throws plain Errors; they become input errors. */
function wrapErrors<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof LochError || !(e instanceof Error)) throw e;
    throw new LochError("invalid", e.message);
  }
}

async function readAll(input: ByteInput): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (let c = await input.read(); c !== null; c = await input.read()) {
    parts.push(c);
    size += c.length;
  }
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
