// `where` (and `search`, and implied filters): keeps the values for which a
// predicate is true. The reference's filter rule (language.md §3.20): false,
// null, error("missing") and error("quiet") drop the value; any other error
// is emitted in place of the value; a non-bool result becomes
// error("not type bool: <zson>").

import type { Batch, Value } from "../../zed/value.ts";
import { Kind, TypeBool, typeUnder } from "../../zed/types.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { errorValue, isError, isMissing, isQuiet, zson } from "../runtime/values.ts";

/**
 * What the filter emits for input v whose predicate result is r: v itself,
 * an error value, or undefined (dropped).
 */
export function filterOne(v: Value, r: Value): Value | undefined {
  const t = r.type;
  if (t === TypeBool || (t.kind === Kind.Named && typeUnder(t) === TypeBool)) {
    // Like every per-value operator of the reference, a filter never passes
    // error("missing") or error("quiet") on, even as its own input.
    return r.body === true && !isMissing(v) && !isQuiet(v) ? v : undefined;
  }
  if (isError(r)) return isMissing(r) || isQuiet(r) ? undefined : r;
  return errorValue("not type bool: " + zson(r));
}

/**
 * A batch through `where` filters one after another, as their operators
 * take it (filterOne): each value dropped, kept, or replaced by an error.
 */
export function throughFilters(batch: Value[], preds: readonly Expr[]): Value[] {
  let out = batch;
  for (const pred of preds) {
    const next: Value[] = [];
    for (let i = 0; i < out.length; i++) {
      const kept = filterOne(out[i], pred(out[i]));
      if (kept !== undefined) next.push(kept);
    }
    out = next;
  }
  return out;
}

/**
 * Whether a filter lifted into its source (the first filter after a `from`
 * or the query's inputs) keeps a value whose predicate result is r. The
 * reference's scanners apply such a filter themselves, by another rule than
 * the operator's: only a result of type bool (not a named one) that is true
 * keeps a value; an error of any kind, a non-bool or null drops it.
 */
export function scanKeeps(r: Value): boolean {
  return r.type === TypeBool && r.body === true;
}

/**
 * The filter operator; lifted: a filter lifted into the query's inputs,
 * which keeps the values scanKeeps does.
 */
export class Filter extends Unary {
  constructor(next: Op, private readonly pred: Expr, private readonly lifted = false) {
    super(next);
  }

  push(batch: Batch): void {
    const pred = this.pred, lifted = this.lifted;
    const out: Value[] = [];
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      const r = pred(v);
      if (lifted) {
        if (scanKeeps(r)) out.push(v);
        continue;
      }
      const kept = filterOne(v, r);
      if (kept !== undefined) out.push(kept);
    }
    this.emit(out);
  }
}
