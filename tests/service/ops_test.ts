// The versioning and index routes: delete, compact, merge, revert, index
// rules, index apply and update.

import assert from "node:assert/strict";
import {
  base62,
  call,
  createPool,
  errorBody,
  expect,
  hideIds,
  jsonOf,
  load,
  post,
  withServer,
  zsonLines,
} from "./helpers.ts";

const JSON_ACCEPT = { Accept: "application/json" };

async function objectIds(s: Parameters<typeof zsonLines>[0], pool: string): Promise<string[]> {
  const r = await post(
    s,
    "/query",
    JSON.stringify({ query: `from ${pool}@main:objects | sort meta.first | yield id` }),
    JSON_ACCEPT,
  );
  return jsonOf(r) as string[];
}

Deno.test("delete: by object ids, by commit id and by where (curl-delete-where.yaml)", () =>
  withServer(async (s) => {
    await createPool(s, "test", { order: "asc", keys: [["x"]] });
    const c1 = await load(s, "test", "{x:1}{x:2}{x:3}");
    await load(s, "test", "{x:3}{x:4}{x:5}");
    await load(s, "test", "{x:6}{x:7}{x:8}");
    // The reference's curl body: ZSON, no Content-Type.
    const r = await post(s, "/pool/test/branch/main/delete", '{where:"x <= 4"}');
    assert.equal(
      hideIds(expect(r, 200)),
      "{commit:0x<id>(=ksuid.KSUID),warnings:null([string])}(=api.CommitResponse)\n",
    );
    assert.equal(r.headers.get("Content-Type"), "application/x-zson");
    assert.deepEqual(await zsonLines(s, "from test | yield x"), ["5", "6", "7", "8"]);
    // A commit id stands for the objects it added (time travel still reads them).
    const ids = await objectIds(s, "test");
    const last = ids[ids.length - 1];
    jsonOf(
      await post(
        s,
        "/pool/test/branch/main/delete",
        JSON.stringify({ object_ids: [last] }),
        JSON_ACCEPT,
      ),
    );
    assert.deepEqual(await zsonLines(s, "from test | yield x"), ["5"]);
    assert.deepEqual(await zsonLines(s, `from test@${c1} | yield x`), ["1", "2", "3"]);
    // Errors.
    const both = await post(
      s,
      "/pool/test/branch/main/delete",
      JSON.stringify({ object_ids: [last], where: "x==1" }),
    );
    assert.equal(
      both.text,
      errorBody("invalid operation", "object_ids and where cannot both be set"),
    );
    const neither = await post(s, "/pool/test/branch/main/delete", "{}");
    assert.equal(
      neither.text,
      errorBody("invalid operation", "either object_ids or where must be set"),
    );
    const unknown = await post(
      s,
      "/pool/test/branch/main/delete",
      JSON.stringify({ object_ids: ["27aaaaaaaaaaaaaaaaaaaaaaaaa"] }),
    );
    assert.equal(unknown.status, 404);
    assert.equal(
      unknown.text,
      errorBody("item does not exist", "27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found"),
    );
    const invalid = await post(
      s,
      "/pool/test/branch/main/delete",
      JSON.stringify({ where: 'me == "hi" | cut me' }),
    );
    assert.equal(
      invalid.text,
      errorBody(
        "invalid operation",
        "invalid delete where query: must be a single filter operation",
      ),
    );
    const empty = await post(s, "/pool/test/branch/main/delete", '{where:"x > 100"}');
    assert.equal(empty.status, 400);
    assert.equal(empty.text, errorBody("invalid operation", "empty transaction"));
  }));

Deno.test("compact: object ids as bytes (the Go client's form) or strings", () =>
  withServer(async (s) => {
    await createPool(s, "p", { order: "desc", keys: [["ts"]] });
    await load(s, "p", "{ts:1}{ts:3}");
    await load(s, "p", "{ts:2}{ts:4}");
    const ids = await objectIds(s, "p");
    assert.equal(ids.length, 2);
    const r = await post(s, "/pool/p/branch/main/compact", `{object_ids:[${ids.join(",")}]}`, {
      "Zed-Commit": JSON.stringify({ author: "compactor" }),
    });
    expect(r, 200);
    assert.equal((await objectIds(s, "p")).length, 1);
    assert.deepEqual(await zsonLines(s, "from p | yield ts"), ["4", "3", "2", "1"]);
    assert.deepEqual(
      await zsonLines(s, "from p@main:log | nameof(this) == 'Commit' | head 1 | yield author"),
      ['"compactor"'],
    );
    await load(s, "p", "{ts:5}");
    const two = await objectIds(s, "p");
    const strings = await post(
      s,
      "/pool/p/branch/main/compact",
      JSON.stringify({ object_ids: two }),
    );
    expect(strings, 200);
    const one = await post(s, "/pool/p/branch/main/compact", `{object_ids:[${two[0]}]}`);
    assert.equal(one.status, 400);
    assert.equal(
      one.text,
      errorBody("invalid operation", "compact: two or more source objects required"),
    );
  }));

Deno.test("merge and revert", () =>
  withServer(async (s) => {
    await createPool(s, "p", { order: "asc", keys: [["a"]] });
    const first = await load(s, "p", "{a:1}");
    const tip = jsonOf(await call(s, "GET", "/pool/p/branch/main", { headers: JSON_ACCEPT })) as {
      commit: string;
    };
    expect(await post(s, "/pool/p", JSON.stringify({ name: "dev", commit: tip.commit })), 200);
    await load(s, "p", "{a:2}", "dev");
    const m = await post(s, "/pool/p/branch/main/merge/dev", undefined, JSON_ACCEPT);
    assert.deepEqual(Object.keys(jsonOf(m) as object), ["commit", "warnings"]);
    assert.deepEqual(await zsonLines(s, "from p | yield a"), ["1", "2"]);
    const again = await post(s, "/pool/p/branch/main/merge/dev");
    assert.equal(again.status, 400);
    assert.equal(
      again.text,
      errorBody("invalid operation", 'error merging "dev" into "main": difference is empty'),
    );
    // Revert the first load: {a:1} goes; reverting that revert brings it back.
    const rv = jsonOf(
      await post(s, `/pool/p/branch/main/revert/${base62(first)}`, undefined, JSON_ACCEPT),
    ) as { commit: string };
    assert.deepEqual(await zsonLines(s, "from p | yield a"), ["2"]);
    expect(await post(s, `/pool/p/branch/main/revert/${rv.commit}`), 200);
    assert.deepEqual(await zsonLines(s, "from p | yield a"), ["1", "2"]);
    const bad = await post(s, "/pool/p/branch/main/revert/nope");
    assert.equal(bad.status, 400);
    assert.equal(
      bad.text,
      errorBody("invalid operation", 'invalid path param "commit": invalid ID: nope'),
    );
    const unknown = await post(s, "/pool/p/branch/main/revert/27aaaaaaaaaaaaaaaaaaaaaaaaa");
    assert.equal(unknown.status, 404);
  }));

const RULES = "{rules:[" +
  '{ts:2023-01-01T00:00:00Z,id:0x0f5ce9b9b6202f3883c9db8ff58d8721a075d1e4,name:"xs",' +
  'fields:[["x"]]}(=index.FieldRule),' +
  '{ts:2023-01-01T00:00:01Z,id:0x0f5ce9b9b6202f3883c9db8ff58d8721a075d1e5,name:"ips",' +
  'type:"ip"}(=index.TypeRule)]}';

Deno.test("index rules: add (typed records, mixed kinds), list, apply, update, delete", () =>
  withServer(async (s) => {
    // Mixed rule kinds arrive as an array of a union, as the Go client sends them.
    assert.equal((await post(s, "/index", RULES)).status, 204);
    assert.deepEqual(
      await zsonLines(s, "from :index_rules | yield nameof(this)"),
      ['"index.TypeRule"', '"index.FieldRule"'],
    );
    const untyped = await post(s, "/index", '{rules:[{name:"x",type:"ip"}]}');
    assert.equal(
      untyped.text,
      errorBody(
        "invalid operation",
        "unmarshaling records into interface value requires type binding",
      ),
    );
    await createPool(s, "p", { order: "asc", keys: [["ts"]] });
    const c = await load(s, "p", "{ts:1,x:1}{ts:2,x:2}");
    // The reference's body, and the seed spec's.
    const applied = await post(
      s,
      "/pool/p/branch/main/index",
      JSON.stringify({ rules: ["xs"], tags: [c] }),
      JSON_ACCEPT,
    );
    assert.deepEqual(Object.keys(jsonOf(applied) as object), ["commit", "warnings"]);
    assert.deepEqual(
      await zsonLines(s, "from p@main:indexes | yield rule.name"),
      ['"xs"'],
    );
    await load(s, "p", "{ts:3,x:3}");
    const updated = await post(
      s,
      "/pool/p/branch/main/index/update",
      JSON.stringify({ rule_names: ["xs"] }),
    );
    expect(updated, 200);
    assert.equal((await zsonLines(s, "from p@main:indexes | count()"))[0], "{count:2(uint64)}");
    const nothing = await post(s, "/pool/p/branch/main/index/update", '{rules:["xs"]}');
    assert.equal(nothing.text, errorBody("invalid operation", "empty transaction"));
    const seed = await post(
      s,
      "/pool/p/branch/main/index",
      JSON.stringify({ rule_name: "ips", tags: [c] }),
    );
    expect(seed, 200);
    // Delete: the deleted rules come back (a union of their types).
    const del = await call(s, "DELETE", "/index", {
      body: '{rule_ids:["0x0f5ce9b9b6202f3883c9db8ff58d8721a075d1e4"]}',
    });
    assert.ok(expect(del, 200).includes("(=index.FieldRule)"));
    assert.ok(del.text.includes("(=api.IndexRulesDeleteResponse)"));
    const again = await call(s, "DELETE", "/index", {
      body: '{rule_ids:["0x0f5ce9b9b6202f3883c9db8ff58d8721a075d1e4"]}',
    });
    // A client's fault: 404 (Zed answers 500).
    assert.equal(again.status, 404);
    assert.ok(again.text.includes(" not found"));
  }));

Deno.test("load: an upload that breaks off commits nothing", () =>
  withServer(async (s) => {
    await createPool(s, "p");
    // A body stream that fails after some data.
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("{ts:1}\n".repeat(1000)));
      },
      pull(c) {
        c.error(new Error("client went away"));
      },
    });
    await fetch(`${s.url}/pool/p/branch/main`, { method: "POST", body }).then(
      (r) => r.body?.cancel(),
      () => {},
    );
    // As the reference: an empty pool has no values, so no count.
    assert.deepEqual(await zsonLines(s, "from p | count()"), []);
  }));
