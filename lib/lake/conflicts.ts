// `from pool:conflicts(child, parent)`: the records a merge of child into
// parent would conflict on, as data. For each object both branches had and
// both changed (merge.ts's conflicts: one side deleted it while the other
// carried its values into new objects), the records each side removed from
// it and added in its place: {conflict, side, change, ...record}, side
// "source" (the child) or "destination" (the parent), change "removed" or
// "added". A merge refused with 409 names the same objects; `-strategy ours`
// or `theirs` resolves them (merge.ts).

import type { ValueReader } from "../formats/io.ts";
import type { Expr } from "../query/mod.ts";
import type { Batch, Value } from "../zed/value.ts";
import { getBranch } from "./branches.ts";
import { diffObjects, HeldValues, marked } from "./diff.ts";
import { type KSUID, toBase62 } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { planMerge } from "./merge.ts";
import { getObjects } from "./objects.ts";
import type { PoolConfig } from "./pools.ts";
import type { ScanStats } from "./scan.ts";
import { LochError } from "../errors.ts";

export class ConflictsReader implements ValueReader {
  private out: HeldValues | null = null;
  /** The two branches' tips, read when the query starts (a missing branch fails it then). */
  private readonly source: KSUID;
  private readonly destination: KSUID;

  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private args: string[],
    private filter: Expr | null,
    private stats: ScanStats,
  ) {
    if (args.length !== 2) {
      throw new LochError(
        "invalid",
        "conflicts: give the child and parent branch: :conflicts(child, parent)",
      );
    }
    this.source = getBranch(lake.catalog, pool.id, args[0]).commit;
    this.destination = getBranch(lake.catalog, pool.id, args[1]).commit;
  }

  async read(): Promise<Batch | null> {
    this.out ??= new HeldValues(await this.compute(), this.filter);
    return this.out.next();
  }

  private async compute(): Promise<Value[]> {
    const cat = this.lake.catalog;
    const out: Value[] = [];
    for (const c of planMerge(cat, this.pool.id, this.source, this.destination).conflicts) {
      const [base] = getObjects(cat, [c.object]);
      const id = toBase62(c.object);
      for (const [side, ids] of [["source", c.source], ["destination", c.destination]] as const) {
        const d = await diffObjects(this.lake, this.pool, [base], getObjects(cat, ids), this.stats);
        for (const [change, vals] of [["removed", d.removed], ["added", d.added]] as const) {
          for (const v of vals) {
            const rec = marked(change, v, "change");
            out.push(marked(id, marked(side, rec, "side"), "conflict"));
          }
        }
      }
    }
    return out;
  }
}
