// One query's objects spread over the workers: a count or summarize asks the
// idle workers for shares of its scan (through the server's thread), and the
// answers, their QueryStats included, are those of the serving thread alone.

import assert from "node:assert/strict";
import { lookupPool } from "../../lib/lake/pools.ts";
import { loadText, range, records } from "../lake/helpers.ts";
import { createPool, load, query, type TestServer, withServer } from "./helpers.ts";

const QUERIES = [
  '"wrccdc" | count()',
  "n==3 | count()",
  "count() by host | sort host",
  "collect(n) by host | sort host",
  "count() by id.orig",
  "dcount(host)",
  "sum(n) by host | sort host",
  "avg(rtt), count() by host | sort host",
];

async function fourObjects(s: TestServer): Promise<void> {
  await createPool(s, "p", { order: "asc", keys: [["ts"]] });
  for (const from of [0, 500, 300, 2000]) {
    await load(
      s,
      "p",
      records(
        range(400, from),
        (i) =>
          `{ts:${i},host:"h${i % 7}",n:${i % 5},id:{orig:"10.0.0.${i % 3}"},msg:"${
            i % 11 === 0 ? "wrccdc" : "quiet"
          }",rtt:${i / 7 + 1 / (i + 3)}}`,
      ),
    );
  }
}

/** Each query's ZSON answer and its QueryStats (times left out), in a server with these options. */
async function answers(opts: { workers: number; shareMinBytes?: number }) {
  const out: string[] = [];
  let shares = 0;
  await withServer(async (s) => {
    await fourObjects(s);
    await s.server.service.pool?.start();
    for (const q of QUERIES) {
      const zson = await query(s, `from p | ${q}`, "application/x-zson");
      const ctrl = await query(s, `from p | ${q}`, "application/x-zjson", "?ctrl=true");
      const stats = ctrl.text.split("\n").filter((l) => l.includes("QueryStats"))
        .map((l) => l.replace(/"(start|update)_time":\{[^}]*\}/g, "T"));
      out.push(`${q}: ${zson.status} ${zson.text} ${stats.join(" ")}`);
    }
    shares = s.server.service.pool?.sharesSent ?? 0;
  }, opts);
  return { out, shares };
}

Deno.test("share: a query's scan shared with idle workers answers as on one thread", async () => {
  const here = await answers({ workers: 0 });
  const shared = await answers({ workers: 3, shareMinBytes: 0 });
  assert.deepEqual(shared.out, here.out);
  assert.ok(here.out.every((a) => a.includes("QueryStats") && a.includes("records_read")));
  // At least one for each query that merges (or records avg's numbers), in each format.
  assert.ok(shared.shares >= 2 * 6, `${shared.shares} shares`);
});

Deno.test("share: workers with work of their own are not asked", async () => {
  await withServer(async (s) => {
    await fourObjects(s);
    const pool = s.server.service.pool!;
    await pool.start();
    // One worker busy with a query its client does not read.
    await createPool(s, "big", { order: "asc", keys: [["ts"]] });
    await loadText(
      s.lake,
      lookupPool(s.lake.catalog, "big"),
      records(range(50000), (n) => `{ts:${n}}`),
    );
    const res = await fetch(`${s.url}/query`, {
      method: "POST",
      body: new TextEncoder().encode(
        JSON.stringify({ query: `from big | yield {ts, pad:"${"x".repeat(1000)}"}` }),
      ),
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    assert.ok(!(await reader.read()).done);
    assert.equal(pool.running, 1);
    const before = pool.sharesSent;
    const r = await query(s, 'from p | "wrccdc" | count()', "application/x-zson");
    assert.equal(r.text.trim(), "{count:146(uint64)}");
    assert.equal(pool.sharesSent, before);
    await reader.cancel();
    // Idle again, the other worker takes a share.
    for (let i = 0; i < 50 && pool.running > 0; i++) await new Promise((r) => setTimeout(r, 20));
    const again = await query(s, 'from p | "wrccdc" | count()', "application/x-zson");
    assert.equal(again.text.trim(), "{count:146(uint64)}");
    assert.equal(pool.sharesSent, before + 1);
  }, { workers: 2, shareMinBytes: 0 });
});

Deno.test("share: a client that goes away stops the shares of its query too", async () => {
  await withServer(async (s) => {
    const pool = s.server.service.pool!;
    await pool.start();
    await createPool(s, "big", { order: "asc", keys: [["ts"]] });
    const big = lookupPool(s.lake.catalog, "big");
    const pad = "y".repeat(200);
    for (let k = 0; k < 4; k++) {
      await loadText(
        s.lake,
        big,
        records(range(60000, k * 60000), (n) => `{ts:${n},n:${n % 3},s:"${pad}${n}"}`),
      );
    }
    const q = "from big | collect(s) by n | yield len(collect)";
    const whole = await query(s, q, "application/x-zson");
    assert.equal(whole.text.split("\n").filter((l) => l !== "").length, 3);
    assert.ok(pool.sharesSent >= 1);
    // A helper may finish its share before the client's going reaches it:
    // then there is nothing to stop, and the client goes again.
    let stopped = false;
    for (let attempt = 0; attempt < 5 && !stopped; attempt++) {
      const before = pool.sharesStopped;
      const gone = new AbortController();
      const res = await fetch(`${s.url}/query`, {
        method: "POST",
        body: new TextEncoder().encode(JSON.stringify({ query: q })),
        signal: gone.signal,
      });
      assert.equal(res.status, 200);
      // Gone once the query's worker and a helper are both at work.
      for (let i = 0; i < 5000 && pool.tasks < 2; i++) await new Promise((r) => setTimeout(r, 1));
      assert.equal(pool.tasks, 2);
      gone.abort();
      await res.body?.cancel().catch(() => {});
      // The helper is told to stop (it stops at its next object) and both are free again.
      while (pool.tasks > 0) await new Promise((r) => setTimeout(r, 5));
      assert.ok(pool.sharesStopped - before <= 1);
      stopped = pool.sharesStopped === before + 1;
    }
    assert.ok(stopped, "the helper's share was stopped");
    // The next query answers as before.
    assert.equal((await query(s, q, "application/x-zson")).text, whole.text);
  }, { workers: 2, shareMinBytes: 0 });
});
