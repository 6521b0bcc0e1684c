// The `shape` operator (language.md §3.23): after reading everything, records
// with the same field names share one type in which null-typed columns take
// the concrete type seen for them, and float64 columns whose values are all
// integral (or null) become int64 (uint64 when only unsigned fits).

import { zctx } from "../../zed/context.ts";
import {
  Field,
  ID_FLOAT64,
  ID_NULL,
  isFloat,
  isInteger,
  recordOf,
  type RecordType,
  type Type,
  TypeInt64,
  TypeUint64,
  typeUnder,
  underId,
} from "../../zed/types.ts";
import { type Batch, type Body, intBody, Value } from "../../zed/value.ts";
import { type Op, Unary } from "../runtime/op.ts";
import type { Ended, Work } from "../runtime/work.ts";

const TWO63 = 9223372036854775808;
const TWO64 = 18446744073709551616;

class Anchor {
  typ: RecordType | undefined;
  signed: boolean[];
  unsigned: boolean[];
  /** The output type for each input type, after integer recoding. */
  recode = new Map<RecordType, RecordType>();

  constructor(readonly columns: Field[]) {
    this.signed = columns.map(() => true);
    this.unsigned = columns.map(() => true);
  }

  /** Same names (checked by the caller) and types equal or null on either side. */
  matches(cols: readonly Field[]): boolean {
    if (cols.length !== this.columns.length) return false;
    return this.columns.every((c, k) =>
      c.type === cols[k].type || isNullType(c.type) || isNullType(cols[k].type)
    );
  }

  mixIn(cols: readonly Field[]): void {
    this.columns.forEach((c, k) => {
      if (isNullType(c.type)) this.columns[k] = new Field(c.name, cols[k].type);
    });
  }

  updateInts(rt: RecordType, body: Body[]): void {
    rt.fields.forEach((f, k) => {
      const id = underId(f.type);
      if (isInteger(id) || id === ID_NULL) return;
      if (!isFloat(id)) {
        this.signed[k] = this.unsigned[k] = false;
        return;
      }
      const x = (body[k] ?? 0) as number;
      const integral = Number.isInteger(x);
      if (this.signed[k] && !(integral && x >= -TWO63 && x < TWO63)) this.signed[k] = false;
      if (this.unsigned[k] && !(integral && x >= 0 && x < TWO64)) this.unsigned[k] = false;
    });
  }
}

function isNullType(t: Type): boolean {
  return typeUnder(t).id === ID_NULL;
}

export class Shape extends Unary {
  private vals: Value[] = [];
  private byType = new Map<RecordType, Anchor>();
  private byNames = new Map<string, Anchor[]>();

  constructor(next: Op) {
    super(next);
  }

  push(batch: Batch): void {
    for (const v of batch) {
      this.vals.push(v);
      const rt = recordOf(v.type);
      if (rt === undefined) continue;
      let a = this.byType.get(rt);
      if (a === undefined) {
        const key = rt.fields.map((f) => f.name).join("\u0000");
        const list = this.byNames.get(key) ?? [];
        a = list.find((x) => x.matches(rt.fields));
        if (a === undefined) {
          a = new Anchor([...rt.fields]);
          list.push(a);
          this.byNames.set(key, list);
        } else {
          a.mixIn(rt.fields);
        }
        this.byType.set(rt, a);
      }
      a.updateInts(rt, (v.body ?? []) as Body[]);
    }
  }

  override end(): Ended {
    const vals = this.vals;
    this.vals = [];
    return this.finish(this.emitAll(vals));
  }

  /** Sends the values reshaped, a batch per slice. */
  private *emitAll(vals: Value[]): Work {
    const out: Value[] = [];
    for (const v of vals) {
      const rt = recordOf(v.type);
      out.push(rt === undefined ? v : this.reshape(rt, v));
      if (out.length >= 1000) {
        this.flushOut(out);
        yield;
      }
    }
    this.flushOut(out);
  }

  private flushOut(out: Value[]): void {
    if (out.length > 0 && !this.next.done) this.next.push(out.splice(0));
  }

  private reshape(rt: RecordType, v: Value): Value {
    const a = this.byType.get(rt)!;
    a.typ ??= zctx.lookupRecord(a.columns);
    let target = a.recode.get(rt);
    if (target === undefined) {
      const cols = a.typ.fields.map((f, k) =>
        a.signed[k]
          ? new Field(f.name, TypeInt64)
          : a.unsigned[k]
          ? new Field(f.name, TypeUint64)
          : f
      );
      target = zctx.lookupRecord(cols);
      a.recode.set(rt, target);
    }
    const body = v.body as Body[] | null;
    if (body === null || target === a.typ) return new Value(target, body);
    const from = a.typ.fields;
    return new Value(
      target,
      body.map((b, k) => {
        if (b === null || from[k].type === target!.fields[k].type) return b;
        // Only float64 columns are recoded; the value is integral by then.
        return from[k].type.id === ID_FLOAT64 ? intBody(BigInt(b as number)) : b;
      }),
    );
  }
}
