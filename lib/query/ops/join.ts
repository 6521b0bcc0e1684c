// `[anti|inner|left|right] join on l=r [assignments]` (language.md §3.9): a
// sorted merge join of two inputs, run as the reference runs it (so unsorted
// inputs give the reference's results too). Right joins are built as left
// joins with the inputs and keys swapped.

import { compareValues } from "../../zed/compare.ts";
import { zctx } from "../../zed/context.ts";
import { Field, recordOf, type RecordType } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import type { Op } from "../runtime/op.ts";
import { RecordBuilder } from "../runtime/record-builder.ts";
import { isMissing, isQuiet } from "../runtime/values.ts";
import type { Assignment } from "./paths.ts";
import { MultiInput } from "./ports.ts";

export type JoinStyle = "anti" | "inner" | "left";

const EMPTY = new Value(zctx.lookupRecord([]), []);

export class Join extends MultiInput {
  private readonly builder: RecordBuilder;
  private types = new Map<RecordType, Map<RecordType, RecordType>>();

  constructor(
    next: Op,
    private readonly style: JoinStyle,
    private readonly leftKey: Expr,
    private readonly rightKey: Expr,
    private readonly args: readonly Assignment[],
  ) {
    super(next, 2);
    this.builder = new RecordBuilder(args.map((a) => a.path));
  }

  protected run(): void {
    const [left, right] = this.inputs;
    const out: Value[] = [];
    let ri = 0;
    let joinKey: Value | undefined;
    let joinSet: Value[] = [];
    const cmp = (a: Value, b: Value) => compareValues(a.type, a.body, b.type, b.body, false);
    for (const l of left) {
      const key = this.leftKey(l);
      if (isMissing(key)) continue;
      let set: Value[] | undefined;
      if (joinKey !== undefined && cmp(key, joinKey) === 0) {
        set = joinSet;
      } else {
        // Skip right values below the key; collect the run equal to it.
        for (; ri < right.length; ri++) {
          const rk = this.rightKey(right[ri]);
          if (isMissing(rk)) continue;
          const c = cmp(key, rk);
          if (c === 0) {
            joinKey = key;
            joinSet = [];
            for (; ri < right.length; ri++) {
              const k = this.rightKey(right[ri]);
              if (isMissing(k)) continue;
              if (cmp(k, joinKey) !== 0) break;
              joinSet.push(right[ri]);
            }
            set = joinSet;
            break;
          }
          if (c < 0) break;
        }
      }
      if (set === undefined) {
        if (this.style !== "inner") out.push(l);
        continue;
      }
      if (this.style === "anti") continue;
      for (const r of set) out.push(this.splice(l, this.cut(r)));
    }
    this.emit(out);
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
