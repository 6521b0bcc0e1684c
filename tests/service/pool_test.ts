// Pools over HTTP: create (POST /pool), rename (PUT), drop (DELETE) and
// stats (GET /pool/{pool}/stats), with the reference's bodies
// (curl-create.yaml, curl-pool-rename.yaml, curl-stats.yaml, TestPoolStats,
// TestPoolPutDuplicateName, TestPoolRemote).

import assert from "node:assert/strict";
import { openWriter } from "../../lib/formats/registry.ts";
import { zctx } from "../../lib/zed/context.ts";
import { Field, TypeInt64, TypeString } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import {
  base62,
  call,
  createPool,
  errorBody,
  expect,
  get,
  jsonOf,
  load,
  post,
  query,
  withServer,
  zsonLines,
} from "./helpers.ts";

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const TS_ALL = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;

Deno.test("POST /pool: curl-create.yaml's JSON BranchMeta", () =>
  withServer(async (s) => {
    const r = await post(
      s,
      "/pool",
      '{"name": "test", "layout": { "order": "desc", "keys": [["ts"]] }}',
      { Accept: "application/json" },
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("Content-Type"), "application/json");
    const v = JSON.parse(r.text);
    assert.match(v.pool.ts, TS);
    assert.match(v.pool.id, /^0x[0-9a-f]{40}$/);
    assert.match(v.branch.ts, TS);
    v.pool.ts = v.pool.id = v.branch.ts = 0;
    assert.deepEqual(v, {
      pool: {
        ts: 0,
        name: "test",
        id: 0,
        layout: { order: "desc", keys: [["ts"]] },
        seek_stride: 65536,
        threshold: 524288000,
      },
      branch: { ts: 0, name: "main", commit: "0x0000000000000000000000000000000000000000" },
    });
    // One line, Go's encoding (no spaces).
    assert.ok(r.text.endsWith("}\n") && !r.text.slice(0, -1).includes("\n"));
  }));

Deno.test("POST /pool: ZSON response with the reference's named types", () =>
  withServer(async (s) => {
    const r = await post(
      s,
      "/pool",
      '{name:"inventory",layout:{order:"asc",keys:[["product_name"]]},seek_stride:1000,thresh:2000}',
    );
    assert.equal(r.headers.get("Content-Type"), "application/x-zson");
    assert.equal(
      r.text.replace(TS_ALL, "T").replace(/0x[0-9a-f]{40}/, "ID"),
      '{pool:{ts:T,name:"inventory",id:ID(=ksuid.KSUID),layout:{order:"asc"(=order.Which),' +
        'keys:[["product_name"](=field.Path)](=field.List)}(=order.Layout),seek_stride:1000,' +
        'threshold:2000}(=pools.Config),branch:{ts:T,name:"main",' +
        "commit:0x0000000000000000000000000000000000000000(ksuid.KSUID)}(=branches.Config)}" +
        "(=lake.BranchMeta)\n",
    );
  }));

Deno.test("POST /pool: name only (TestPoolPostNameOnly) takes the seed spec's default layout", () =>
  withServer(async (s) => {
    const r = await post(s, "/pool", '{"name":"test"}', { Accept: "application/json" });
    const v = jsonOf(r) as { pool: { id: string; layout: unknown } };
    assert.notEqual(v.pool.id, "0x0000000000000000000000000000000000000000");
    // The reference stores keys:null (and sorts on ts anyway); the seed spec's default is [["ts"]].
    assert.deepEqual(v.pool.layout, { order: "asc", keys: [["ts"]] });
  }));

Deno.test("POST /pool: a ZNG request body, as the Go client sends it", () =>
  withServer(async (s) => {
    const chunks: Uint8Array[] = [];
    const w = openWriter("zng", (c) => {
      chunks.push(c.slice());
      return Promise.resolve();
    });
    const layout = zctx.lookupNamed(
      "order.Layout",
      zctx.lookupRecord([
        new Field("order", zctx.lookupNamed("order.Which", TypeString)),
        new Field("keys", zctx.lookupArray(zctx.lookupArray(TypeString))),
      ]),
    );
    const t = zctx.lookupNamed(
      "api.PoolPostRequest",
      zctx.lookupRecord([
        new Field("name", TypeString),
        new Field("layout", layout),
        new Field("seek_stride", TypeInt64),
        new Field("thresh", TypeInt64),
      ]),
    );
    await w.write([new Value(t, ["zng", ["desc", [["x"]]], 0, 0])]);
    await w.end();
    const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let off = 0;
    for (const c of chunks) {
      body.set(c, off);
      off += c.length;
    }
    const r = await post(s, "/pool", body, {
      "Content-Type": "application/x-zng",
      Accept: "application/json",
    });
    const v = jsonOf(r) as { pool: { name: string; layout: unknown; threshold: number } };
    assert.equal(v.pool.name, "zng");
    assert.deepEqual(v.pool.layout, { order: "desc", keys: [["x"]] });
    assert.equal(v.pool.threshold, 524288000);
  }));

Deno.test("POST /pool: errors", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const cases: [string, number, string, string][] = [
      ['{"name":"test"}', 409, "conflict with pending operation", "test: pool already exists"],
      // Zed answers 500: a client's fault is a 400 here.
      ['{"name":"HEAD"}', 400, "invalid operation", 'pool cannot be named "HEAD"'],
      ['{"name":"x","layout":{"order":"up"}}', 400, "invalid operation", "unknown order: up"],
      ['{"name":"x","layout":{"order":""}}', 400, "invalid operation", "unknown order: "],
      [
        '{"name":1}',
        400,
        "invalid operation",
        "incompatible type translation: zng type int64 go type string go kind string",
      ],
      [
        '{"name":"x","seek_stride":1.5}',
        400,
        "invalid operation",
        "incompatible type translation: zng type float64 go type int go kind int",
      ],
      [
        '{"name":"x","layout":{"keys":"ts"}}',
        400,
        "invalid operation",
        'unmarshaling type "string": not an array',
      ],
      [
        '{"name":"x","layout":{"keys":[["a",1]]}}',
        400,
        "invalid operation",
        "incompatible type translation: zng type (int64,string) go type string go kind string",
      ],
      ["1", 400, "invalid operation", 'cannot unmarshal Zed value "1" into Go struct'],
      [
        '{"name":"x","layout":[1]}',
        400,
        "invalid operation",
        'cannot unmarshal Zed value "[1]" into Go struct',
      ],
      // Zed accepts an empty name (README: a deliberate difference).
      ['{"name":""}', 400, "invalid operation", "pool name cannot be empty"],
      // Names hold no control characters, are well-formed and at most 256 bytes.
      [
        '{"name":"test\\u0000x"}',
        400,
        "invalid operation",
        "invalid pool name: control characters are not allowed",
      ],
      [
        '{"name":"a\\nb"}',
        400,
        "invalid operation",
        "invalid pool name: control characters are not allowed",
      ],
      [
        `{"name":"${"é".repeat(129)}"}`,
        400,
        "invalid operation",
        "invalid pool name: longer than 256 bytes",
      ],
      // Sizes: 0 is the default; else from 1000 bytes to 1 TiB.
      ...["1", "-1", "999", String(2 ** 40 + 1)].map((v): [string, number, string, string] => [
        `{"name":"x","thresh":${v}}`,
        400,
        "invalid operation",
        `invalid thresh: ${v} (0 for the default, else from 1000 to 1099511627776 bytes)`,
      ]),
      [
        '{"name":"x","seek_stride":-5}',
        400,
        "invalid operation",
        "invalid seek_stride: -5 (0 for the default, else from 1000 to 1099511627776 bytes)",
      ],
    ];
    for (const [body, status, kind, error] of cases) {
      const r = await post(s, "/pool", body);
      assert.equal(r.status, status, body);
      assert.equal(r.headers.get("Content-Type"), "application/json");
      assert.equal(r.text, errorBody(kind, error), body);
    }
    // Only the one pool exists.
    assert.deepEqual(await zsonLines(s, "from :pools | yield name"), ['"test"']);
  }));

Deno.test("PUT /pool/{pool}: curl-pool-rename.yaml", () =>
  withServer(async (s) => {
    const id = await createPool(s, "test");
    const r = await call(s, "PUT", "/pool/test", {
      body: '{"name":"new_test"}',
      headers: { Accept: "application/json" },
    });
    assert.equal(r.status, 204);
    assert.equal(r.text, "");
    assert.equal(r.headers.get("Content-Type"), null);
    const pools = JSON.parse(expect(await query(s, "from :pools", "application/json"), 200));
    assert.equal(pools.length, 1);
    assert.match(pools[0].ts, TS);
    assert.equal(pools[0].id, id);
    pools[0].ts = pools[0].id = 0;
    assert.deepEqual(pools[0], {
      ts: 0,
      name: "new_test",
      id: 0,
      layout: { order: "desc", keys: [["ts"]] },
      seek_stride: 65536,
      threshold: 524288000,
    });
    // By id, 0x-hex or base62.
    assert.equal((await call(s, "PUT", `/pool/${id}`, { body: '{"name":"a"}' })).status, 204);
    assert.equal((await call(s, "PUT", `/pool/${base62(id)}`, { body: '{name:"b"}' })).status, 204);
    assert.deepEqual(await zsonLines(s, "from :pools | yield name"), ['"b"']);
  }));

Deno.test("PUT /pool/{pool}: conflicts and unknown pools (TestPoolPutDuplicateName)", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    await createPool(s, "test1");
    const dup = await call(s, "PUT", "/pool/test1", { body: '{"name":"test"}' });
    assert.equal(dup.status, 409);
    assert.equal(
      dup.text,
      errorBody("conflict with pending operation", "test: pool already exists"),
    );
    const missing = await call(s, "PUT", "/pool/nope", { body: '{"name":"x"}' });
    assert.equal(missing.status, 404);
    assert.equal(missing.text, errorBody("item does not exist", "nope: pool not found"));
    const unknownId = "0x0123456789012345678901234567890123456789";
    const byId = await call(s, "PUT", `/pool/${unknownId}`, { body: '{"name":"x"}' });
    assert.equal(byId.status, 404);
    assert.equal(
      byId.text,
      errorBody("item does not exist", "0A42ooXOWFkGit78ZjPVLpDkRgn: pool not found"),
    );
    // The body is read before the pool is looked up.
    const bad = await call(s, "PUT", "/pool/nope", { body: '{"name":1}' });
    assert.equal(bad.status, 400);
  }));

Deno.test("DELETE /pool/{pool}: the pool and its files go (TestPoolRemote)", () =>
  withServer(async (s) => {
    const id = await createPool(s, "test");
    await load(s, "test", "{ts:1}");
    const poolDir = `${s.dir}/pools/${base62(id)}`;
    assert.ok((await Deno.stat(poolDir)).isDirectory);
    const r = await call(s, "DELETE", "/pool/test");
    assert.equal(r.status, 204);
    assert.equal(r.text, "");
    assert.deepEqual(await zsonLines(s, "from :pools"), []);
    await assert.rejects(() => Deno.stat(poolDir), Deno.errors.NotFound);
    const again = await call(s, "DELETE", "/pool/test");
    assert.equal(again.status, 404);
    assert.equal(again.text, errorBody("item does not exist", "test: pool not found"));
    const byId = await call(s, "DELETE", `/pool/${id}`);
    assert.equal(byId.text, errorBody("item does not exist", `${base62(id)}: pool not found`));
  }));

Deno.test("GET /pool/{pool}/stats: TestPoolStats and TestPoolStatsNoData", () =>
  withServer(async (s) => {
    const id = await createPool(s, "test");
    const empty = await get(s, `/pool/${id}/stats`, { Accept: "application/json" });
    assert.equal(empty.text, '{"size":0,"span":null}\n');
    const emptyZson = await get(s, `/pool/${id}/stats`);
    assert.ok(emptyZson.text.startsWith("{size:0,span:null(nano.Span="), emptyZson.text);
    await load(
      s,
      "test",
      '{_path:"conn",ts:1970-01-01T00:00:01Z,uid:"CBrzd94qfowOqJwCHa"}\n' +
        '{_path:"conn",ts:1970-01-01T00:00:02Z,uid:"C8Tful1TvM3Zf5x8fl"}\n',
    );
    const r = await get(s, `/pool/${id}/stats`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("Content-Type"), "application/x-zson");
    assert.equal(
      r.text,
      "{size:84,span:{ts:1970-01-01T00:00:01Z,dur:1000000001(=nano.Duration)}(=nano.Span)}" +
        "(=exec.PoolStats)\n",
    );
    const j = await get(s, "/pool/test/stats", { Accept: "application/json" });
    assert.equal(j.text, '{"size":84,"span":{"ts":"1970-01-01T00:00:01Z","dur":1000000001}}\n');
  }));

Deno.test("GET /pool/{pool}/stats: curl-stats.yaml over babble", () =>
  withServer(async (s) => {
    const pool = JSON.parse(
      expect(await post(s, "/pool", '{"name":"test"}', { Accept: "application/json" }), 200),
    );
    const babble = await Deno.readFile(new URL("./fixtures/babble.zson", import.meta.url));
    await load(s, base62(pool.pool.id), babble);
    const r = await get(s, `/pool/${base62(pool.pool.id)}/stats`);
    assert.equal(
      r.text,
      "{size:32074,span:{ts:2020-04-21T22:40:30.06852324Z,dur:9789993714061(=nano.Duration)}" +
        "(=nano.Span)}(=exec.PoolStats)\n",
    );
  }));

Deno.test("GET /pool/{pool}/stats: main deleted, unknown pool", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    assert.equal((await call(s, "DELETE", "/pool/test/branch/main")).status, 204);
    const r = await get(s, "/pool/test/stats");
    assert.equal(r.status, 404);
    assert.equal(r.text, errorBody("item does not exist", '"main": branch not found'));
    const nope = await get(s, "/pool/nope/stats");
    assert.equal(nope.text, errorBody("item does not exist", "nope: pool not found"));
  }));

Deno.test("POST /pool, PUT /pool, POST /pool/{pool}: names are kept byte for byte", () =>
  withServer(async (s) => {
    await createPool(s, "p");
    const name = "p".repeat(100) + "é€😀";
    assert.equal((await post(s, "/pool", JSON.stringify({ name }))).status, 200);
    const sized = await post(s, "/pool", '{"name":"sized","thresh":1024,"seek_stride":1024}');
    assert.equal(sized.status, 200, sized.text);
    // A NUL would once end the name early: "main\u0000x" became a second "main".
    const branch = await post(
      s,
      "/pool/p",
      `{"name":"main\\u0000x","commit":"0x${"0".repeat(40)}"}`,
    );
    assert.equal(branch.status, 400);
    assert.equal(
      JSON.parse(branch.text).error,
      "invalid branch name: control characters are not allowed",
    );
    const rename = await call(s, "PUT", "/pool/p", { body: '{"name":"p\\u0000"}' });
    assert.equal(rename.status, 400);
    assert.deepEqual(await zsonLines(s, "from p:branches | yield branch.name"), ['"main"']);
    assert.deepEqual(await zsonLines(s, "from :pools | sort name | yield name"), [
      '"p"',
      JSON.stringify(name),
      '"sized"',
    ]);
  }));
