// GET /metrics: the Prometheus text format, scraped and parsed, counting what
// the server did (requests, loads, commits, queries and what they read,
// refusals) and reading what it holds (pools' objects and bytes, event
// streams, workers, queued queries, memory).

import assert from "node:assert/strict";
import { Authenticator } from "../../lib/service/auth/mod.ts";
import { addToken } from "../../lib/service/auth/mod.ts";
import { call, get, post, type TestServer, withServer } from "./helpers.ts";

/** Samples by their name and labels as written (`name{a="b"}`); comments checked for form. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      assert.match(line, /^# (HELP|TYPE) [a-z_:][a-z0-9_:]* .+$/, line);
      continue;
    }
    const m = line.match(/^([a-z_:][a-z0-9_:]*(?:\{[^}]*\})?) (\S+)$/);
    assert.ok(m !== null, `not a sample: ${line}`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}

async function scrape(s: TestServer, headers: Record<string, string> = {}) {
  const r = await get(s, "/metrics", headers);
  assert.equal(r.status, 200, r.text);
  assert.match(r.headers.get("Content-Type") ?? "", /^text\/plain; version=0\.0\.4/);
  return parse(r.text);
}

Deno.test("metrics: requests, loads, commits, queries and what the lake holds", () =>
  withServer(async (s) => {
    await post(s, "/pool", '{"name":"p"}');
    await post(s, "/pool/p/branch/main", "{a:1}\n{a:2}\n{a:3}");
    const q = await post(s, "/query", '{"query":"from p | count()"}', {
      Accept: "application/json",
    });
    assert.equal(q.text, '[{"count":3}]\n');
    await get(s, "/status");
    await get(s, "/pool/nosuch/stats");
    const m = await scrape(s);
    assert.equal(m.get('loch_http_requests_total{method="POST",route="/pool",status="200"}'), 1);
    assert.equal(
      m.get(
        'loch_http_requests_total{method="POST",route="/pool/:pool/branch/:branch",status="200"}',
      ),
      1,
    );
    assert.equal(m.get('loch_http_requests_total{method="GET",route="/status",status="200"}'), 1);
    assert.equal(
      m.get('loch_http_requests_total{method="GET",route="/pool/:pool/stats",status="404"}'),
      1,
    );
    assert.equal(m.get("loch_loads_total"), 1);
    assert.equal(m.get("loch_load_records_total"), 3);
    assert.ok(m.get("loch_load_bytes_total")! > 0);
    assert.equal(m.get("loch_commits_total"), 1);
    assert.equal(m.get("loch_queries_total"), 1);
    assert.ok(m.get("loch_query_duration_seconds_count") === 1);
    assert.equal(m.get('loch_pool_objects{pool="p"}'), 1);
    assert.ok(m.get('loch_pool_bytes{pool="p"}')! > 0);
    assert.equal(m.get("loch_event_streams"), 0);
    assert.equal(m.get("loch_queries_running"), 0);
    assert.equal(m.get("loch_queries_waiting"), 0);
    assert.ok(m.get("loch_resident_memory_bytes")! > 10e6);
    // The gate in front counts the scrape's own connection.
    assert.ok(m.get("loch_connections_open")! >= 1);
    assert.equal(m.get("loch_connections_refused_total"), 0);
    assert.equal(m.get('loch_connections_timed_out_total{timeout="header"}'), 0);
    assert.ok(
      m.get('loch_http_request_duration_seconds_count{route="/query"}') === 1,
      "the query's request was timed",
    );
    // A scan's reads are counted (from whichever thread ran it).
    await post(s, "/query", '{"query":"from p | a > 1 | count()"}', { Accept: "application/json" });
    const m2 = await scrape(s);
    assert.equal(m2.get("loch_queries_total"), 2);
    assert.ok(m2.get("loch_query_records_read_total")! >= 3);
    // An event stream open shows.
    const events = await fetch(`${s.url}/events`);
    const m3 = await scrape(s);
    assert.equal(m3.get("loch_event_streams"), 1);
    await events.body!.cancel();
  }));

Deno.test("metrics: refusals for want of credentials are counted; /metrics needs credentials too", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const token = await addToken(`${dir}/t.json`, { name: "ops", access: "read" });
    const auth = await Authenticator.open({ tokensPath: `${dir}/t.json` });
    await withServer(async (s) => {
      assert.equal((await get(s, "/metrics")).status, 401);
      assert.equal((await call(s, "POST", "/pool", { body: '{"name":"x"}' })).status, 401);
      const m = await scrape(s, { Authorization: `Bearer ${token}` });
      assert.equal(m.get("loch_unauthorized_requests_total"), 2);
    }, { auth });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
