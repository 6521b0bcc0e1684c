// `fuse`: reads everything, fuses the types of all values into one
// (language.md §3.7) and emits each value shaped to it (cast, fill and order,
// as the reference's fuse does), in input order.
//
// Values are held until the end of the input; past the memory budget they
// are appended to a temporary file (as the reference spills past 128 MiB),
// which is read back, in order, at the end.

import { BATCH_SIZE } from "../../formats/io.ts";
import type { Type } from "../../zed/types.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { fuseTypes } from "../aggregates/fuse-type.ts";
import { type Op, Unary } from "../runtime/op.ts";
import type { Ended, Work } from "../runtime/work.ts";
import { CAST, type ConstShaper, constShaper, FILL, ORDER } from "../expr/shaper.ts";
import { type RunWriter, SpillFile } from "../spill/file.ts";
import { currentScope } from "../spill/scope.ts";
import { batchSize } from "../spill/size.ts";

export class Fuse extends Unary {
  constructor(
    next: Op,
    /** How many values it keeps (the rest only lend it their types): a head's count after it. */
    private readonly keep = Infinity,
  ) {
    super(next);
  }

  private vals: Value[] = [];
  /** How many values were kept, spilled ones included. */
  private kept = 0;
  private seen = new Set<Type>();
  private fused: Type | undefined = undefined;
  private readonly budget = currentScope().budget;
  /** Estimated bytes of vals, in the query's account. */
  private readonly mem = currentScope().use("fuse");
  private file: SpillFile | null = null;
  private writer: RunWriter | null = null;

  push(batch: Batch): void {
    const vals = this.vals;
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      if (!this.seen.has(v.type)) {
        this.seen.add(v.type);
        this.fused = this.fused === undefined ? v.type : fuseTypes(this.fused, v.type);
      }
    }
    if (this.kept >= this.keep) return;
    const taken = this.kept + batch.length <= this.keep
      ? batch
      : batch.slice(0, this.keep - this.kept);
    for (let i = 0; i < taken.length; i++) vals.push(taken[i]);
    this.kept += taken.length;
    this.mem.add(batchSize(taken));
    if (this.mem.shouldSpill(this.budget)) this.spill();
  }

  override end(): Ended {
    return this.finish(this.emitAll());
  }

  /** Shapes and sends every value, in order, a batch per slice. */
  private *emitAll(): Work {
    const vals = this.vals;
    this.vals = [];
    this.mem.clear();
    const file = this.file;
    this.file = null;
    try {
      if (this.fused !== undefined) {
        const shaper = constShaper(CAST | FILL | ORDER, this.fused);
        if (file !== null) yield* this.emitSpilled(file, shaper);
        for (let i = 0; i < vals.length && !this.next.done; i += BATCH_SIZE) {
          const m = Math.min(vals.length, i + BATCH_SIZE);
          const out = new Array<Value>(m - i);
          for (let k = i; k < m; k++) out[k - i] = shaper.shape(vals[k]);
          this.next.push(out);
          yield;
        }
      }
    } finally {
      file?.remove();
    }
  }

  /** Appends the values held to the spill file. */
  private spill(): void {
    if (this.writer === null) {
      this.file = SpillFile.create();
      this.writer = this.file.writer();
    }
    const vals = this.vals;
    for (let i = 0; i < vals.length; i++) this.writer.write(vals[i]);
    this.vals = [];
    this.mem.clear();
  }

  /** Shapes and sends the spilled values, in order. */
  private *emitSpilled(file: SpillFile, shaper: ConstShaper): Work {
    this.writer!.close();
    this.writer = null;
    const r = file.reader();
    try {
      yield* this.emitPulled(() => {
        const v = r.next();
        return v === undefined ? undefined : shaper.shape(v);
      });
    } finally {
      r.close();
    }
  }
}
