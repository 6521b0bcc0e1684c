// Outcome codes: what a filter's parts yield per row, combined by the
// reference's rules for `and`, `or` and `!` (expr/logic.ts).

import { TypeBool, typeUnder } from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";
import { isMissing, isQuiet } from "../runtime/values.ts";
import type { ColumnarObject } from "./object.ts";

/** Outcomes: false (or a null bool), true, error("missing"), error("quiet"), anything else. */
export const F = 0, T = 1, M = 2, Q = 3, E = 4;

export type TypeIndex = Uint16Array | Uint32Array | null;

/** The outcome of a value an expression returned. */
export function outcome(v: Value): number {
  const t = v.type;
  if (t === TypeBool || typeUnder(t) === TypeBool) return v.body === true ? T : F;
  if (isMissing(v)) return M;
  if (isQuiet(v)) return Q;
  return E;
}

/** A part of a filter: its outcome per row of an object, or null when columns cannot tell. */
export interface FilterNode {
  eval(o: ColumnarObject, types: TypeIndex): Promise<Uint8Array | null>;
}
