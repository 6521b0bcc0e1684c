// Outcome codes: what a filter's parts yield per row, combined by the
// reference's rules for `and`, `or` and `!` (expr/logic.ts).

import { TypeBool, typeUnder } from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";
import { isMissing, isQuiet } from "../runtime/values.ts";
import type { ColumnarObject } from "./object.ts";

/** Outcomes: false (or a null bool), true, error("missing"), error("quiet"), anything else. */
export const F = 0, T = 1, M = 2, Q = 3, E = 4;

export type TypeIndex = Uint16Array | Uint32Array | null;

/**
 * The outcome of a value an expression returned. Strict (a lifted filter's
 * own result, see ops/where.ts scanKeeps): only type bool itself is a bool,
 * a named bool is any other value.
 */
export function outcome(v: Value, strict = false): number {
  const t = v.type;
  if (t === TypeBool || (!strict && typeUnder(t) === TypeBool)) return v.body === true ? T : F;
  if (isMissing(v)) return M;
  if (isQuiet(v)) return Q;
  return E;
}

/** Per type of an object: the outcome all its rows have, or VARIES when they differ. */
export type TypeOutcomes = Int8Array;
export const VARIES = -1;

/** A part of a filter. */
export interface FilterNode {
  /** The outcome per type where one decides all its rows; null when columns cannot tell. */
  perType(o: ColumnarObject): TypeOutcomes | null;
  /** The outcome per row (given perType's answer, which was not null). */
  eval(o: ColumnarObject, types: TypeIndex, per: TypeOutcomes): Promise<Uint8Array | null>;
}

/** Outcomes per row from outcomes per type, VARIES left 0. */
export function rowsFromTypes(rows: number, types: TypeIndex, per: TypeOutcomes): Uint8Array {
  const codes = new Uint8Array(rows);
  if (types === null) {
    if (per[0] > 0) codes.fill(per[0]);
    return codes;
  }
  for (let i = 0; i < rows; i++) {
    const c = per[types[i]];
    if (c > 0) codes[i] = c;
  }
  return codes;
}
