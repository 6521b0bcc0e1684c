// Query text to a runnable operator graph.

import "../aggregates/mod.ts";
import "../functions/mod.ts";
import type * as ast from "../ast.ts";
import type { Expr } from "../runtime/expr.ts";
import type { Value } from "../../zed/value.ts";
import type { Op } from "../runtime/op.ts";
import type { Pushdown } from "../planner/pushdown.ts";
import type { VectorFilter } from "../vector/filter.ts";
import { invalid } from "../../errors.ts";
import { parseQuery } from "../parser/parse.ts";
import { OpCompiler } from "./ops.ts";
import { Scope } from "./scope.ts";

export interface CompiledQuery {
  /**
   * Input ports the caller's own inputs feed (zq's files): 1, 2 for a query
   * that starts with `join`, 0 for one that starts with `from`.
   */
  inputs: number;
  /**
   * The sources of the query's `from` operators (leading ones first, then
   * those after other operators), one input port each after the caller's,
   * or null for none. The caller opens them (pools, files, URLs) and must
   * apply each one's filter.
   */
  sources: SourcePlan[] | null;
  /**
   * Builds a fresh instance of the query's operators in front of `next`;
   * returns its input ports: the caller's, then one per source.
   */
  make: (next: Op) => Op[];
}

/**
 * A `from` source and what the planner gave it to do (planner/pushdown.ts):
 * its lifted filter, and for a pool, the operators right after that it
 * performs itself (taken off the operator chain). The opener of the source
 * must apply the filter and carry out the pushdown.
 */
/**
 * How a source hands on its values as EncodedValues: `after` names the
 * fields read of them after the filters (whose own fields SourcePlan.fields
 * holds with these); where it names none and nothing else needs them
 * decoded, the pool decodes nothing of the values.
 */
export interface EncodedValues {
  after: readonly string[];
}

export interface SourcePlan {
  source: ast.Source;
  /**
   * fieldsOnly: every name in the filter is a field (so it can constrain the
   * pool key); vector: the filter over columns, null when it cannot be.
   */
  filter: {
    ast: ast.Expr;
    pred: Expr;
    fieldsOnly: boolean;
    vector: VectorFilter | null;
    /**
     * The `where` operators right after the filter, folded into a pool
     * source: the values the filter passes go through them in pool order, as
     * through the operators (ops/where.ts filterOne), before anything the
     * source performs; its vector selects the rows of them all.
     */
    thens?: Expr[];
  } | null;
  /** What the source performs after its filter (pool sources only), or null. */
  pushdown: Pushdown | null;
  /** `range L to U`: the pool-key bounds (inclusive), evaluated. */
  range: { lower: Value | null; upper: Value | null } | null;
  /** Top-level fields the query reads, or null for all. */
  fields: string[] | null;
  /**
   * False when what follows gives the same result in any input order (a
   * count, or a summarize whose aggregates ignore order): a pool scan need
   * not merge overlapping objects then.
   */
  ordered: boolean;
  /**
   * Where nothing follows the source (its values are the query's output):
   * the top-level fields its filter reads (null: all). A writer that takes
   * values as they are encoded (ZNG) has the pool decode only these
   * (SourcePlan.encoded).
   */
  straight?: { fields: string[] | null };
  /**
   * The source's values are EncodedValues, decoded only for `fields`: set
   * where they go to `uniq` (which compares encodings), and by the lake for
   * a straight source whose output is ZNG (nothing read after the filters).
   */
  encoded?: EncodedValues;
}

export interface CompileOptions {
  /**
   * The source of a program that does not start with `from` (the lake
   * service reads `from HEAD` then); without it such a program reads its
   * caller's inputs.
   */
  defaultSource?: ast.Source;
}

export function compileQuery(text: string, opts: CompileOptions = {}): CompiledQuery {
  return withinStack(() => {
    const seq = parseQuery(text);
    if (opts.defaultSource !== undefined && !startsWithFrom(seq)) {
      seq.ops = [
        { kind: "From", trunks: [{ kind: "Trunk", source: opts.defaultSource, seq: null }] },
        ...seq.ops,
      ];
    }
    return new OpCompiler().program(seq, new Scope());
  });
}

/**
 * Runs fn, which walks a query recursively; a query nested deeper than the
 * stack holds (thousands of parentheses) is the client's fault, a 400.
 */
export function withinStack<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw invalid("query is nested too deeply");
    }
    throw e;
  }
}

function startsWithFrom(seq: ast.Sequential): boolean {
  const first = seq.ops[0];
  if (first?.kind === "From") return true;
  return first?.kind === "Parallel" && first.ops.every((leg) => leg.ops[0]?.kind === "From");
}
