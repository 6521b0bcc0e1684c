// Queries on worker threads answer exactly as on the server's thread: the
// same bodies in every format (with and without control messages), the same
// errors and statuses before any output; a client that goes away frees its
// worker; a slow client holds its query back; a worker count is checked.

import assert from "node:assert/strict";
import { lookupPool } from "../../lib/lake/pools.ts";
import { parseWorkers, WorkerPool } from "../../lib/service/workers/pool.ts";
import { knownNotCount } from "../../lib/service/query.ts";
import { keyedPool, loadText, range, records, withLake } from "../lake/helpers.ts";
import { createPool, load, query, type TestServer, withServer } from "./helpers.ts";

const ACCEPTS = [
  "application/x-zson",
  "application/json",
  "application/x-zjson",
  "application/x-ndjson",
  "application/x-zng",
  "text/csv",
];

const QUERIES = [
  "from p | count()",
  "from p | sort -r ts | head 3",
  "from p | s=='b' | yield {ts, n:len(s)}",
  "from p | count() by s | sort s",
  "type port=uint16 yield cast(80, <port>)",
  "from p@main:objects | count()",
];

async function answers(workers: number): Promise<string[]> {
  const out: string[] = [];
  await withServer(async (s) => {
    await createPool(s, "p", { order: "asc", keys: [["ts"]] });
    await load(s, "p", '{ts:1,s:"a"}\n{ts:2,s:"b"}\n{ts:3,s:"b"}');
    for (const q of QUERIES) {
      for (const accept of ACCEPTS) {
        for (const params of ["", "?ctrl=true"]) {
          const r = await query(s, q, accept, params);
          // QueryStats carry times: compare the rest (ZNG's hold them as ZSON text).
          const zngStats = accept === "application/x-zng" && params !== "";
          const body = zngStats ? "" : r.text.replace(/"(start|update)_time":\{[^}]*\}/g, "T");
          out.push(
            `${q} ${accept} ${params}: ${r.status} ${r.headers.get("Content-Type")} ${body}`,
          );
        }
      }
    }
    for (const bad of ["from p | count(", "from nosuch | count()", "from p@nobranch"]) {
      const r = await query(s, bad, "application/json");
      out.push(`${bad}: ${r.status} ${r.text}`);
    }
  }, { workers });
  return out;
}

Deno.test("workers: every format and error answers as on the server's thread", async () => {
  const here = await answers(0);
  const pooled = await answers(2);
  assert.equal(pooled.length, here.length);
  for (let i = 0; i < here.length; i++) assert.equal(pooled[i], here[i]);
  assert.ok(here.some((a) => a.includes(" 400 ") && a.includes("parse_error_offset")));
  assert.ok(here.some((a) => a.includes(" 404 ")));
});

Deno.test("workers: a count the catalog answers is answered on the server's thread", async () => {
  await withServer(async (s) => {
    await createPool(s, "p", { order: "asc", keys: [["ts"]] });
    await load(s, "p", '{ts:1,s:"a"}\n{ts:2,s:"b"}\n{ts:3,s:"b"}');
    await load(s, "p", '{ts:5,s:"a"}\n{ts:6,s:"b"}\n{ts:7,s:"c"}');
    const pool = s.server.service.pool!;
    const cases: [string, string, boolean][] = [
      // query, answer, whether a worker ran it
      ["from p | count()", "{count:6(uint64)}", false],
      ["from p | n:=count()", "{n:6(uint64)}", false],
      ["from p | ts >= 1 and ts <= 3 | count()", "{count:3(uint64)}", false],
      ["from p | ts >= 2 and ts <= 6 | count()", "{count:4(uint64)}", true],
      ["from p | s=='b' | count()", "{count:3(uint64)}", true],
      ["from p | count() by s | sort s", '{s:"a",count:2(uint64)}', true],
      ["from p | count(", "", true],
    ];
    for (const [q, answer, worker] of cases) {
      const before = pool.queriesSent;
      const r = await query(s, q, "application/x-zson");
      assert.equal(r.text.split("\n")[0], answer || r.text.split("\n")[0], q);
      assert.equal(r.status, answer ? 200 : 400, q);
      assert.equal(pool.queriesSent - before, worker ? 1 : 0, q);
    }
    // Counts no data could let the catalog answer are not compiled on the serving thread again;
    // a range count is (whether objects lie inside the range changes with the data).
    assert.ok(knownNotCount("from p | s=='b' | count()"));
    assert.ok(knownNotCount("from p | count() by s | sort s"));
    assert.ok(!knownNotCount("from p | ts >= 2 and ts <= 6 | count()"));
    assert.ok(!knownNotCount("from p | count()"));
  }, { workers: 1 });
});

/** About 1 KB of output per value: 50 MB in all, far more than any buffer on the way. */
const N = 50000;
const BIG = `from big | yield {ts, pad:"${"x".repeat(1000)}"}`;

async function bigPool(s: TestServer): Promise<void> {
  await createPool(s, "big", { order: "asc", keys: [["ts"]] });
  await loadText(s.lake, lookupPool(s.lake.catalog, "big"), records(range(N), (n) => `{ts:${n}}`));
}

/** The big pool, and the big query started on it (its first bytes read). */
async function startBig(s: TestServer) {
  await bigPool(s);
  const pool = s.server.service.pool!;
  const res = await fetch(`${s.url}/query`, {
    method: "POST",
    body: new TextEncoder().encode(JSON.stringify({ query: BIG })),
  });
  const reader = res.body!.getReader();
  assert.ok(!(await reader.read()).done);
  return { pool, reader };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("workers: a client that goes away frees its worker at once", async () => {
  await withServer(async (s) => {
    const { pool, reader } = await startBig(s);
    assert.equal(pool.running, 1);
    await reader.cancel();
    for (let i = 0; i < 100 && pool.running > 0; i++) await sleep(10);
    assert.equal(pool.running, 0);
  }, { workers: 1 });
});

Deno.test("workers: a slow client holds its query back", async () => {
  await withServer(async (s) => {
    const { pool, reader } = await startBig(s);
    // Not reading: the query stays running (held back), far from its ~50 MB.
    await sleep(300);
    assert.equal(pool.running, 1);
    let bytes = 0;
    for (let c = await reader.read(); !c.done; c = await reader.read()) bytes += c.value.length;
    assert.ok(bytes > 49_000_000, `${bytes} bytes`);
    for (let i = 0; i < 100 && pool.running > 0; i++) await sleep(10);
    assert.equal(pool.running, 0);
  }, { workers: 1 });
});

Deno.test("workers: counts are whole numbers from 0 to 256", () => {
  assert.equal(parseWorkers("0"), 0);
  assert.equal(parseWorkers("4"), 4);
  for (const bad of ["-1", "1.5", "x", "257"]) {
    assert.throws(() => parseWorkers(bad), /worker count/);
  }
});

Deno.test("workers: one that dies breaks off its queries and is replaced", async () => {
  await withServer(async (s) => {
    const { pool, reader } = await startBig(s);
    // As a crash would (the pool's own stop takes this path for every worker).
    (pool as unknown as { workers: { terminate(): void }[] }).workers[0].terminate();
    let broken = false;
    try {
      for (let c = await reader.read(); !c.done; c = await reader.read()) {
        // reading what was already sent
      }
    } catch {
      broken = true;
    }
    assert.ok(broken, "the response was broken off, not ended");
    assert.equal(pool.running, 0);
    const r = await query(s, "from big | count()", "application/json");
    assert.equal(r.text, '[{"count":50000}]\n');
    assert.ok(pool.usable);
  }, { workers: 1 });
});

Deno.test("workers: the second starts only when the first is busy", async () => {
  await withServer(async (s) => {
    await createPool(s, "p", { order: "asc", keys: [["ts"]] });
    await load(s, "p", "{ts:1}");
    const pool = s.server.service.pool!;
    assert.equal(pool.started, 1);
    for (let i = 0; i < 3; i++) await query(s, "from p | head 1");
    assert.equal(pool.started, 1);
    // A long query holds the first; the next one starts the second.
    const { reader } = await startBig(s);
    assert.equal((await query(s, "from p | head 1", "application/json")).text, '[{"ts":1}]\n');
    assert.equal(pool.started, 2);
    await reader.cancel();
  }, { workers: 2 });
});

Deno.test("workers: one that stops answering is stopped and replaced; its query fails", async () => {
  await withServer(async (s) => {
    // The worker opens the lake first (a PostgreSQL catalog's connection can
    // take longer than this test's 300 ms on a busy machine).
    await s.server.service.pool!.start(s.lake.root);
    await createPool(s, "p");
    await load(s, "p", "{a:1}");
    // One batch through 23 doublings: seconds of work that never yields.
    const stuck = "from p | yield [1] | " + "yield [...this, ...this] | ".repeat(23) +
      "yield len(this)";
    const t0 = performance.now();
    // Its response is broken off (as when a worker dies), not ended as if complete.
    await assert.rejects(() => query(s, stuck, "application/x-zjson", "?ctrl=true"));
    assert.ok(performance.now() - t0 < 20_000);
    const pool = s.server.service.pool!;
    assert.ok(pool.usable);
    // The next queries run on a fresh worker (which opens the lake first, as above).
    await pool.start(s.lake.root);
    const ok = await query(s, "from p | count()", "application/json");
    assert.equal(ok.text, '[{"count":1}]\n');
    // A query that yields as it works (a sort of many values) is not stuck.
    const long = await query(
      s,
      "from p | yield [1] | " + "yield [...this, ...this] | ".repeat(16) +
        "over this | sort -r this | count()",
      "application/json",
    );
    assert.equal(long.text, '[{"count":65536}]\n');
  }, { workers: 1, workerTimeoutMs: 300 });
});

Deno.test("workers: one whose memory grew is replaced once idle, and answers stay the same", async () => {
  // Every worker's heap is past 1 MiB: each asks to be replaced after its first task.
  await withServer(async (s) => {
    await createPool(s, "p");
    await load(s, "p", "{a:1}\n{a:2}");
    const pool = s.server.service.pool!;
    for (let i = 0; i < 300 && pool.retired === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(pool.retired >= 1, "a worker was replaced");
    const r = await query(s, "from p | sum(a)", "application/json");
    assert.equal(r.text, '[{"sum":3}]\n');
    assert.ok(pool.usable);
  }, { workers: 1, workerRetireBytes: 1 << 20, workerRetireIdleMs: 100 });
});

/**
 * Starts a load whose body stays open until the returned function ends it;
 * resolves to its response text. Its format is given and its first record
 * sent at once: a body of unknown length goes to a worker once its format
 * is known (split.ts), which detecting it would wait for more of the body for.
 */
function heldLoad(
  s: TestServer,
  pool: string,
): { finish: (text: string) => void; done: Promise<string> } {
  let control!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      control = c;
      c.enqueue(new TextEncoder().encode("{a:0}\n"));
    },
  });
  const done = fetch(`${s.url}/pool/${pool}/branch/main`, {
    method: "POST",
    body,
    headers: { Accept: "application/json", "Content-Type": "application/x-zson" },
    duplex: "half",
  } as RequestInit).then(async (r) => {
    const text = await r.text();
    if (!r.ok) throw new Error(`${r.status} ${text}`);
    return text;
  });
  // Awaited later: a failure before then is the test's, not an unhandled one.
  done.catch(() => {});
  return {
    finish: (text) => {
      control.enqueue(new TextEncoder().encode(text));
      control.close();
    },
    done,
  };
}

Deno.test("workers: none is replaced while any has work, only once all have been idle a while", async () => {
  // Both workers ask to be replaced after any task (their heaps are past 1 MiB).
  await withServer(async (s) => {
    await createPool(s, "p");
    const pool = s.server.service.pool!;
    await pool.start();
    // Two loads at once go to both workers.
    const a = heldLoad(s, "p"), b = heldLoad(s, "p");
    await new Promise((r) => setTimeout(r, 100));
    a.finish("{a:1}\n");
    b.finish("{a:2}\n");
    await Promise.all([a.done, b.done]);
    // One worker loads (its body still coming) while the other stays idle
    // many times the idle time a replacement waits for (and past the
    // watchdog's next look, once a second here).
    const c = heldLoad(s, "p");
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(pool.retired, 0, "no worker replaced while one had work");
    c.finish("{a:3}\n");
    await c.done;
    for (let i = 0; i < 500 && pool.retired < 2; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(pool.retired, 2, "both replaced once the pool was idle");
    const r = await query(s, "from p | sum(a)", "application/json");
    assert.equal(r.text, '[{"sum":6}]\n');
  }, { workers: 2, workerRetireBytes: 1 << 20, workerRetireIdleMs: 150, workerTimeoutMs: 4000 });
});

Deno.test("workers: one that took a query before it said it was ready, then died, had started", async () => {
  await withLake(async (lake) => {
    await loadText(lake, keyedPool(lake, "p", "ts"), "{ts:1}\n{ts:2}");
    // A warm worker takes messages while it warms up (a second or more), so
    // this query starts well before the worker posts "ready".
    const pool = new WorkerPool(1, true, undefined, undefined, lake.catalogURL);
    try {
      const job = { root: lake.root, text: "from p | count()", format: "zson", ctrl: false };
      const out = await pool.query(job);
      const workers = (pool as unknown as { workers: { started: boolean; terminate(): void }[] })
        .workers;
      assert.equal(workers[0].started, false, "the query started before the worker was ready");
      workers[0].terminate();
      await out.cancel().catch(() => {});
      // A worker that answered a query is not one that cannot start.
      assert.ok(pool.usable);
    } finally {
      pool.stop();
    }
  });
});
