// Limits that protect the server from its clients' bodies: a parameter body
// (not a load's) is at most 16 MiB as sent and as inflated from gzip, and
// must arrive in time.

import assert from "node:assert/strict";
import { get, post, withServer } from "./helpers.ts";
import { gzip } from "../query/source_helpers.ts";

Deno.test("limits: a gzip parameter body that inflates past 16 MiB is refused (413)", () =>
  withServer(async (s) => {
    // 20 MiB of query text in a ~20 KB body.
    const bomb = await gzip(JSON.stringify({ query: "yield '" + "a".repeat(20 << 20) + "'" }));
    assert.ok(bomb.length < 100_000);
    const r = await post(s, "/query", bomb, { "Content-Type": "application/json" });
    assert.equal(r.status, 413);
    assert.equal(
      JSON.parse(r.text).error,
      "inflated request body too large (the limit is 16777216 bytes)",
    );
    const nested = await post(s, "/query", await gzip(await gzip('{"query":"1"}')));
    assert.equal(nested.status, 400);
    assert.equal(JSON.parse(nested.text).error, "request body: gzip within gzip is not read");
    // A small gzip body is read as before.
    const ok = await post(s, "/pool", await gzip('{"name":"p"}'), {
      "Content-Type": "application/json",
    });
    assert.equal(ok.status, 200, ok.text);
  }));

Deno.test("limits: a parameter body over 16 MiB is refused (413); a load's body is not a parameter body", () =>
  withServer(async (s) => {
    const big = new TextEncoder().encode(JSON.stringify({ query: "x".repeat((16 << 20) + 1) }));
    const r = await post(s, "/query", big, { "Content-Type": "application/json" });
    assert.equal(r.status, 413);
    assert.equal(JSON.parse(r.text).error, "request body too large (the limit is 16777216 bytes)");
    await post(s, "/pool", '{"name":"p"}');
    const rows = new TextEncoder().encode(
      Array.from({ length: 200_000 }, (_, i) => `{"i":${i},"pad":"${"p".repeat(80)}"}`).join("\n"),
    );
    assert.ok(rows.length > 16 << 20);
    const load = await post(s, "/pool/p/branch/main", rows);
    assert.equal(load.status, 200, load.text);
  }));

Deno.test("limits: a parameter body that does not arrive in time is refused (408)", () =>
  withServer(async (s) => {
    const body = new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(new TextEncoder().encode('{"name":'));
        // ... and nothing more for longer than the server waits.
        await new Promise((r) => setTimeout(r, 1500));
        c.enqueue(new TextEncoder().encode('"late"}'));
        c.close();
      },
    });
    const t0 = performance.now();
    const res = await fetch(`${s.url}/pool`, { method: "POST", body });
    const text = await res.text();
    assert.equal(res.status, 408);
    assert.equal(JSON.parse(text).error, "request body did not arrive within 0.3 s");
    assert.ok(performance.now() - t0 < 1400, "answered when the time was up");
    assert.equal((await get(s, "/status")).text, "ok");
    const pools = await post(s, "/query", '{"query":"from :pools | count()"}', {
      Accept: "application/json",
    });
    assert.equal(pools.text, "[]\n");
  }, { bodyDeadlineMs: 300 }));

Deno.test("limits: a query past its time limit stops with a QueryError (408 if before any output)", () =>
  withServer(async (s) => {
    await post(s, "/pool", '{"name":"p"}');
    await post(s, "/pool/p/branch/main", "{a:1}");
    // A sort of 2^21 values: longer than 0.2 s, and it takes turns (so it can be stopped).
    const slow = "from p | yield [1] | " + "yield [...this, ...this] | ".repeat(21) +
      "over this | sort -r this | count()";
    const r = await post(s, "/query?ctrl=true", JSON.stringify({ query: slow }), {
      Accept: "application/x-zjson",
    });
    assert.equal(r.status, 200);
    assert.match(r.text, /"QueryError".*query exceeded its time limit of 0.2 s/);
    const quick = await post(s, "/query", '{"query":"from p | count()"}', {
      Accept: "application/json",
    });
    assert.equal(quick.text, '[{"count":1}]\n');
  }, { queryTimeoutMs: 200 }));

Deno.test("limits: queries past the limit wait their turn; past the queue, 503", () =>
  withServer(async (s) => {
    await post(s, "/pool", '{"name":"p"}');
    await post(s, "/pool/p/branch/main", "{a:1}");
    // A response not read holds its place.
    const held = await fetch(`${s.url}/query`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      // Seconds of work before its first output (a sort of 2^21 values): it holds its place.
      body: JSON.stringify({
        query: "from p | yield [1] | " + "yield [...this, ...this] | ".repeat(21) +
          "over this | sort -r this",
      }),
    });
    assert.equal(held.status, 200);
    // The next waits (the queue has room for one); the one after is refused.
    const waiting = post(s, "/query", '{"query":"from p | count()"}', {
      Accept: "application/json",
    });
    const admission = s.server.service.admission!;
    for (let i = 0; i < 500 && admission.counts.waiting < 1; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(admission.counts, { running: 1, waiting: 1 });
    const refused = await post(s, "/query", '{"query":"from p | count()"}');
    assert.equal(refused.status, 503);
    assert.equal(
      JSON.parse(refused.text).error,
      "too many queries: 1 running and 1 waiting; try again later",
    );
    // Reading the first to its end lets the waiting one run.
    await held.body!.cancel();
    assert.equal((await waiting).text, '[{"count":1}]\n');
    assert.equal((await get(s, "/status")).text, "ok", "other routes are not queued");
  }, { maxQueries: 1, maxQueued: 1 }));

Deno.test("limits: a query that would hold more than -query-memory fails; the server goes on", () =>
  withServer(async (s) => {
    await post(s, "/pool", '{"name":"p"}');
    const lines: string[] = [];
    for (let i = 0; i < 40_000; i++) lines.push(`{ts:${i},s:"${"x".repeat(80)}"}`);
    await post(s, "/pool/p/branch/main", lines.join("\n"));
    const r = await post(s, "/query?ctrl=true", '{"query":"from p | tail 1000000"}', {
      Accept: "application/x-zjson",
    });
    assert.equal(r.status, 200);
    assert.match(
      r.text,
      /"QueryError".*query memory limit exceeded: tail would hold more than the query's 2 MiB \(-query-memory\)/,
    );
    // What spills, spills; what fits, runs.
    const sorted = await post(s, "/query", '{"query":"from p | sort -r s, ts | head 1 | cut ts"}', {
      Accept: "application/json",
    });
    assert.equal(sorted.text, '[{"ts":39999}]\n');
    const quick = await post(s, "/query", '{"query":"from p | tail 2 | count()"}', {
      Accept: "application/json",
    });
    assert.equal(quick.text, '[{"count":2}]\n');
  }, { queryMemory: 2 * 1024 * 1024 }));
