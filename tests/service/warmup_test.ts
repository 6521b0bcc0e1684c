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

Deno.test("warm-up requests go over a loopback connection to a server that is gone after", async () => {
  await withLake(async (lake) => {
    for (const name of ["asc", "desc"]) {
      await loadText(lake, keyedPool(lake, name, "ts"), '{ts:1,s:"a"}\n{ts:2,s:"b"}');
    }
    // The gate, Deno's HTTP server and the response streams a client's requests go through.
    const real = globalThis.fetch;
    const ports = new Set<string>();
    let sent = 0;
    globalThis.fetch = (input, init) => {
      sent++;
      ports.add(new URL(input instanceof Request ? input.url : String(input)).port);
      return real(input, init);
    };
    let ok;
    try {
      ok = await warmRequests(lake, QUERIES, service, 1);
    } finally {
      globalThis.fetch = real;
    }
    assert.equal(ok, QUERIES.length * 2 + 4);
    assert.equal(sent, ok);
    assert.equal(ports.size, 1);
    const [port] = ports;
    assert.ok(Number(port) > 0);
    await assert.rejects(() => Deno.connect({ hostname: "127.0.0.1", port: Number(port) }));
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
