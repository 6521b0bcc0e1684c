// Vacuuming a pool: removing what no branch can reach any more. A data or
// index object is reachable when a commit in the history of any branch of
// the pool added it — time travel to any such commit reads it, so it stays.
// What is left is the work of deleted branches (and of commits on them):
// their commits, the objects only they added, and those objects' files
// (data, columns, index objects). Unlike the reference's
// vacuum (Zed v1.10 on), which removes whatever one branch's tip no longer
// shows and so breaks time travel, no commit of any branch loses data; and
// the commits that could have named a removed object go too, so a query or
// revert of one says "not found" rather than reading partial data.
//
// Files the catalog does not know are removed too — objects and temporaries
// left by a crashed load or write — but only once they are older than a
// safety age, since a load writes its objects before the commit that names
// them and may be doing so right now.

import { type KSUID, toBase62, tryParseID } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { indexObjectPath } from "./index/store.ts";
import { forgetObjects } from "./objects.ts";
import type { PoolConfig } from "./pools.ts";

export const DEFAULT_MIN_AGE_MS = 60 * 60 * 1000;

export interface VacuumOptions {
  /** List what would go, remove nothing. */
  dryRun?: boolean;
  /** Files the catalog does not name are removed only when older than this (ms). */
  minAge?: number;
  /** The time to judge file ages by (ms since the epoch; for tests). */
  now?: number;
}

export interface VacuumResult {
  /** Data objects no branch can reach (their catalog rows and files go). */
  objects: KSUID[];
  /** Index objects no branch can reach. */
  indexes: { ruleId: KSUID; objectId: KSUID }[];
  /** Commits in no branch's history. */
  commits: KSUID[];
  /** Files the catalog does not name (crashed writes), old enough to go. */
  orphans: string[];
  /** Every file and directory removed (or, in a dry run, that would be). */
  paths: string[];
}

/**
 * The ids of the commits in any branch's history, as a CTE named reach(id).
 * Its parameters (portable SQL: positional only) are the pool id, the zero
 * commit id twice, then the pool id again for the query that follows.
 */
const REACH = `WITH RECURSIVE reach(id) AS (
    SELECT commit_id FROM branches WHERE pool_id = ? AND commit_id != ?
    UNION
    SELECT c.parent FROM commits c JOIN reach ON c.id = reach.id
      WHERE c.parent != ?
  )`;

const ZERO_ID = new Uint8Array(20);

/** The parameters of a query on REACH for a pool. */
const reachParams = (poolId: KSUID) => [poolId, ZERO_ID, ZERO_ID, poolId];

const UNREACHABLE_COMMITS = `${REACH}
  SELECT id FROM commits WHERE pool_id = ? AND id NOT IN (SELECT id FROM reach)`;

const UNREACHABLE_OBJECTS = `${REACH}
  SELECT id FROM objects WHERE pool_id = ? AND id NOT IN (
    SELECT a.object_id FROM actions a JOIN reach r ON a.commit_id = r.id WHERE a.kind = 'add'
  )`;

const UNREACHABLE_INDEXES = `${REACH}
  SELECT rule_id, object_id FROM index_objects i WHERE pool_id = ? AND NOT EXISTS (
    SELECT 1 FROM actions a JOIN reach r ON a.commit_id = r.id
      WHERE a.kind = 'add_index' AND a.rule_id = i.rule_id AND a.object_id = i.object_id
  )`;

export async function vacuum(
  lake: Lake,
  pool: PoolConfig,
  opts: VacuumOptions = {},
): Promise<VacuumResult> {
  const cat = lake.catalog;
  const dry = opts.dryRun ?? false;
  // One transaction: no commit can make something reachable in between.
  const found = cat.transaction(() => {
    const params = reachParams(pool.id);
    const commits = cat.all<{ id: Uint8Array }>(UNREACHABLE_COMMITS, ...params).map((r) => r.id);
    const objects = cat.all<{ id: Uint8Array }>(UNREACHABLE_OBJECTS, ...params).map((r) => r.id);
    const indexes = cat.all<{ rule_id: Uint8Array; object_id: Uint8Array }>(
      UNREACHABLE_INDEXES,
      ...params,
    ).map((r) => ({ ruleId: r.rule_id, objectId: r.object_id }));
    if (!dry) {
      // Seek entries go with their objects, actions with their commits.
      for (const id of objects) cat.run("DELETE FROM objects WHERE id = ?", id);
      for (const x of indexes) {
        cat.run(
          "DELETE FROM index_objects WHERE pool_id = ? AND rule_id = ? AND object_id = ?",
          pool.id,
          x.ruleId,
          x.objectId,
        );
      }
      for (const id of commits) cat.run("DELETE FROM commits WHERE id = ?", id);
    }
    return { commits, objects, indexes };
  });
  if (!dry) forgetObjects(found.objects);

  const dir = lake.poolDir(pool.id);
  const paths: string[] = [];
  const named = new Set<string>();
  const take = async (path: string, isDir = false) => {
    if (named.has(path) || !(await exists(lake, path, isDir))) return;
    named.add(path);
    paths.push(path);
    if (dry) return;
    if (isDir) await lake.storage.removeTree(path);
    else await lake.storage.remove(path);
  };
  for (const id of found.objects) {
    await take(lake.objectPath(pool.id, id));
    await take(lake.columnsPath(pool.id, id));
    // Columns as loch built them before they were written with the objects.
    await take(`${dir}/vectors/${toBase62(id)}`, true);
  }
  for (const x of found.indexes) await take(indexObjectPath(lake, pool.id, x.ruleId, x.objectId));

  const orphans: string[] = [];
  const sweep = new OrphanSweep(
    lake,
    pool,
    opts.now ?? Date.now(),
    opts.minAge ?? DEFAULT_MIN_AGE_MS,
  );
  for (const o of await sweep.find()) {
    if (named.has(o.path)) continue;
    orphans.push(o.path);
    await take(o.path, o.isDir);
  }
  return { ...found, orphans, paths };
}

/** Whether there is a file (or, isDir, a directory with something in it) at path. */
async function exists(lake: Lake, path: string, isDir: boolean): Promise<boolean> {
  if (isDir) return (await lake.storage.list(path)).length > 0;
  return (await lake.storage.stat(path)) !== undefined;
}

const OBJECT_FILE = /^([0-9A-Za-z]{27})\.zng$/;
const COLUMNS_FILE = /^([0-9A-Za-z]{27})\.arrow$/;
const TEMPORARY = ".tmp-";

/** Files under a pool's data, columns and index directories that the catalog does not name. */
class OrphanSweep {
  private readonly dir: string;

  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private now: number,
    private minAge: number,
  ) {
    this.dir = lake.poolDir(pool.id);
  }

  async find(): Promise<{ path: string; isDir: boolean }[]> {
    const out: { path: string; isDir: boolean }[] = [];
    const add = async (path: string, isDir: boolean) => {
      if (await this.old(path)) out.push({ path, isDir });
    };
    // data/<object>.zng and temporaries
    for (const e of await this.lake.storage.list(`${this.dir}/data`)) {
      const path = `${this.dir}/data/${e.name}`;
      if (e.name.includes(TEMPORARY)) await add(path, false);
      else if (!this.knownObject(e.name.match(OBJECT_FILE)?.[1])) await add(path, false);
    }
    // columns/<object>.arrow and temporaries
    for (const e of await this.lake.storage.list(`${this.dir}/columns`)) {
      const path = `${this.dir}/columns/${e.name}`;
      if (e.name.includes(TEMPORARY)) await add(path, false);
      else if (!this.knownObject(e.name.match(COLUMNS_FILE)?.[1])) await add(path, false);
    }
    // vectors/<object>/<column>.zng: columns older versions built at query time
    for (const e of await this.lake.storage.list(`${this.dir}/vectors`)) {
      const path = `${this.dir}/vectors/${e.name}`;
      if (!e.isDir) continue;
      if (!this.knownObject(e.name)) {
        await add(path, true);
        continue;
      }
      for (const f of await this.lake.storage.list(path)) {
        if (f.name.includes(TEMPORARY)) await add(`${path}/${f.name}`, false);
      }
    }
    // index/<rule>/<object>.zng and temporaries
    for (const r of await this.lake.storage.list(`${this.dir}/index`)) {
      if (!r.isDir) continue;
      const rule = tryParseID(r.name);
      for (const f of await this.lake.storage.list(`${this.dir}/index/${r.name}`)) {
        const path = `${this.dir}/index/${r.name}/${f.name}`;
        if (f.name.includes(TEMPORARY)) {
          await add(path, false);
          continue;
        }
        const obj = f.name.match(OBJECT_FILE)?.[1];
        if (rule !== undefined && obj !== undefined && !this.knownIndex(rule, obj)) {
          await add(path, false);
        }
      }
    }
    return out;
  }

  /** Whether a base62 id (undefined: not an object name) is a data object of the pool. */
  private knownObject(name: string | undefined): boolean {
    if (name === undefined) return true; // not ours to judge
    const id = tryParseID(name);
    if (id === undefined) return true;
    return this.lake.catalog.get(
      "SELECT 1 FROM objects WHERE id = ? AND pool_id = ?",
      id,
      this.pool.id,
    ) !== undefined;
  }

  private knownIndex(rule: KSUID, name: string): boolean {
    const id = tryParseID(name);
    if (id === undefined) return true;
    return this.lake.catalog.get(
      "SELECT 1 FROM index_objects WHERE pool_id = ? AND rule_id = ? AND object_id = ?",
      this.pool.id,
      rule,
      id,
    ) !== undefined;
  }

  /** Whether a file (or directory) was last written more than minAge ago. */
  private async old(path: string): Promise<boolean> {
    const st = await this.lake.storage.stat(path);
    return st !== undefined && this.now - st.mtimeMs > this.minAge;
  }
}
