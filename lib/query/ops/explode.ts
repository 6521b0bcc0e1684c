// `explode e, ... by <type> [as name]` (language.md §3.23): a record
// {name: v} for every non-null value of exactly that type found by walking
// each expression's value; errors other than missing pass through.

import { zctx } from "../../zed/context.ts";
import { Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import { type Batch, type Body, type UnionBody, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { isError, isMissing } from "../runtime/values.ts";

export class Explode extends Unary {
  private readonly out: RecordType;

  constructor(next: Op, private readonly exprs: Expr[], private readonly type: Type, name: string) {
    super(next);
    this.out = zctx.lookupRecordOf([name], [type]);
  }

  push(batch: Batch): void {
    const out: Value[] = [];
    for (const v of batch) {
      for (const e of this.exprs) {
        const r = e(v);
        if (isError(r)) {
          if (!isMissing(r)) out.push(r);
          continue;
        }
        this.walk(r.type, r.body, out);
      }
    }
    this.emit(out);
  }

  /** Finds values of the type, not descending into one once found. */
  private walk(t: Type, body: Body, out: Value[]): void {
    if (t === this.type && body !== null) {
      out.push(new Value(this.out, [body]));
      return;
    }
    if (body === null) return;
    switch (t.kind) {
      case Kind.Named:
        return this.walk(t.type, body, out);
      case Kind.Record:
        t.fields.forEach((f, i) => this.walk(f.type, (body as Body[])[i], out));
        return;
      case Kind.Array:
        for (const b of body as Body[]) this.walk(t.elem, b, out);
        return;
      case Kind.Set: {
        // Set elements and map entries are visited by their underlying types.
        const elem = typeUnder(t.elem);
        for (const b of body as Body[]) this.walk(elem, b, out);
        return;
      }
      case Kind.Map: {
        const k = typeUnder(t.key), v = typeUnder(t.value), kv = body as Body[];
        for (let i = 0; i < kv.length; i += 2) {
          this.walk(k, kv[i], out);
          this.walk(v, kv[i + 1], out);
        }
        return;
      }
      case Kind.Union: {
        const u = body as UnionBody;
        return this.walk(t.types[u.tag], u.body, out);
      }
      case Kind.Error:
        return this.walk(t.inner, body, out);
    }
  }
}
