// A filter atom whose outcome depends only on each record's type: `this`
// read only through what its type says (`len(this)` of a record is its
// count of fields, `typeof(this)`, `nameof(this)`, `is(this, <t>)`),
// beside constants. Its outcome per record type comes from the expression
// evaluated once, on a record of that type whose fields are all null; no
// column is read.

import type * as ast from "../ast.ts";
import type { Expr } from "../runtime/expr.ts";
import { Kind, type Type, typeUnder } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import type { ColumnarObject } from "./object.ts";
import {
  type FilterNode,
  outcome,
  rowsFromTypes,
  type TypeIndex,
  type TypeOutcomes,
} from "./codes.ts";

/** Functions of `this` whose result for a record depends only on its type. */
const OF_TYPE = new Set(["len", "typeof", "nameof"]);

export class ThisTypeAtom implements FilterNode {
  /** Outcomes found so far, by record type (a query sees few). */
  private byType = new Map<Type, number>();

  constructor(private expr: Expr, private strict: boolean) {}

  perType(o: ColumnarObject): TypeOutcomes | null {
    const out = new Int8Array(o.types.length);
    for (let k = 0; k < o.types.length; k++) {
      const t = o.types[k];
      let code = this.byType.get(t);
      if (code === undefined) {
        const r = typeUnder(t);
        // (Not another kind of value: the length of a string is its own.)
        if (r.kind !== Kind.Record) return null;
        const nulls = new Uint8Array(r.fields.length); // each field's tag: null
        code = outcome(this.expr(new Value(t, nulls)), this.strict);
        this.byType.set(t, code);
      }
      out[k] = code;
    }
    return out;
  }

  eval(o: ColumnarObject, types: TypeIndex, per: TypeOutcomes): Promise<Uint8Array> {
    return Promise.resolve(rowsFromTypes(o.rows, types, per));
  }
}

/**
 * Whether e reads `this` only through its type (see above), at least once,
 * and nothing else of the value: constants, operators, and the functions
 * above applied to `this` itself.
 */
export function readsThisType(e: ast.Expr): boolean {
  let uses = 0;
  const walk = (x: ast.Expr): boolean => {
    switch (x.kind) {
      case "Primitive":
      case "TypeValue":
        return true;
      case "UnaryExpr":
        return walk(x.operand);
      case "BinaryExpr":
        if (x.op === "." || x.op === "[") return false;
        return walk(x.lhs) && walk(x.rhs);
      case "Call": {
        const [a, b] = x.args;
        const onThis = a?.kind === "ID" && a.name === "this";
        if (onThis && OF_TYPE.has(x.name) && x.args.length === 1) {
          uses++;
          return true;
        }
        // `is(this, <t>)`, and `is(<t>)`, which tests `this`.
        const isOf = x.name === "is" &&
          ((onThis && x.args.length === 2 && b.kind === "TypeValue") ||
            (x.args.length === 1 && a.kind === "TypeValue"));
        if (isOf) {
          uses++;
          return true;
        }
        return false;
      }
      default:
        return false;
    }
  };
  return walk(e) && uses > 0;
}
