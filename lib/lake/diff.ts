// `from pool diff A B`: the values added and removed between two points of a
// pool's history (commits or branches), each marked with a `diff` field,
// "removed" ones first, then "added" ones. Only the objects in one of the
// two object sets are read: whole unchanged objects never are. Values that
// moved between objects without changing (a compaction, the untouched part
// of an object a delete-by-where rewrote) cancel out, value for value, so a
// compaction diffs to nothing.

import { LochError } from "../errors.ts";
import type { ValueReader } from "../formats/io.ts";
import { type Expr, scanKeeps, valueKey } from "../query/mod.ts";
import { zctx } from "../zed/context.ts";
import { Field, Kind, type RecordType, TypeString } from "../zed/types.ts";
import { type Batch, type Body, Value } from "../zed/value.ts";
import type { Lake } from "./lake.ts";
import type { CommitView } from "./meta.ts";
import type { DataObject } from "./objects.ts";
import type { PoolConfig } from "./pools.ts";
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
  pool: PoolConfig,
  objects: DataObject[],
  stats: ScanStats,
  signal?: AbortSignal,
): Promise<Value[]> {
  const key = PoolKey.of(pool);
  const scan = new PoolScan(lake, pool, key, objects, { range: null, filter: null, stats });
  const out: Value[] = [];
  for (let b = await scan.read(); b !== null; b = await scan.read()) {
    if (signal?.aborted) throw new LochError("invalid", "query stopped");
    for (const v of b) out.push(v);
  }
  return out;
}

/**
 * The values of objects `fromObjects` that `toObjects` do not hold
 * (removed) and those of `toObjects` that `fromObjects` do not (added):
 * equal values cancel out, as many times as they are in both.
 */
export async function diffObjects(
  lake: Lake,
  pool: PoolConfig,
  fromObjects: DataObject[],
  toObjects: DataObject[],
  stats: ScanStats,
  signal?: AbortSignal,
): Promise<{ removed: Value[]; added: Value[] }> {
  const removed = await readAll(lake, pool, fromObjects, stats, signal);
  const added = await readAll(lake, pool, toObjects, stats, signal);
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
  const removedOnly: Value[] = [];
  for (const v of removed) {
    const k = valueKey(v.type, v.body);
    const n = count.get(k) ?? 0;
    if (n === 0) continue;
    count.set(k, n - 1);
    removedOnly.push(v);
  }
  return { removed: removedOnly, added: addedOnly };
}

/** The values of `from` ... `diff a b`: removed ones, then added ones, filtered. */
export class DiffReader implements ValueReader {
  private out: HeldValues | null = null;

  constructor(
    private lake: Lake,
    private from: CommitView,
    private to: CommitView,
    private filter: Expr | null,
    private stats: ScanStats,
    private signal?: AbortSignal,
  ) {}

  async read(): Promise<Batch | null> {
    if (this.out === null) {
      const d = await diffObjects(
        this.lake,
        this.from.pool,
        only(this.from, this.to),
        only(this.to, this.from),
        this.stats,
        this.signal,
      );
      this.out = new HeldValues([
        ...d.removed.map((v) => marked("removed", v)),
        ...d.added.map((v) => marked("added", v)),
      ], this.filter);
    }
    return this.out.next();
  }
}

/** Values computed whole, handed out a batch at a time through a filter. */
export class HeldValues {
  private pos = 0;

  constructor(private readonly values: Value[], private readonly filter: Expr | null) {}

  /** The next batch of values that pass the filter, or null at the end. */
  next(): Batch | null {
    const vals = this.values, filter = this.filter;
    while (this.pos < vals.length) {
      const batch = vals.slice(this.pos, this.pos + 1000);
      this.pos += batch.length;
      if (filter === null) return batch;
      const passed: Value[] = [];
      for (const v of batch) {
        if (scanKeeps(filter(v))) passed.push(v);
      }
      if (passed.length > 0) return passed;
    }
    return null;
  }
}

/**
 * A value with a marker field (`diff` unless named): a record gets it as
 * its first field, anything else is wrapped as {<field>, value}.
 */
export function marked(mark: string, v: Value, field = "diff"): Value {
  const t = v.type;
  if (t.kind === Kind.Record && v.body !== null) {
    const rec = t as RecordType;
    const fields = rec.fields.filter((f) => f.name !== field);
    const body = v.body as Body[];
    const values = rec.fields.flatMap((f, i) => (f.name === field ? [] : [body[i]]));
    const rt = zctx.lookupRecord([new Field(field, TypeString), ...fields]);
    return new Value(rt, [mark, ...values]);
  }
  const rt = zctx.lookupRecord([new Field(field, TypeString), new Field("value", t)]);
  return new Value(rt, [mark, v.body]);
}
