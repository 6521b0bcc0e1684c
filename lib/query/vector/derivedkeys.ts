// An expression of top-level fields evaluated per row of an object from its
// fields' columns, as a sort by that expression (`sort -r orig_bytes+resp_bytes
// | head 10`) evaluates it on each value: over a record of those fields, a
// missing result taken as null (lake/derivedtopk.ts picks the rows).

import { Kind, typeUnder } from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { isMissing, NULL } from "../runtime/values.ts";
import { DerivedArg } from "./derive.ts";
import type { ColumnarObject } from "./object.ts";
import { type PathValues, pathValues } from "./pathvalues.ts";

/** An object's keys, and the one its rows without the fields share. */
export interface DerivedKeys {
  keys: (Value | undefined)[];
  missing: Value;
}

/**
 * Per selected row (all rows when sel is null), the expression's value;
 * undefined for the others. Null when the columns cannot give the fields,
 * or the object holds values other than records. missing: the key of rows
 * without the fields from an earlier object, shared (one value, which
 * compares to itself at once).
 */
export async function derivedKeys(
  o: ColumnarObject,
  fields: readonly string[],
  expr: Expr,
  sel: Uint8Array | null,
  missing?: Value,
): Promise<DerivedKeys | null> {
  if (!o.types.every((t) => typeUnder(t).kind === Kind.Record)) return null;
  const types = await o.typeIndex();
  const sources: PathValues[] = [];
  for (const f of fields) {
    const pv = await pathValues(o, types, [f]);
    if (pv === null) return null;
    sources.push(pv);
  }
  const arg = new DerivedArg(o.rows, sources, [...fields], expr, missing);
  const out = new Array<Value | undefined>(o.rows);
  for (let r = 0; r < o.rows; r++) {
    if (sel !== null && sel[r] !== 1) continue;
    const v = arg.value(r);
    out[r] = isMissing(v) ? NULL : v;
  }
  return { keys: out, missing: arg.missing };
}
