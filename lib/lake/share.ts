// One scan's objects shared out over helper threads. A count or a
// summarize whose aggregates merge exactly can read its objects in parts
// (shards), each summarized on its own and the partial results merged in
// pool order: the same answer as one thread reading them all. The query's
// own thread keeps the first shard; helpers (the service's idle workers)
// take the others, each re-planning the same query and reading only the
// objects it is given. A helper that is not free, cannot find an object (the
// branch moved and the object went) or fails gives its shard back, and the
// query's thread reads it itself; so sharing only ever saves time.

import { toBase62 } from "./ksuid.ts";
import type { DataObject } from "./objects.ts";
import { newScanStats, type ScanStats } from "./scan.ts";

/**
 * What a helper sends back: the scan's partial result over its shard
 * (numbers: those a summarize recorded, if any), and what it read.
 */
export interface SharedPart {
  data: Uint8Array;
  numbers: Float64Array | null;
  stats: ScanStats;
}

/**
 * About how many bytes a scan reading fields (top-level names; null: all)
 * reads of an object: those of the fields' columns, or the whole object
 * when it has no columns or every field is read.
 */
export function bytesToRead(o: DataObject, fields: readonly string[] | null): number {
  if (fields === null || o.columns === null) return o.size;
  let n = 0;
  for (const c of o.columns.columns) {
    if (!fields.includes(c.path[0])) continue;
    for (const [, len] of c.bufs) n += len;
    if (c.dict !== undefined) { for (const [, len] of c.dict.bufs) n += len; }
  }
  return n;
}

/** Threads that can take a share of a scan (given by the service per query). */
export interface ScanHelpers {
  /** How many helpers may be asked at most. */
  readonly count: number;
  /** Least bytes of data a scan reads before it shares them out. */
  readonly minBytes: number;
  /**
   * Has a helper run the scan numbered `source` (in the order the query's
   * scans were opened) over the objects named (base62 ids); null when no
   * helper took it or it failed (the caller reads them itself).
   */
  share(source: number, objects: string[]): Promise<SharedPart | null>;
}

/** A scan that can read a shard of its objects for another thread (share.ts). */
export interface ShareableScan {
  /** The partial result over the named objects; null when one of them is not in its snapshot. */
  partial(objects: Set<string>): Promise<SharedPart | null>;
}

/** How a query's scans take part in sharing: as the query's own, or as a helper. */
export class ShareContext {
  /** Scans opened so far (they are numbered in opening order). */
  private scans: ShareableScan[] = [];

  /** helpers: those the query's scans may ask; null for a helper's own planning. */
  constructor(readonly helpers: ScanHelpers | null) {}

  /** Numbers a scan that can be shared; its number (the same in a helper that plans the same query). */
  register(scan: ShareableScan): number {
    this.scans.push(scan);
    return this.scans.length - 1;
  }

  /** The scan numbered n, if any. */
  scan(n: number): ShareableScan | undefined {
    return this.scans[n];
  }
}

/** The objects of ids that are in objects, in their order; null unless every id is. */
export function objectsNamed(objects: DataObject[], ids: Set<string>): DataObject[] | null {
  const found = objects.filter((o) => ids.has(toBase62(o.id)));
  return found.length === ids.size ? found : null;
}

/**
 * Reads units of objects (each read whole by one thread: an object, or a
 * run of overlapping ones), shared out when helpers are given and the
 * units hold at least their minBytes to read (weigh): the units are cut
 * into contiguous shards of about equal bytes, one per helper asked and one read here
 * (`local`) first. Every shard's result is then taken in order, a helper's
 * by `merge` and one given back by `local`, so the caller sees the shards'
 * results in pool order.
 */
export async function readShared(
  helpers: ScanHelpers | null,
  source: number,
  units: DataObject[][],
  weigh: (o: DataObject) => number,
  local: (objects: DataObject[]) => Promise<void>,
  merge: (part: SharedPart) => void,
): Promise<void> {
  const shards = helpers === null
    ? []
    : shardsOf(units, helpers.count + 1, helpers.minBytes, weigh);
  if (shards.length < 2) {
    await local(units.flat());
    return;
  }
  const asked = shards.slice(1).map((s) => helpers!.share(source, s.map((o) => toBase62(o.id))));
  // A helper's answer is waited for only after this thread's own shard.
  asked.forEach((p) => p.catch(() => {}));
  await local(shards[0]);
  for (let k = 1; k < shards.length; k++) {
    const part = await asked[k - 1].catch(() => null);
    if (part === null) await local(shards[k]);
    else merge(part);
  }
}

/**
 * Units cut into at most n contiguous shards of about equal bytes to read
 * (weigh: an object's; its size by default), none lighter than a quarter of an
 * even share; [] when they hold fewer than minBytes or make fewer than two.
 */
export function shardsOf(
  units: DataObject[][],
  n: number,
  minBytes: number,
  weigh: (o: DataObject) => number = (o) => o.size,
): DataObject[][] {
  const weight = (u: DataObject[]) => u.reduce((b, o) => b + weigh(o), 0);
  const weights = units.map(weight);
  const total = weights.reduce((a, b) => a + b, 0);
  if (n < 2 || units.length < 2 || total < Math.max(1, minBytes)) return [];
  const shards: DataObject[][] = [];
  let current: DataObject[] = [];
  let sum = 0;
  for (let i = 0; i < units.length; i++) {
    current.push(...units[i]);
    sum += weights[i];
    // The k-th cut goes where the running total first reaches k/n of it.
    if (shards.length < n - 1 && sum >= (total * (shards.length + 1)) / n) {
      shards.push(current);
      current = [];
    }
  }
  if (current.length > 0) shards.push(current);
  // A shard with little to read costs a helper's round trip and a merge and
  // saves next to nothing (one run holding nearly all the bytes, say): it
  // joins the one before (the first holds at least an even share).
  const least = total / n / 4;
  const kept: DataObject[][] = [];
  for (const s of shards) {
    if (kept.length === 0 || weight(s) >= least) kept.push(s);
    else kept[kept.length - 1].push(...s);
  }
  return kept.length < 2 ? [] : kept;
}

/** The scan counters' names. */
const STATS = Object.keys(newScanStats()) as (keyof ScanStats)[];

/** Adds what a helper's scan read to the query's counters. */
export function addStats(into: ScanStats, from: ScanStats): void {
  for (const k of STATS) into[k] += from[k];
}
