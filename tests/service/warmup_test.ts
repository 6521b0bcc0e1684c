// loch serve's request warm-up: every request it sends through the handler
// over the warm-up lake is answered, and it sends none when the pools it
// expects are missing (so a failure would not go unseen as "success").

import assert from "node:assert/strict";
import { warmRequests } from "../../lib/service/warmup.ts";
import { WorkerPool } from "../../lib/service/workers/pool.ts";
import { rawAcceptRoutes, routes } from "../../routes/mod.ts";
import { keyedPool, loadText, withLake } from "../lake/helpers.ts";
import { VERSION } from "./helpers.ts";

const service = { version: VERSION, routes, rawAccept: rawAcceptRoutes };
const QUERIES = ["count()", "sort -r ts | head 2", "cut ts | head 1"];

Deno.test("warm-up requests over pools asc and desc are all answered", async () => {
  await withLake(async (lake) => {
    for (const name of ["asc", "desc"]) {
      await loadText(lake, keyedPool(lake, name, "ts"), '{ts:1,s:"a"}\n{ts:2,s:"b"}');
    }
    // Per round: each query on both pools, then the pools, a tip, stats, status.
    const rounds = 2;
    const ok = await warmRequests(lake, QUERIES, service, rounds);
    assert.equal(ok, rounds * (QUERIES.length * 2 + 4));
  });
});

Deno.test("warm-up requests against a lake without the pools fail softly", async () => {
  await withLake(async (lake) => {
    const ok = await warmRequests(lake, QUERIES, service, 1);
    // Only `from :pools` and GET /status succeed.
    assert.equal(ok, 2);
  });
});

Deno.test("warm-up requests through shared workers are answered; the workers stay", async () => {
  await withLake(async (lake) => {
    // The workers open the lake with its catalog (SQLite in its directory, or PostgreSQL).
    const pool = new WorkerPool(1, undefined, undefined, undefined, lake.catalogURL);
    try {
      for (const name of ["asc", "desc"]) {
        await loadText(lake, keyedPool(lake, name, "ts"), '{ts:1,s:"a"}\n{ts:2,s:"b"}');
      }
      const ok = await warmRequests(lake, QUERIES, { ...service, pool }, 1);
      assert.equal(ok, QUERIES.length * 2 + 4);
      assert.ok(pool.usable);
      assert.equal(pool.running, 0);
    } finally {
      pool.stop();
    }
  });
});
