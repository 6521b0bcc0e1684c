// `from pool diff A B`: the values added and removed between two points of a
// pool's history (commits or branches), each marked with a `diff` field,
// "removed" ones first, then "added" ones. Only the objects in one of the
// two object sets are read: whole unchanged objects never are. Values that
// moved between objects without changing (a compaction, the untouched part
// of an object a delete-by-where rewrote) cancel out, value for value, so a
// compaction diffs to nothing.

import { LochError } from "../errors.ts";
import type { ValueReader } from "../formats/io.ts";
import { type Expr, filterOne, valueKey } from "../query/mod.ts";
import { zctx } from "../zed/context.ts";
import { Field, Kind, type RecordType, TypeString } from "../zed/types.ts";
import { type Batch, type Body, Value } from "../zed/value.ts";
import type { Lake } from "./lake.ts";
import type { CommitView } from "./meta.ts";
import type { DataObject } from "./objects.ts";
import { PoolKey } from "./poolkey.ts";
import { PoolScan, type ScanStats } from "./scan.ts";

/** The objects of view a that view b does not have. */
function only(a: CommitView, b: CommitView): DataObject[] {
  const inB = new Set(b.objects.map((o) => hex(o.id)));
  return a.objects.filter((o) => !inB.has(hex(o.id)));
}

function hex(id: Uint8Array): string {
  let s = "";
  for (const x of id) s += x.toString(16).padStart(2, "0");
  return s;
}

/** Every value of some objects of a pool, in pool order. */
async function readAll(
  lake: Lake,
  view: CommitView,
  objects: DataObject[],
  stats: ScanStats,
  signal?: AbortSignal,
): Promise<Value[]> {
  const key = PoolKey.of(view.pool);
  const scan = new PoolScan(lake, view.pool, key, objects, { range: null, filter: null, stats });
  const out: Value[] = [];
  for (let b = await scan.read(); b !== null; b = await scan.read()) {
    if (signal?.aborted) throw new LochError("invalid", "query stopped");
    for (const v of b) out.push(v);
  }
  return out;
}

/** The values of `from` ... `diff a b`: removed ones, then added ones, filtered. */
export class DiffReader implements ValueReader {
  private out: Value[] | null = null;

  constructor(
    private lake: Lake,
    private from: CommitView,
    private to: CommitView,
    private filter: Expr | null,
    private stats: ScanStats,
    private signal?: AbortSignal,
  ) {}

  async read(): Promise<Batch | null> {
    if (this.out === null) this.out = await this.compute();
    const out = this.out;
    while (out.length > 0) {
      const batch = out.splice(0, 1000);
      const f = this.filter;
      if (f === null) return batch;
      const passed: Value[] = [];
      for (const v of batch) {
        const r = filterOne(v, f(v));
        if (r !== undefined) passed.push(r);
      }
      if (passed.length > 0) return passed;
    }
    return null;
  }

  private async compute(): Promise<Value[]> {
    const removed = await readAll(
      this.lake,
      this.from,
      only(this.from, this.to),
      this.stats,
      this.signal,
    );
    const added = await readAll(
      this.lake,
      this.to,
      only(this.to, this.from),
      this.stats,
      this.signal,
    );
    // Values in both cancel out, as many times as they are in both.
    const count = new Map<string, number>();
    for (const v of removed) {
      const k = valueKey(v.type, v.body);
      count.set(k, (count.get(k) ?? 0) + 1);
    }
    const addedOnly: Value[] = [];
    for (const v of added) {
      const k = valueKey(v.type, v.body);
      const n = count.get(k) ?? 0;
      if (n > 0) count.set(k, n - 1);
      else addedOnly.push(v);
    }
    const out: Value[] = [];
    for (const v of removed) {
      const k = valueKey(v.type, v.body);
      const n = count.get(k) ?? 0;
      if (n === 0) continue;
      count.set(k, n - 1);
      out.push(marked("removed", v));
    }
    for (const v of addedOnly) out.push(marked("added", v));
    return out;
  }
}

/** A value with its `diff` marker: a record gets it as its first field, anything else is wrapped. */
function marked(diff: "added" | "removed", v: Value): Value {
  const t = v.type;
  if (t.kind === Kind.Record && v.body !== null) {
    const rec = t as RecordType;
    const fields = rec.fields.filter((f) => f.name !== "diff");
    const body = v.body as Body[];
    const values = rec.fields.flatMap((f, i) => (f.name === "diff" ? [] : [body[i]]));
    const rt = zctx.lookupRecord([new Field("diff", TypeString), ...fields]);
    return new Value(rt, [diff, ...values]);
  }
  const rt = zctx.lookupRecord([new Field("diff", TypeString), new Field("value", t)]);
  return new Value(rt, [diff, v.body]);
}
