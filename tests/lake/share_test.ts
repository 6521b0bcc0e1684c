// A count or summarize shared out over helpers (share.ts): helpers here run
// on this thread (runSharedPart, as a worker does), some declining or
// failing; every answer and every counter must equal the query's alone.

import assert from "node:assert/strict";
import type { Lake } from "../../lib/lake/lake.ts";
import { runSharedPart } from "../../lib/lake/query.ts";
import { bytesToRead, type ScanHelpers, shardsOf, type SharedPart } from "../../lib/lake/share.ts";
import { lookupPool } from "../../lib/lake/pools.ts";
import { tipObjects } from "../../lib/lake/objects.ts";
import type { DataObject } from "../../lib/lake/objects.ts";
import { useColumns } from "../../lib/lake/sources.ts";
import { keyedPool, loadText, query, range, records, secs, withLake } from "./helpers.ts";

/** Helpers that run shares on this thread; behave: what the k-th share asked does. */
function helpers(
  lake: Lake,
  text: string,
  behave: (k: number) => "run" | "decline" | "fail" | "stale" = () => "run",
): ScanHelpers & { asked: number; ran: number } {
  const h = {
    count: 3,
    minBytes: 0,
    asked: 0,
    ran: 0,
    async share(source: number, objects: string[]): Promise<SharedPart | null> {
      const how = behave(h.asked++);
      if (how === "decline") return null;
      if (how === "fail") throw new Error("helper died");
      // An object the helper's snapshot lacks: it gives the shard back.
      const ids = how === "stale" ? [...objects, "0000000000000000000000000000"] : objects;
      const part = await runSharedPart(lake, text, { head: { pool: "p" } }, source, ids);
      if (part !== null) h.ran++;
      return part;
    },
  };
  return h;
}

/** Six objects, some overlapping in ts, with strings, numbers and nested fields. */
async function sixObjects(lake: Lake): Promise<void> {
  const pool = keyedPool(lake, "p", "ts");
  for (const [from, n] of [[0, 40], [30, 40], [100, 25], [130, 50], [200, 10], [205, 60]]) {
    await loadText(
      lake,
      pool,
      records(
        range(n, from),
        (i) =>
          `{ts:${secs(i)},host:"h${i % 7}",n:${i % 5},id:{orig:"10.0.0.${i % 3}"},msg:"${
            i % 11 === 0 ? "wrccdc hit" : "quiet"
          }"${i % 13 === 0 ? "" : `,rtt:${i / 7 + 1 / (i + 3)}`}}`,
      ),
    );
  }
}

const SHARED = [
  "count()",
  '"wrccdc" | count()',
  "n==3 | count()",
  "ts >= 2024-01-01T00:00:00Z | count()",
  `ts >= ${secs(120)} | count()`,
  "count() by host",
  "count() by id.orig | sort id.orig",
  "collect(n) by host",
  "any(msg) by host",
  "dcount(host)",
  "union(n) by id.orig",
  "n > 1 | count() by host, id.orig",
  `ts < ${secs(110)} | count() by n`,
  "avg(rtt) by host | sort host",
  "avg(rtt), count(), collect(n) by id.orig | sort id.orig",
  "rtt > 3 | avg(rtt)",
];

/** Not shared: their aggregates do not merge exactly, or they are no count or summarize. */
const UNSHARED = [
  "sum(n) by host",
  "sum(rtt)",
  "min(n), max(n) by host",
  "sort -r ts | head 3",
  "n==3",
];

Deno.test("share: counts and summaries read in shards give the same answers and counters", async () => {
  await withLake(async (lake) => {
    await sixObjects(lake);
    for (const q of [...SHARED, ...UNSHARED]) {
      const alone = await query(lake, `from p | ${q}`);
      const h = helpers(lake, `from p | ${q}`);
      const shared = await query(lake, `from p | ${q}`, { helpers: h });
      assert.deepEqual(shared.lines, alone.lines, q);
      assert.deepEqual(shared.stats, alone.stats, q);
      if (UNSHARED.includes(q)) assert.equal(h.asked, 0, q);
    }
  });
});

Deno.test("share: helpers take shards of the objects that must be read", async () => {
  await withLake(async (lake) => {
    await sixObjects(lake);
    const qs = ['"wrccdc" | count()', "count() by host", "collect(n) by host"];
    // avg takes its numbers from columns only: without them it is not shared.
    if (useColumns()) qs.push("avg(rtt) by host");
    for (const q of qs) {
      const h = helpers(lake, `from p | ${q}`);
      await query(lake, `from p | ${q}`, { helpers: h });
      // (avg's shard of the objects whose keys tie is read from rows, so it comes back.)
      const ran = q.startsWith("avg") ? h.ran >= 1 : h.ran === h.asked;
      assert.ok(h.asked >= 2 && ran, `${q}: ${h.ran} of ${h.asked}`);
    }
    // A count the catalog answers reads no object: nothing to share.
    const h = helpers(lake, "from p | count()");
    await query(lake, "from p | count()", { helpers: h });
    assert.equal(h.asked, 0);
  });
});

Deno.test("share: a shard declined, failed or not in the helper's snapshot is read here", async () => {
  await withLake(async (lake) => {
    await sixObjects(lake);
    const kinds = ["decline", "fail", "stale"] as const;
    for (const q of SHARED) {
      const alone = await query(lake, `from p | ${q}`);
      const h = helpers(lake, `from p | ${q}`, (k) => kinds[k % 3]);
      const shared = await query(lake, `from p | ${q}`, { helpers: h });
      assert.deepEqual(shared.lines, alone.lines, q);
      assert.deepEqual(shared.stats, alone.stats, q);
      assert.equal(h.ran, 0, q);
    }
  });
});

Deno.test("share: a share of a query that stopped stops", async () => {
  await withLake(async (lake) => {
    await sixObjects(lake);
    for (const q of ['"wrccdc" | count()', "count() by host"]) {
      const text = `from p | ${q}`;
      const shares: [number, string[]][] = [];
      const h = helpers(lake, text);
      const share = h.share;
      h.share = (source, objects) => {
        shares.push([source, objects]);
        return share(source, objects);
      };
      await query(lake, text, { helpers: h });
      const [source, objects] = shares[0];
      const ran = await runSharedPart(lake, text, {}, source, objects);
      assert.ok(ran !== null && ran.stats.objectsRead > 0, q);
      const stopped = new AbortController();
      stopped.abort();
      await assert.rejects(runSharedPart(lake, text, { signal: stopped.signal }, source, objects));
    }
  });
});

Deno.test("share: a helper asked for a scan the query does not have gives nothing", async () => {
  await withLake(async (lake) => {
    await sixObjects(lake);
    assert.equal(await runSharedPart(lake, "from p | count() by host", {}, 5, []), null);
    assert.equal(await runSharedPart(lake, "from p | sort ts", {}, 0, []), null);
  });
});

Deno.test("share: shards are contiguous, cover every unit once and weigh about the same", () => {
  const obj = (size: number) => ({ size } as DataObject);
  const units = [10, 10, 10, 10, 40, 10, 10].map((s) => [obj(s)]);
  const shards = shardsOf(units, 3, 0);
  assert.deepEqual(shards.map((s) => s.reduce((b, o) => b + o.size, 0)), [40, 40, 20]);
  assert.deepEqual(shards.flat(), units.flat());
  assert.deepEqual(shardsOf(units, 3, 101), [], "fewer bytes than the least worth sharing");
  assert.deepEqual(shardsOf(units.slice(0, 1), 3, 0), [], "one unit");
  assert.deepEqual(shardsOf(units, 1, 0), [], "no helper");
  // A shard with under a quarter of an even share joins its neighbour.
  const lopsided = [100, 1, 2].map((s) => [obj(s)]);
  assert.deepEqual(shardsOf(lopsided, 2, 0), [], "one run holds nearly all the bytes");
  const light = [50, 100, 2, 48].map((s) => [obj(s)]);
  const joined = shardsOf(light, 4, 0);
  assert.deepEqual(joined.map((s) => s.reduce((b, o) => b + o.size, 0)), [50, 102, 48]);
  assert.deepEqual(joined.flat(), light.flat());
});

Deno.test("share: a scan's bytes to read are those of its fields' columns", async () => {
  await withLake(async (lake) => {
    await sixObjects(lake);
    const pool = lookupPool(lake.catalog, "p");
    for (const o of tipObjects(lake.catalog, pool.id, "main")) {
      assert.equal(bytesToRead(o, null), o.size);
      const host = bytesToRead(o, ["host"]);
      const two = bytesToRead(o, ["host", "msg"]);
      assert.ok(host > 0 && host < two && two < o.size, `${host} ${two} ${o.size}`);
      assert.equal(bytesToRead(o, ["nosuch"]), 0);
      assert.equal(bytesToRead({ ...o, columns: null }, ["host"]), o.size);
    }
  });
});
