// A pool scan that first asks the data objects' field indexes about the
// filter (lake-api.md §11.5): objects whose indexes prove that no record can
// pass are skipped, and of the others only the streams that hold the records
// the indexes point at are read. Objects without a usable index are read as
// usual. The lookups happen on the first read.

import type { ValueReader } from "../../formats/io.ts";
import type { Batch } from "../../zed/value.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { type KSUID, toHex } from "../ksuid.ts";
import type { Lake } from "../lake.ts";
import type { DataObject } from "../objects.ts";
import type { PoolKey } from "../poolkey.ts";
import { spanMayMatch } from "../prune.ts";
import type { PoolConfig } from "../pools.ts";
import { type IndexRule, ruleById } from "../rules.ts";
import { newScanStats, PoolScan, type ScanOptions } from "../scan.ts";
import type { RecordRange } from "./fieldindex.ts";
import { evaluateTerms } from "./lookup.ts";
import { bindingsByObject, type IndexBinding } from "./store.ts";
import { type IndexTerms, termPaths } from "./terms.ts";

/** How many objects' indexes are looked up at once. */
const PARALLEL = 16;

export class IndexedPoolScan implements ValueReader {
  private scan: PoolScan | null = null;
  private closed = false;

  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private key: PoolKey,
    private objects: DataObject[],
    private bindings: IndexBinding[],
    private terms: IndexTerms,
    private opts: ScanOptions,
  ) {}

  async read(): Promise<Batch | null> {
    if (this.closed) return null;
    if (this.scan === null) this.scan = await this.plan();
    return await this.scan.read();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.scan?.close();
  }

  private async plan(): Promise<PoolScan> {
    const stats = this.opts.stats ?? newScanStats();
    const range = this.opts.range;
    const rulesOf = fieldRulesByObject(this.lake.catalog, this.bindings, termPaths(this.terms));
    const ranges = new Map<DataObject, RecordRange>();
    const kept: DataObject[] = [];
    for (let i = 0; i < this.objects.length; i += PARALLEL) {
      const chunk = this.objects.slice(i, i + PARALLEL);
      const outcomes = await Promise.all(chunk.map((o) => {
        const rules = rulesOf.get(toHex(o.id));
        // (Objects the key range rules out are left to the scan to prune.)
        if (rules === undefined || (range !== null && !spanMayMatch(o.span, range))) {
          return undefined;
        }
        return evaluateTerms(this.lake, this.pool.id, o.id, rules, this.terms);
      }));
      chunk.forEach((o, k) => {
        const r = outcomes[k];
        if (r === null) {
          stats.objectsPruned++;
          stats.objectsSkippedByIndex++;
          return;
        }
        if (r !== undefined && (r[0] > 0 || r[1] < o.count - 1)) ranges.set(o, r);
        kept.push(o);
      });
    }
    return new PoolScan(this.lake, this.pool, this.key, kept, {
      ...this.opts,
      stats,
      records: ranges.size === 0 ? undefined : (o) => ranges.get(o),
    });
  }
}

/** For each data object (hex id), the field rules on the given paths it has index objects of. */
function fieldRulesByObject(
  cat: Catalog,
  bindings: IndexBinding[],
  paths: string[][],
): Map<string, IndexRule[]> {
  const wanted = new Set(paths.map((p) => JSON.stringify(p)));
  const rules = new Map<string, IndexRule | null>();
  const ruleOf = (id: KSUID) => {
    const k = toHex(id);
    let r = rules.get(k);
    if (r === undefined) {
      const rule = ruleById(cat, id);
      r = rule?.kind === "field" && wanted.has(JSON.stringify(rule.fields[0])) ? rule : null;
      rules.set(k, r);
    }
    return r;
  };
  const out = new Map<string, IndexRule[]>();
  for (const [obj, ids] of bindingsByObject(bindings)) {
    const rs = ids.map(ruleOf).filter((r): r is IndexRule => r !== null);
    if (rs.length > 0) out.set(obj, rs);
  }
  return out;
}
