// Limits that protect the server from its clients' bodies: a parameter body
// (not a load's) is at most 16 MiB as sent and as inflated from gzip, and
// must arrive in time.

import assert from "node:assert/strict";
import { get, post, withServer } from "./helpers.ts";

async function gzip(text: string | Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const s = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

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
