// `[anti|inner|left|right] join on l=r [assignments]` (language.md §3.9): a
// sorted merge join of two inputs, run as the reference runs it (so unsorted
// inputs give the reference's results too). Right joins are built as left
// joins with the inputs and keys swapped.
//
// Both inputs are held until both have ended (they arrive in any order);
// past the memory budget what is held of each goes to a temporary file
// (spill/input-buffer.ts), and the join reads each input back in order. The
// right values of one key (the join set) are held in memory.

import { compareValues } from "../../zed/compare.ts";
import { zctx } from "../../zed/context.ts";
import { Field, recordOf, type RecordType } from "../../zed/types.ts";
import { type Batch, type Body, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import type { Op } from "../runtime/op.ts";
import { RecordBuilder } from "../runtime/record-builder.ts";
import { pauseForNew, sliceUsed } from "../runtime/turns.ts";
import { type Ended, finishWork, type Work } from "../runtime/work.ts";
import { isMissing, isQuiet } from "../runtime/values.ts";
import type { Assignment } from "./paths.ts";
import { InputBuffer } from "../spill/input-buffer.ts";
import { currentScope } from "../spill/scope.ts";
import { batchSize } from "../spill/size.ts";

export type JoinStyle = "anti" | "inner" | "left";

const EMPTY = new Value(zctx.lookupRecord([]), []);

/** Most values per output batch. */
const OUT_BATCH = 1000;

export class Join {
  /** The left and right inputs. */
  readonly ports: Op[];
  private readonly builder: RecordBuilder;
  private types = new Map<RecordType, Map<RecordType, RecordType>>();
  private readonly inputs = [new InputBuffer(), new InputBuffer()];
  private open = 2;
  private readonly budget = currentScope().budget;
  private readonly pause = pauseForNew();
  /** Estimated bytes held by both inputs, in the query's account. */
  private readonly mem = currentScope().use("join");

  constructor(
    private readonly next: Op,
    private readonly style: JoinStyle,
    private readonly leftKey: Expr,
    private readonly rightKey: Expr,
    private readonly args: readonly Assignment[],
  ) {
    this.builder = new RecordBuilder(args.map((a) => a.path));
    this.ports = this.inputs.map((buf) => ({
      push: (batch: Batch) => this.hold(buf, batch),
      end: (): Ended => {
        if (--this.open > 0) return;
        return finishWork(this.joined(), this.pause, this.next);
      },
      get done() {
        return false;
      },
    }));
  }

  private hold(buf: InputBuffer, batch: Batch): void {
    buf.push(batch);
    this.mem.add(batchSize(batch));
    if (this.mem.shouldSpill(this.budget)) {
      for (const b of this.inputs) b.spill();
      this.mem.clear();
    }
  }

  /** Joins the inputs held and sends the result on, a batch per slice. */
  private *joined(): Work {
    this.mem.clear();
    try {
      yield* this.run();
    } finally {
      for (const b of this.inputs) b.close();
    }
  }

  private *run(): Work {
    const left = this.inputs[0].cursor(), right = this.inputs[1].cursor();
    let out: Value[] = [];
    let joinKey: Value | undefined;
    let joinSet: Value[] = [];
    const cmp = (a: Value, b: Value) => compareValues(a.type, a.body, b.type, b.body, false);
    let steps = 0;
    for (let l = left.head; l !== undefined && !this.next.done; left.advance(), l = left.head) {
      const key = this.leftKey(l);
      if (isMissing(key)) continue;
      let set: Value[] | undefined;
      if (joinKey !== undefined && cmp(key, joinKey) === 0) {
        set = joinSet;
      } else {
        // Skip right values below the key; collect the run equal to it.
        for (; right.head !== undefined; right.advance()) {
          const rk = this.rightKey(right.head);
          if (isMissing(rk)) continue;
          const c = cmp(key, rk);
          if (c === 0) {
            joinKey = key;
            joinSet = [];
            for (; right.head !== undefined; right.advance()) {
              const k = this.rightKey(right.head);
              if (isMissing(k)) continue;
              if (cmp(k, joinKey) !== 0) break;
              joinSet.push(right.head);
            }
            set = joinSet;
            break;
          }
          if (c < 0) break;
        }
      }
      if (set === undefined) {
        if (this.style !== "inner") out.push(l);
      } else if (this.style !== "anti") {
        for (const r of set) out.push(this.splice(l, this.cut(r)));
      }
      if (out.length >= OUT_BATCH) {
        out = this.emit(out, false);
        yield;
      } else if ((++steps & 1023) === 0 && sliceUsed()) {
        yield;
      }
    }
    this.emit(out, true);
  }

  /** Sends whole batches of OUT_BATCH values downstream (and the rest, if all); returns what is left. */
  private emit(out: Value[], all: boolean): Value[] {
    let i = 0;
    while (!this.next.done && (out.length - i >= OUT_BATCH || (all && i < out.length))) {
      this.next.push(out.slice(i, i + OUT_BATCH));
      i += OUT_BATCH;
    }
    return i === 0 ? out : out.slice(i);
  }

  /** The assignments evaluated on a right value (quiet ones omitted). */
  private cut(r: Value): Value {
    const vals = this.args.map((a) => {
      const v = a.expr(r);
      return isQuiet(v) ? undefined : v;
    });
    return this.builder.build(vals) ?? EMPTY;
  }

  /**
   * The left record followed by the cut fields, renamed name_2, ... on
   * collision. Like the reference, the result loses the left type's name.
   */
  private splice(l: Value, r: Value): Value {
    const lt = recordOf(l.type);
    if (lt === undefined) return l;
    const rt = recordOf(r.type)!;
    let byRight = this.types.get(lt);
    if (byRight === undefined) this.types.set(lt, byRight = new Map());
    let t = byRight.get(rt);
    if (t === undefined) {
      const fields = [...lt.fields];
      for (const f of rt.fields) {
        let name = f.name;
        for (let k = 2; lt.index.has(name); k++) name = `${f.name}_${k}`;
        fields.push(new Field(name, f.type));
      }
      t = zctx.lookupRecord(fields);
      byRight.set(rt, t);
    }
    const lb = (l.body ?? []) as Body[], rb = (r.body ?? []) as Body[];
    return new Value(t, [...lb, ...rb]);
  }
}
