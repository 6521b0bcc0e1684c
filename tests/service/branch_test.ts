// Branches over HTTP: create (POST /pool/{pool}), get the tip and delete
// (GET/DELETE /pool/{pool}/branch/{branch}).

import assert from "node:assert/strict";
import {
  base62,
  call,
  createPool,
  errorBody,
  get,
  load,
  post,
  query,
  withServer,
  zsonLines,
} from "./helpers.ts";

const NIL = "0x0000000000000000000000000000000000000000";

Deno.test("POST /pool/{pool}: creates a branch at a commit (branches.Config)", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const commit = await load(s, "test", "{ts:1}");
    const r = await post(s, "/pool/test", JSON.stringify({ name: "dev", commit: base62(commit) }));
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("Content-Type"), "application/x-zson");
    assert.match(
      r.text,
      /^\{ts:\d{4}-\d\d-\d\dT[\d:.]+Z,name:"dev",commit:0x[0-9a-f]{40}\(=ksuid\.KSUID\)\}\(=branches\.Config\)\n$/,
    );
    assert.ok(r.text.includes(`commit:${commit}(`));
    // 0x-hex commit ids and JSON responses.
    const j = await post(s, "/pool/test", JSON.stringify({ name: "dev2", commit }), {
      Accept: "application/json",
    });
    const v = JSON.parse(j.text);
    assert.deepEqual([v.name, v.commit, Object.keys(v)], ["dev2", commit, [
      "ts",
      "name",
      "commit",
    ]]);
    // The nil commit (a branch of an empty branch), as the Go client sends it.
    const nil = await post(
      s,
      "/pool/test",
      '{"name":"empty","commit":"000000000000000000000000000"}',
      {
        Accept: "application/json",
      },
    );
    assert.equal(JSON.parse(nil.text).commit, NIL);
    assert.deepEqual(
      await zsonLines(s, "from test:branches | sort branch.name | yield branch.name"),
      [
        '"dev"',
        '"dev2"',
        '"empty"',
        '"main"',
      ],
    );
    assert.deepEqual(await zsonLines(s, "from test@dev"), ["{ts:1}"]);
    // loch reads an empty branch as empty (Zed would read main).
    assert.deepEqual(await zsonLines(s, "from test@empty"), []);
  }));

Deno.test("POST /pool/{pool}: errors", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const nil = "000000000000000000000000000";
    await post(s, "/pool/test", JSON.stringify({ name: "dev", commit: nil }));
    const cases: [string, string, number, string][] = [
      [
        "test",
        `{"name":"dev","commit":"${nil}"}`,
        409,
        errorBody("conflict with pending operation", "test/dev: branch already exists"),
      ],
      [
        "test",
        '{"name":"x","commit":"xyz"}',
        400,
        errorBody("invalid operation", "invalid commit object: xyz"),
      ],
      ["test", '{"name":"x"}', 400, errorBody("invalid operation", "invalid commit object: ")],
      [
        "nope",
        `{"name":"x","commit":"${nil}"}`,
        404,
        errorBody("item does not exist", "nope: pool not found"),
      ],
      // A commit the pool does not have is refused (Zed records any id; a deliberate difference).
      [
        "test",
        '{"name":"x","commit":"27aaaaaaaaaaaaaaaaaaaaaaaaa"}',
        404,
        errorBody("item does not exist", "27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found"),
      ],
      [
        "test",
        '{"name":"x","commit":1}',
        400,
        errorBody(
          "invalid operation",
          "incompatible type translation: zng type int64 go type string go kind string",
        ),
      ],
    ];
    for (const [pool, body, status, error] of cases) {
      const r = await post(s, `/pool/${pool}`, body);
      assert.equal(r.status, status, body);
      assert.equal(r.text, error, body);
    }
  }));

Deno.test("GET /pool/{pool}/branch/{branch}: the tip as api.CommitResponse", () =>
  withServer(async (s) => {
    const id = await createPool(s, "test");
    const empty = await get(s, "/pool/test/branch/main");
    assert.equal(
      empty.text,
      `{commit:${NIL}(=ksuid.KSUID),warnings:null([string])}(=api.CommitResponse)\n`,
    );
    const commit = await load(s, "test", "{ts:1}");
    const r = await get(s, `/pool/${id}/branch/main`, { Accept: "application/json" });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("Content-Type"), "application/json");
    assert.equal(r.text, `{"commit":"${commit}","warnings":null}\n`);
    const zjson = await get(s, `/pool/${base62(id)}/branch/main`, {
      Accept: "application/x-zjson",
    });
    assert.equal(
      zjson.text,
      '{"type":{"kind":"named","id":33,"name":"api.CommitResponse","type":{"kind":"record",' +
        '"id":32,"fields":[{"name":"commit","type":{"kind":"named","id":30,"name":"ksuid.KSUID",' +
        '"type":{"kind":"primitive","name":"bytes"}}},{"name":"warnings","type":{"kind":"array",' +
        `"id":31,"type":{"kind":"primitive","name":"string"}}}]}},"value":["${commit}",null]}\n`,
    );
    const csv = await get(s, "/pool/test/branch/main", { Accept: "text/csv" });
    assert.equal(csv.text, `commit,warnings\n${commit},\n`);
  }));

Deno.test("GET /pool/{pool}/branch/{branch}: unknown branch and pool", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const r = await get(s, "/pool/test/branch/nope");
    assert.equal(r.status, 404);
    assert.equal(r.text, errorBody("item does not exist", '"nope": branch not found'));
    const p = await get(s, "/pool/nope/branch/main");
    assert.equal(p.text, errorBody("item does not exist", "nope: pool not found"));
  }));

Deno.test("DELETE /pool/{pool}/branch/{branch}: any branch, main included", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const commit = await load(s, "test", "{ts:1}");
    await post(s, "/pool/test", JSON.stringify({ name: "dev", commit }));
    const r = await call(s, "DELETE", "/pool/test/branch/dev");
    assert.equal(r.status, 204);
    assert.equal(r.text, "");
    const again = await call(s, "DELETE", "/pool/test/branch/dev");
    assert.equal(again.status, 404);
    assert.equal(again.text, errorBody("item does not exist", '"dev": branch not found'));
    // The commits stay: the data is still there by commit id.
    assert.equal((await call(s, "DELETE", "/pool/test/branch/main")).status, 204);
    const q = await query(s, "from test");
    assert.equal(q.status, 404);
    assert.equal(q.text, errorBody("item does not exist", '"main": branch not found'));
    assert.deepEqual(await zsonLines(s, `from test@${base62(commit)}`), ["{ts:1}"]);
  }));

Deno.test("a branch's loads do not change its parent", () =>
  withServer(async (s) => {
    await createPool(s, "test", { order: "asc", keys: [["ts"]] });
    const c1 = await load(s, "test", "{ts:1}");
    await post(s, "/pool/test", JSON.stringify({ name: "dev", commit: c1 }));
    await load(s, "test", "{ts:2}", "dev");
    assert.deepEqual(await zsonLines(s, "from test@dev"), ["{ts:1}", "{ts:2}"]);
    assert.deepEqual(await zsonLines(s, "from test"), ["{ts:1}"]);
    const tip = await get(s, "/pool/test/branch/main", { Accept: "application/json" });
    assert.equal(JSON.parse(tip.text).commit, c1);
  }));

Deno.test("POST …/delete: curl-delete-where.yaml's ZSON commit response", () =>
  withServer(async (s) => {
    await createPool(s, "test", { order: "asc", keys: [["x"]] });
    for (const data of ["{x:1}{x:2}{x:3}", "{x:3}{x:4}{x:5}", "{x:6}{x:7}{x:8}"]) {
      await load(s, "test", data);
    }
    // A ZSON body with no Content-Type; the response has the proper one.
    const r = await post(s, "/pool/test/branch/main/delete", '{where:"x <= 4"}');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("Content-Type"), "application/x-zson");
    assert.equal(
      r.text.replace(/0x[0-9a-f]{40}/, "xxx"),
      "{commit:xxx(=ksuid.KSUID),warnings:null([string])}(=api.CommitResponse)\n",
    );
    assert.deepEqual(await zsonLines(s, "from test"), ["{x:5}", "{x:6}", "{x:7}", "{x:8}"]);
  }));
