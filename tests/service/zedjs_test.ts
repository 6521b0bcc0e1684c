// End to end with the real JavaScript client, @brimdata/zed-js 0.0.16 (the
// Zui app's client), against a loch server on 127.0.0.1:0: the calls Zui
// makes (clients.md §1.1), loads as zed-node sends them (§1.2), the query
// text Zui composes (§2.2), and the event stream as Zui subscribes to it (§3.1).

import assert from "node:assert/strict";
import {
  Client,
  decode,
  getLoadContentType,
  jsonHeader,
  TypeRecord,
  TypeValue,
} from "@brimdata/zed-js";
import { Lake } from "../../lib/lake/lake.ts";
import { type LakeServer, serve } from "../../lib/service/server.ts";
import { rawAcceptRoutes, routes } from "../../routes/mod.ts";

// zed-js's browser Client calls window.fetch, which Deno does not define.
(globalThis as unknown as { window: unknown }).window ??= globalThis;

const ZEEK = new URL("../fixtures/zeek/", import.meta.url).pathname;
const ZEEK_FILES = ["ssh", "dpd", "known_hosts", "kerberos"];
/** What Zui puts in a load's commit message: the file's path, non-ASCII here. */
const importBody = (file: string) => `automatic import of /home/zoë/Zeek ログ/${file}.json.gz`;

// ---- the typed data set: real times, ips, durations and nested records ----

const T0 = Date.UTC(2023, 6, 10); // 2023-07-10T00:00:00Z
const N = 240; // one value every 2 s: 8 minutes, 30 values a minute, two shapes
const MAX_U64 = 18446744073709551615n;

/** Time of value i in ms; the last one also has sub-millisecond digits. */
const msOf = (i: number) => T0 + i * 2000 + (i % 7) * 3;
const SUBMS = 456789; // ns beyond the ms of the last value
const nsOf = (i: number) => BigInt(msOf(i)) * 1000000n + (i === N - 1 ? BigInt(SUBMS) : 0n);
const tsText = (i: number) =>
  new Date(msOf(i)).toISOString().replace("Z", i === N - 1 ? `${SUBMS}Z` : "Z");

function typedZson(i: number): string {
  const id = `id:{orig_h:10.0.${i >> 8}.${i & 255},orig_p:${40000 + i}(port=uint16),` +
    `resp_h:2001:db8::${(i + 1).toString(16)},resp_p:443(port)}`;
  if (i % 2 === 0) {
    const bytes = i === 0 ? `${MAX_U64}` : `${i * 1000}`;
    return `{_path:"conn",ts:${tsText(i)},${id},duration:${i}.25s,orig_bytes:${bytes}(uint64),` +
      `local:${i % 4 === 0},net:10.${i & 255}.0.0/16,tags:|["a","b"]|}`;
  }
  return `{_path:"dns",ts:${tsText(i)},${id},query:"host${i}.example.com",` +
    `answers:[1.2.3.${i & 255},::1],rtt:${i}ms,ttls:|{"a":${i},"b":null(int64)}|,` +
    `cookie:0x${(i & 255).toString(16).padStart(2, "0")}ff,score:${i}.5}`;
}

/** How zed-js's toJS() should show value i. */
function typedJS(i: number): Record<string, unknown> {
  const id = {
    orig_h: `10.0.${i >> 8}.${i & 255}`,
    orig_p: 40000 + i,
    resp_h: `2001:db8::${(i + 1).toString(16)}`,
    resp_p: 443,
  };
  const ts = new Date(msOf(i));
  if (i % 2 === 0) {
    return {
      _path: "conn",
      ts,
      id,
      duration: i * 1000 + 250,
      orig_bytes: i === 0 ? Number(MAX_U64) : i * 1000,
      local: i % 4 === 0,
      net: `10.${i & 255}.0.0/16`,
      tags: ["a", "b"],
    };
  }
  return {
    _path: "dns",
    ts,
    id,
    query: `host${i}.example.com`,
    answers: [`1.2.3.${i & 255}`, "::1"],
    rtt: i,
    ttls: new Map<string, number | null>([["a", i], ["b", null]]),
    cookie: `0x${(i & 255).toString(16).padStart(2, "0")}ff`,
    score: i + 0.5,
  };
}

/** Indexes of the typed values in pool order (ts descending). */
const typedOrder = Array.from({ length: N }, (_, k) => N - 1 - k);

// ---- zed-node's load(), which zed-js 0.0.16's browser client lacks ----

interface CommitResponse {
  commit: string;
  warnings: string[];
}

/**
 * POST /pool/{id}/branch/main as zed-node 0.0.16 sends it: Accept ZJSON,
 * Content-Type from getLoadContentType (possibly ""), the Zed-Commit message
 * as jsonHeader (\u escapes), the body streamed; the reply is one ZJSON value.
 */
async function zedNodeLoad(
  base: string,
  poolId: string,
  body: BodyInit,
  format: string | undefined,
  message: { author: string; body: string },
): Promise<CommitResponse> {
  const res = await fetch(`${base}/pool/${poolId}/branch/${encodeURIComponent("main")}`, {
    method: "POST",
    headers: {
      Accept: "application/x-zjson",
      "Content-Type": getLoadContentType(format as "auto") ?? "",
      "Zed-Commit": jsonHeader(message),
    },
    body,
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  assert.equal(res.headers.get("Content-Type"), "application/x-zjson");
  return decode(json).toJS() as CommitResponse;
}

async function zeekFile(name: string): Promise<ReadableStream<Uint8Array>> {
  return (await Deno.open(`${ZEEK}${name}.json.gz`)).readable;
}

async function zeekLines(name: string): Promise<number> {
  const gz = new Response(await Deno.readFile(`${ZEEK}${name}.json.gz`)).body!;
  const text = await new Response(gz.pipeThrough(new DecompressionStream("gzip"))).text();
  return text.split("\n").filter((l) => l !== "").length;
}

// ---- the event stream, as Zui subscribes to it ----

interface Event {
  name: string;
  data: string;
}

class Events {
  readonly got: Event[] = [];
  errors = 0;

  constructor(readonly source: EventSource) {
    for (const name of ["pool-new", "pool-update", "pool-delete", "branch-commit"]) {
      source.addEventListener(name, (e) => {
        this.got.push({ name, data: (e as MessageEvent).data });
      });
    }
    source.onerror = () => this.errors++;
  }

  /** The first event (from the start) that matches, waiting for it if need be. */
  async waitFor(name: string, pred: (d: Record<string, string>) => boolean): Promise<Event> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const e = this.got.find((e) => e.name === name && pred(JSON.parse(e.data)));
      if (e !== undefined) return e;
      if (Date.now() > deadline) {
        throw new Error(`no ${name} event; got ${JSON.stringify(this.got)}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async opened(): Promise<void> {
    const deadline = Date.now() + 5000;
    while (this.source.readyState !== EventSource.OPEN) {
      if (Date.now() > deadline) throw new Error("event stream did not open");
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

Deno.test("zed-js 0.0.16 drives a loch server as Zui does", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "loch-zedjs-test-" });
  let server: LakeServer | undefined;
  let events: Events | undefined;
  try {
    server = await serve({
      lake: await Lake.open(dir),
      hostname: "127.0.0.1",
      port: 0,
      corsOrigins: ["*"],
      logLevel: "error",
      version: "v1.3.0+loch.test",
      routes,
      rawAccept: rawAcceptRoutes,
      // Keep-alive comments between the events: the event source must skip them.
      eventKeepAliveMs: 20,
    });
    const base = `http://127.0.0.1:${server.addr.port}`;
    const client = new Client(base);
    let zeekId = "";
    let typedId = "";
    const zeekCommits: string[] = [];
    const zeekCounts: Record<string, number> = {};

    await t.step("version, auth method and the event stream", async () => {
      assert.deepEqual(await client.version(), { version: "v1.3.0+loch.test" });
      assert.deepEqual(await client.authMethod(), { kind: "", auth0: null });
      events = new Events(client.subscribe());
      await events.opened();
    });

    await t.step("createPool keyed on ts descending, then pool-new", async () => {
      const { pool, branch } = await client.createPool("zeek");
      assert.match(pool.id, /^0x[0-9a-f]{40}$/);
      assert.equal(pool.name, "zeek");
      assert.deepEqual(pool.layout, { order: "desc", keys: [["ts"]] });
      assert.equal(pool.seek_stride, 65536);
      assert.equal(pool.threshold, 524288000);
      assert.ok(pool.ts instanceof Date);
      assert.equal(branch.name, "main");
      assert.equal(branch.commit, "0x" + "0".repeat(40));
      zeekId = pool.id;
      await events!.waitFor("pool-new", (d) => d.pool_id === zeekId);
      const err = await rejection(client.createPool("zeek"));
      assert.equal(err.message, "zeek: pool already exists");
      assert.equal(err.name, "conflict with pending operation");
    });

    await t.step("a new pool's stats: size 0, no span", async () => {
      assert.deepEqual(await client.getPoolStats(zeekId), { size: 0, span: null });
    });

    await t.step("load gzipped Zeek JSON streamed as zed-node does", async () => {
      let size = 0;
      for (const [k, name] of ZEEK_FILES.entries()) {
        zeekCounts[name] = await zeekLines(name);
        // Zui's auto format is "*/*"; no format at all is an empty Content-Type.
        const format = k % 2 === 0 ? "auto" : undefined;
        const res = await zedNodeLoad(base, zeekId, await zeekFile(name), format, {
          author: "zui",
          body: importBody(name),
        });
        assert.match(res.commit, /^0x[0-9a-f]{40}$/);
        assert.deepEqual(res.warnings, []);
        zeekCommits.push(res.commit);
        // Zui polls for size > 0 after a load: it must show at once.
        const stats = await client.getPoolStats(zeekId);
        assert.ok(stats.size > size);
        size = stats.size;
        assert.equal(stats.span, null); // Zeek JSON ts is a string, not a time
      }
      for (const commit of zeekCommits) {
        const e = await events!.waitFor("branch-commit", (d) => d.commit_id === commit);
        assert.deepEqual(JSON.parse(e.data), {
          commit_id: commit,
          pool_id: zeekId,
          branch: "main",
          parent: "",
        });
      }
    });

    await t.step("the commit messages keep the non-ASCII file names", async () => {
      const rs = await client.query(
        "from 'zeek'@main:log | has(message) | yield {author, message} | sort message",
      );
      assert.deepEqual(
        await rs.js(),
        ZEEK_FILES.map(importBody).sort().map((message) => ({ author: "zui", message })),
      );
    });

    await t.step("getPools and getPool by 0x id and by name", async () => {
      const pools = await client.getPools();
      assert.equal(pools.length, 1);
      assert.equal(pools[0].id, zeekId);
      assert.equal(pools[0].name, "zeek");
      // The branch-commit event's pool_id is the id `from :pools` shows.
      assert.ok(events!.got.some((e) => JSON.parse(e.data).pool_id === pools[0].id));
      const byId = await client.getPool(zeekId);
      assert.equal(byId.name, "zeek");
      assert.deepEqual(byId.layout, { order: "desc", keys: [["ts"]] });
      assert.equal((await client.getPool("zeek")).id, zeekId);
      const err = await rejection(client.getPool("nosuch"));
      assert.equal(err.message, "Pool Not Found: nosuch");
    });

    await t.step("queries over the Zeek pool decode in ZJSON", async () => {
      const counts = await (await client.query("from 'zeek' | count() by _path | sort _path")).js();
      assert.deepEqual(
        counts,
        [...ZEEK_FILES].sort().map((p) => ({ _path: p, count: zeekCounts[p] })),
      );
      const total = Object.values(zeekCounts).reduce((a, b) => a + b, 0);
      const rs = await client.query(`from ${zeekId} | count()`);
      assert.deepEqual(await rs.js(), [{ count: total }]);
      assert.equal(rs.status, "success");
      const [ssh] = await (await client.query(
        `from 'zeek' | _path=="ssh" | uid=="C2MugGdsn3ZVI1wn6"`,
      )).js();
      assert.equal(ssh.ts, "2018-03-24T17:16:39.739898Z");
      assert.equal(ssh["id.orig_h"], "10.0.0.227");
      assert.equal(ssh["id.orig_p"], 59849);
      assert.equal(ssh["id.resp_p"], 22);
      assert.equal(ssh.auth_success, true);
      assert.equal(ssh.host_key, "2d:37:6b:11:43:f8:96:08:fe:60:42:20:98:9f:75:af");
    });

    await t.step("Zui's pagination of the Zeek pool", async () => {
      const all = await (await client.query("from 'zeek'")).js();
      assert.equal(all.length, Object.values(zeekCounts).reduce((a, b) => a + b, 0));
      const page = await (await client.query(
        "from 'zeek'\n  | { i: count(), v: this}\n  | i > 100\n  | head 100\n  | yield v",
      )).js();
      assert.deepEqual(page, all.slice(100, 200));
    });

    await t.step("load ZSON with real times, ips, durations and nested records", async () => {
      const { pool } = await client.createPool("typed", { order: "desc", key: "ts" });
      typedId = pool.id;
      await events!.waitFor("pool-new", (d) => d.pool_id === typedId);
      const text = Array.from({ length: N }, (_, i) => typedZson(i)).join("\n") + "\n";
      const res = await zedNodeLoad(base, typedId, text, "zson", {
        author: "zui",
        body: importBody("typed"),
      });
      assert.deepEqual(res.warnings, []);
      const e = await events!.waitFor("branch-commit", (d) => d.commit_id === res.commit);
      assert.equal(JSON.parse(e.data).pool_id, typedId);
    });

    await t.step("typed values decode: time, ip, uint64, duration, map, nested", async () => {
      const rows = await (await client.query("from 'typed'")).js();
      assert.deepEqual(rows, typedOrder.map(typedJS));
      // uint64 beyond 2^53 is exact as a bigint.
      const [big] = await (await client.query("from 'typed' | tail 1")).js({ bigint: true });
      assert.equal(big.orig_bytes, MAX_U64);
      assert.equal(big.id.orig_h, "10.0.0.0");
      const [cut] = await (await client.query(
        "from 'typed' | _path=='dns' | head 1 | cut id.orig_h, id.resp_h, rtt, ts",
      )).js();
      assert.deepEqual(cut, {
        id: { orig_h: `10.0.0.${N - 1}`, resp_h: `2001:db8::${N.toString(16)}` },
        rtt: N - 1,
        ts: new Date(msOf(N - 1)),
      });
    });

    await t.step("a query with two output channels decodes each on its own", async () => {
      const rs = await client.query("from 'typed' | fork (=> head 1 => tail 1)");
      await rs.promise;
      // js() reads channel 0; channel 1 has a decoder of its own, so its
      // types must be defined in it, not referred to channel 0's.
      assert.deepEqual(await rs.js(), [typedJS(typedOrder[0])]);
      const last = rs.channel(1).rows.map((r) => r.toJS());
      assert.deepEqual(last, [typedJS(typedOrder.at(-1)!)]);
    });

    await t.step("stats of a time-keyed pool: span with a Date and a ns duration", async () => {
      const stats = await client.getPoolStats(typedId);
      assert.ok(stats.size > 0);
      assert.ok(stats.span !== null);
      assert.deepEqual(stats.span.ts, new Date(msOf(0)));
      assert.equal(stats.span.dur, Number(nsOf(N - 1) - nsOf(0) + 1n));
    });

    await t.step("Zui's time-range pin and pagination, collected as Zui does", async () => {
      const lo = msOf(10) - 1;
      const hi = msOf(200);
      const iso = (ms: number) => new Date(ms).toISOString();
      const base = `from 'typed' | ts >= ${iso(lo)} and ts < ${iso(hi)}`;
      const inRange = typedOrder.filter((i) => msOf(i) >= lo && msOf(i) < hi);
      const perPage = 50;
      const rs = await client.query(
        `${base}\n  | { i: count(), v: this}\n  | i > ${perPage}\n  | head ${perPage}\n  | yield v`,
      );
      // Zui's results table: the collector gets every row so far, at the end at the latest.
      const updates: { rows: { toJS(): unknown }[]; shapesMap: Record<string, unknown> }[] = [];
      await rs.collect((c) => updates.push(c));
      assert.ok(updates.length > 0);
      const { rows, shapesMap } = updates[updates.length - 1];
      assert.deepEqual(rows.map((r) => r.toJS()), inRange.slice(perPage, 2 * perPage).map(typedJS));
      assert.equal(Object.keys(shapesMap).length, 2);
    });

    await t.step("Zui's histogram queries", async () => {
      const minMax = await (await client.query(`from ${typedId} | min(ts), max(ts)`)).js();
      assert.deepEqual(minMax, [{ min: new Date(msOf(0)), max: new Date(msOf(N - 1)) }]);
      const base = "from 'typed'";
      for (const where of ["ts == null", "!has(ts)"]) {
        const rs = await client.query(`${base}\n | ${where} | count()`);
        assert.deepEqual(await rs.js(), []); // as the reference: no input, no count
      }
      const rs = await client.query(
        `${base}\n | ts != null | count() by time := bucket(ts, 1m), group := typeof(this) | sort time`,
      );
      const rows = await rs.zed();
      assert.equal(rows.length, 16); // 8 minutes × 2 shapes
      const js = rows.map((r) => r.toJS() as { time: Date; group: string; count: number });
      const groups = new Set<string>();
      for (const [k, row] of js.entries()) {
        assert.equal(row.time.getTime(), T0 + Math.floor(k / 2) * 60000);
        assert.equal(row.count, 15);
        groups.add(row.group);
        // The group key is a type value: zed-js decodes it as a type.
        const g = (rows[k] as unknown as { get(n: string): unknown }).get("group");
        assert.ok(g instanceof TypeValue);
        assert.ok(g.value instanceof TypeRecord);
        const fields = g.value.fields!.map((f: { name: string }) => f.name);
        assert.deepEqual(fields.slice(0, 3), ["_path", "ts", "id"]);
      }
      assert.equal(groups.size, 2);
      for (const g of groups) assert.match(g, /^\{_path:string,ts:time,id:\{orig_h:ip,orig_p:/);
    });

    await t.step("updatePool renames, then pool-update", async () => {
      assert.equal(await client.updatePool(zeekId, { name: "zeek-renamed" }), true);
      await events!.waitFor("pool-update", (d) => d.pool_id === zeekId);
      assert.equal((await client.getPool(zeekId)).name, "zeek-renamed");
      const rs = await client.query("from 'zeek-renamed' | count()");
      assert.deepEqual(await rs.js(), [{
        count: Object.values(zeekCounts).reduce((a, b) => a + b),
      }]);
    });

    await t.step("errors surface with the server's message and kind", async () => {
      let err = await rejection(client.query("from 'zeek' | count("));
      assert.match(err.message, /^error parsing Zed at /);
      assert.equal(err.name, "invalid operation");
      err = await rejection(client.query("from 'zeek' | count()"));
      assert.equal(err.message, "zeek: pool not found");
      assert.equal(err.name, "item does not exist");
    });

    await t.step("deletePool, then pool-delete", async () => {
      assert.equal(await client.deletePool(typedId), true);
      await events!.waitFor("pool-delete", (d) => d.pool_id === typedId);
      assert.deepEqual((await client.getPools()).map((p) => p.id), [zeekId]);
      const err = await rejection(client.getPool(typedId));
      assert.equal(err.message, `Pool Not Found: ${typedId}`);
      const stats = await rejection(client.getPoolStats(typedId));
      assert.match(stats.message, /: pool not found$/);
      assert.equal(stats.name, "item does not exist");
      assert.equal(events!.errors, 0);
    });
  } finally {
    events?.source.close();
    await server?.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
