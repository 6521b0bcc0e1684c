// A query over the caller's inputs (zq's files) whose head can run on parts
// of the input apart, on other threads, with the same answer: leading
// filters, then a summarize whose aggregates merge exactly. Each part is
// filtered and summarized on its own (PartRun); the first part's summarize
// then takes the other parts' groups in input order (Summarize.mergeGroups,
// so groups come out in the order one pass finds them) and what it emits
// runs through the rest of the query.

import { LochError } from "../errors.ts";
import type { ValueWriter } from "../formats/io.ts";
import type { Batch } from "../zed/value.ts";
import { lookupAggregate } from "./aggregates/registry.ts";
import type * as ast from "./ast.ts";
import type { CompiledQuery } from "./compiler/compile.ts";
import { OpCompiler } from "./compiler/ops.ts";
import { Scope } from "./compiler/scope.ts";
import { Summarize } from "./ops/summarize.ts";
import { parseQuery } from "./parser/parse.ts";
import { summarizeParts } from "./planner/nodes.ts";
import { Collector, type Op, type OpFactory } from "./runtime/op.ts";
import { BatchesReader } from "./runtime/opreader.ts";
import { buildPausing, maybeYield } from "./runtime/turns.ts";
import { runQuery } from "./run.ts";

/** The head of a split query run over one part of the input. */
export class PartRun {
  /** Values pushed. */
  records = 0;
  private readonly head: Op;

  constructor(
    readonly summarize: Summarize,
    /** What the summarize emits (once ended). */
    readonly emitted: Collector,
    filters: OpFactory,
  ) {
    this.head = filters(summarize);
  }

  push(batch: Batch): void {
    this.records += batch.length;
    this.head.push(batch);
  }

  /** The groups so far, saved for the first part's run to merge; null once they spilled. */
  saved(): Uint8Array | null {
    return this.summarize.savedGroups()?.groups ?? null;
  }
}

export class SplitQuery {
  private constructor(
    private readonly filters: OpFactory,
    private readonly summarize: OpFactory,
    private readonly rest: CompiledQuery,
  ) {}

  /**
   * The query split after its summarize, or null when its head is not
   * filters and a summarize whose aggregates merge exactly (or it declares
   * constants or types, which a split would have to carry to every part).
   */
  static of(text: string): SplitQuery | null {
    let seq: ast.Sequential;
    try {
      seq = parseQuery(text);
    } catch {
      return null;
    }
    if (seq.consts.length > 0) return null;
    const ops = seq.ops;
    const c = new OpCompiler();
    const scope = new Scope();
    let i = 0;
    while (i < ops.length && isFilter(c, ops[i], scope)) i++;
    const parts = i < ops.length ? summarizeParts(ops[i]) : null;
    if (parts === null || !parts.aggs.every((a) => mergeable(a.rhs))) return null;
    // (A program needs an operator: nothing after the summarize is `pass`.)
    const after = i + 1 < ops.length ? ops.slice(i + 1) : parseQuery("pass").ops;
    const rest: ast.Sequential = { kind: "Sequential", consts: [], ops: after };
    return new SplitQuery(
      c.chain(ops.slice(0, i), scope),
      c.op(ops[i], scope),
      c.program(rest, scope),
    );
  }

  /** A fresh run of the head, for one part. */
  part(): PartRun {
    const emitted = new Collector();
    const op = buildPausing(maybeYield, () => this.summarize(emitted));
    if (!(op instanceof Summarize) || !op.merges) {
      throw new LochError("internal", "split query without a summarize that merges");
    }
    return new PartRun(op, emitted, this.filters);
  }

  /**
   * Ends the query: the first part's run takes the other parts' saved
   * groups in input order, and its output runs through the rest of the
   * query to writer.
   */
  async finish(first: PartRun, others: Uint8Array[], writer: ValueWriter): Promise<void> {
    for (const saved of others) first.summarize.mergeGroups(saved);
    await first.summarize.end();
    await runQuery(this.rest, [new BatchesReader(first.emitted.take())], writer);
  }
}

/** A per-value filter (`where`, a search, a bare boolean expression). */
function isFilter(c: OpCompiler, op: ast.Op, scope: Scope): boolean {
  return op.kind === "Where" || op.kind === "Search" ||
    (op.kind === "OpExpr" && c.isFilterExpr(op.expr, scope));
}

function mergeable(e: ast.Expr): boolean {
  return (e.kind === "Agg" || e.kind === "Call") && lookupAggregate(e.name)?.mergeable === true;
}
