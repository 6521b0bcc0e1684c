// Pools: named collections of data ordered by a key (lake-api.md §6).

import { checkName } from "./names.ts";
import { invalid, LochError } from "../errors.ts";
import type { Catalog } from "./catalog/catalog.ts";
import { type KSUID, newKSUID, toBase62, tryParseID } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { forgetObjects } from "./objects.ts";

export interface Layout {
  order: "asc" | "desc";
  /** Key paths (only the first is used); null when the pool was created without keys. */
  keys: string[][] | null;
}

export interface PoolConfig {
  id: KSUID;
  name: string;
  /** Creation time, ns since the epoch. */
  ts: bigint;
  layout: Layout;
  seekStride: number;
  threshold: number;
}

/** The reference's defaults. */
export const DEFAULT_THRESHOLD = 524288000;
export const DEFAULT_SEEK_STRIDE = 65536;

interface PoolRow {
  id: Uint8Array;
  name: string;
  ts: number | bigint;
  layout_order: string;
  layout_keys: string | null;
  seek_stride: number;
  threshold: number;
}

function fromRow(r: PoolRow): PoolConfig {
  return {
    id: r.id,
    name: r.name,
    ts: BigInt(r.ts),
    layout: {
      order: r.layout_order === "desc" ? "desc" : "asc",
      keys: r.layout_keys === null ? null : JSON.parse(r.layout_keys),
    },
    seekStride: r.seek_stride,
    threshold: r.threshold,
  };
}

export function notFound(what: string): LochError {
  return new LochError("not found", what);
}

/** The sort key of a pool: its first key, or `ts` when it has none. */
export function sortKey(p: PoolConfig): string[] {
  return p.layout.keys?.[0] ?? ["ts"];
}

export interface CreatePool {
  name: string;
  layout?: Layout;
  seekStride?: number;
  threshold?: number;
}

/**
 * The range the service keeps a pool's threshold and seek stride in (0 is
 * the default; 1000 is Zed's tests' smallest seek stride). Smaller values make an object or a seek entry per handful of
 * records, which a client could use to flood the disk and catalog; the
 * command line takes any positive size (Zed's own tests use `-S 32B`).
 */
export const SERVICE_SIZE_MIN = 1000;
export const SERVICE_SIZE_MAX = 2 ** 40;

/** Throws a 400 unless threshold and seekStride are 0 or within the service's range. */
export function checkServiceSizes(threshold: number, seekStride: number): void {
  for (const [name, v] of [["thresh", threshold], ["seek_stride", seekStride]] as const) {
    if (v !== 0 && !(v >= SERVICE_SIZE_MIN && v <= SERVICE_SIZE_MAX)) {
      throw invalid(
        `invalid ${name}: ${v} (0 for the default, else from ${SERVICE_SIZE_MIN} to ${SERVICE_SIZE_MAX} bytes)`,
      );
    }
  }
}

export function createPool(lake: Lake, req: CreatePool): PoolConfig {
  const cat = lake.catalog;
  // A client's fault: 400 (Zed answers 500).
  if (req.name === "HEAD") throw invalid('pool cannot be named "HEAD"');
  if (req.name === "") throw invalid("pool name cannot be empty");
  checkName("pool", req.name);
  if ((req.threshold ?? 0) < 0) throw invalid(`invalid pool threshold: ${req.threshold}`);
  if ((req.seekStride ?? 0) < 0) throw invalid(`invalid pool seek stride: ${req.seekStride}`);
  const order = req.layout?.order ?? "asc";
  if (order !== "asc" && order !== "desc") {
    throw invalid(`invalid sort order: ${JSON.stringify(order)}`);
  }
  const pool: PoolConfig = {
    id: newKSUID(),
    name: req.name,
    ts: BigInt(Date.now()) * 1000000n,
    layout: { order, keys: req.layout?.keys ?? null },
    seekStride: req.seekStride || DEFAULT_SEEK_STRIDE,
    threshold: req.threshold || DEFAULT_THRESHOLD,
  };
  const created = cat.transaction(() => {
    if (cat.get("SELECT 1 FROM pools WHERE name = ?", req.name) !== undefined) {
      throw new LochError("conflict", `${req.name}: pool already exists`);
    }
    cat.run(
      "INSERT INTO pools (id, name, ts, layout_order, layout_keys, seek_stride, threshold) VALUES (?, ?, ?, ?, ?, ?, ?)",
      pool.id,
      pool.name,
      pool.ts,
      pool.layout.order,
      pool.layout.keys === null ? null : JSON.stringify(pool.layout.keys),
      pool.seekStride,
      pool.threshold,
    );
    cat.run(
      "INSERT INTO branches (pool_id, name, ts, commit_id) VALUES (?, 'main', ?, ?)",
      pool.id,
      pool.ts,
      new Uint8Array(20),
    );
    return pool;
  });
  lake.emit({ kind: "pool-new", poolId: created.id });
  return created;
}

export function listPools(cat: Catalog): PoolConfig[] {
  return cat.all<PoolRow>("SELECT * FROM pools ORDER BY name").map(fromRow);
}

/**
 * A pool by id (base62 or 0x-hex) when the text parses as one, else by name.
 * (The reference stops at the id; a pool whose name looks like an id is
 * found here too.)
 */
export function lookupPool(cat: Catalog, nameOrId: string): PoolConfig {
  const id = tryParseID(nameOrId);
  if (id !== undefined) {
    const r = cat.get<PoolRow>("SELECT * FROM pools WHERE id = ?", id);
    if (r !== undefined) return fromRow(r);
  }
  const byName = cat.get<PoolRow>("SELECT * FROM pools WHERE name = ?", nameOrId);
  if (byName !== undefined) return fromRow(byName);
  throw notFound(`${id !== undefined ? toBase62(id) : nameOrId}: pool not found`);
}

export function poolById(cat: Catalog, id: KSUID): PoolConfig {
  const r = cat.get<PoolRow>("SELECT * FROM pools WHERE id = ?", id);
  if (r === undefined) throw notFound(`${toBase62(id)}: pool not found`);
  return fromRow(r);
}

/** Renames a pool. Like the reference, any non-empty new name is accepted if it is free. */
export function renamePool(lake: Lake, id: KSUID, name: string): void {
  if (name === "") throw invalid("pool name cannot be empty");
  checkName("pool", name);
  const cat = lake.catalog;
  cat.transaction(() => {
    poolById(cat, id);
    const other = cat.get<{ id: Uint8Array }>("SELECT id FROM pools WHERE name = ?", name);
    if (other !== undefined && toBase62(other.id) !== toBase62(id)) {
      throw new LochError("conflict", `${name}: pool already exists`);
    }
    cat.run("UPDATE pools SET name = ? WHERE id = ?", name, id);
  });
  lake.emit({ kind: "pool-update", poolId: id });
}

/**
 * Drops a pool: its catalog rows (commits, branches, objects) go in one
 * transaction, then its files.
 */
export async function dropPool(lake: Lake, id: KSUID): Promise<void> {
  const cat = lake.catalog;
  const objects = cat.transaction(() => {
    poolById(cat, id);
    const ids = cat.all<{ id: Uint8Array }>("SELECT id FROM objects WHERE pool_id = ?", id)
      .map((r) => r.id);
    cat.run("DELETE FROM pools WHERE id = ?", id);
    return ids;
  });
  forgetObjects(objects);
  await lake.storage.removeTree(lake.poolDir(id));
  lake.emit({ kind: "pool-delete", poolId: id });
}
