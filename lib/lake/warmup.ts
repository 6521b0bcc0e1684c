// Warming the engine before a server takes its first query. JavaScript runs
// cold code slowly until the engine has seen it run: the first query after a
// start would pay for compiling the loaders, scans, vectorized filters and
// summaries, and output formatters it uses. So `loch serve` first loads a
// small synthetic pool into a throwaway lake (in a temporary directory) and
// runs the kinds of queries clients send over it, in each output format,
// a few times each. It takes about a second and touches nothing of the
// served lake.

import { openReader } from "../formats/detect.ts";
import { ByteInput } from "../formats/io.ts";
import { openWriter } from "../formats/registry.ts";
import { Lake } from "./lake.ts";
import { listBranches } from "./branches.ts";
import { clearColumnCache, openColumns } from "./columns/mod.ts";
import { forgetObjects, tipObjects } from "./objects.ts";
import { load } from "./load.ts";
import { createPool, listPools } from "./pools.ts";
import { ownedTempDir } from "../tempdir.ts";
import { runLakeQuery } from "./query.ts";

/** Records of a few Zeek-like shapes: strings, ints, floats, bools, lists, missing fields. */
function records(n: number, seed: number): string {
  let x = seed;
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const paths = ["dns", "conn", "ssl", "weird"];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const ts = new Date(Date.UTC(2018, 2, 24, 17, 0, 0) + Math.floor(rand() * 3600e3))
      .toISOString().replace("Z", "123Z");
    const path = paths[i % paths.length];
    const r: Record<string, unknown> = {
      _path: path,
      ts,
      uid: "C" + Math.floor(rand() * 1e12).toString(36),
      "id.orig_h": `10.0.${i % 7}.${Math.floor(rand() * 250)}`,
      "id.resp_p": [53, 80, 443][i % 3],
      proto: i % 5 === 0 ? "tcp" : "udp",
    };
    if (path === "dns") {
      r.query = `host${Math.floor(rand() * 40)}.example.org`;
      if (i % 3 !== 0) r.rtt = rand() / 10;
      r.answers = i % 4 === 0 ? [] : [`10.1.0.${i % 9}`];
      r.RD = i % 2 === 0;
    } else if (path === "conn") {
      r.duration = rand() * 5;
      r.orig_bytes = Math.floor(rand() * 1e6);
    }
    lines.push(JSON.stringify(r));
  }
  return lines.join("\n");
}

const QUERIES = [
  "count()",
  "count() by _path",
  'ts >= "2018-03-24T17:10:00Z" and ts < "2018-03-24T17:20:00Z" | count()',
  "sort -r ts | head 10",
  "sort ts | head 10",
  "head 10",
  '"example" | count()',
  "host1 | head 5",
  "id.resp_p==53 | count()",
  'this["id.resp_p"]==53 | count()',
  "summarize avg(rtt) by query | sort -r avg | head 10",
  'count() by this["id.orig_h"]',
  "cut ts,query | head 1000",
  '_path=="conn" | sum(orig_bytes), max(duration) by proto',
  "not RD | count() by query | sort -r count | head 3",
];

const FORMATS = ["zson", "json", "zjson", "ndjson", "zng"];

/**
 * Runs the warm-up; failures are ignored (it only saves time). `more` runs
 * over the warm-up lake too, before it is removed (the service sends its
 * requests through its handler with it).
 */
export async function warmUp(
  rounds = 3,
  more?: (lake: Lake, queries: readonly string[]) => Promise<unknown>,
): Promise<void> {
  const dir = await ownedTempDir("loch-warmup-");
  let lake: Lake | null = null;
  try {
    lake = await Lake.open(dir);
    for (const order of ["asc", "desc"] as const) {
      const pool = createPool(lake, { name: order, layout: { order, keys: [["ts"]] } });
      // Eight loads of overlapping keys: queries merge objects as over a lake
      // loaded one log file at a time (with two loads, the merges of many
      // objects stayed cold: `cut ts,query | head 10000` at 1x ran ~20 ms in
      // its 5th–9th runs after a start, ~16 with eight, ~12 steady).
      for (let k = 0; k < 8; k++) {
        const bytes = new TextEncoder().encode(records(1500, 7 + k));
        await load(lake, pool, "main", await openReader(ByteInput.fromBytes(bytes)));
      }
    }
    const sink = () => Promise.resolve();
    for (let r = 0; r < rounds; r++) {
      for (const q of QUERIES) {
        for (const pool of ["asc", "desc"]) {
          const format = FORMATS[(r + q.length) % FORMATS.length];
          await runLakeQuery(lake, `from ${pool} | ${q}`, openWriter(format, sink, {}));
        }
      }
    }
    await more?.(lake, QUERIES);
  } catch {
    // Only time is lost.
  } finally {
    if (lake !== null) forget(lake);
    lake?.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Drops what the caches hold of the warm-up lake (its objects and columns). */
function forget(lake: Lake): void {
  try {
    for (const pool of listPools(lake.catalog)) {
      forgetObjects(tipObjects(lake.catalog, pool.id, "main").map((o) => o.id));
    }
  } catch {
    // Nothing more to drop.
  }
  clearColumnCache();
}

/**
 * Reads the metadata of every branch tip of a lake into memory: its objects
 * and their columns' manifests (parsed, with their types), so the first
 * query of each pool does not pay for that. Without columns, the objects
 * only (what counts from the catalog read). Returns how many objects.
 */
export function preloadMetadata(lake: Lake, columns = true): number {
  let n = 0;
  try {
    for (const pool of listPools(lake.catalog)) {
      for (const branch of listBranches(lake.catalog, pool.id)) {
        for (const o of tipObjects(lake.catalog, pool.id, branch.name)) {
          if (columns) openColumns(lake, pool.id, o);
          n++;
        }
      }
    }
  } catch {
    // Only time is lost.
  }
  return n;
}
