// POST /query: the reference's bodies in every format (curl-query.yaml,
// curl-query-ctrl.yaml, curl-query-json-array.yaml, accept-header.yaml), ZNG
// control frames, errors before the output starts (parse errors with their
// offsets, unknown pools and branches, bad ctrl) and after it (QueryError).

import assert from "node:assert/strict";
import { Lake } from "../../lib/lake/lake.ts";
import { createPool as createLakePool } from "../../lib/lake/pools.ts";
import { load as loadLake } from "../../lib/lake/load.ts";
import { queryResponse } from "../../lib/service/query.ts";
import {
  currentSliceMs,
  enterWork,
  SHARED_SLICE_MS,
  shareEventLoop,
} from "../../lib/query/runtime/turns.ts";
import { openReader } from "../../lib/formats/detect.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import {
  base62,
  call,
  createPool,
  errorBody,
  hex,
  load,
  post,
  query,
  type TestServer,
  withServer,
  zsonLines,
} from "./helpers.ts";

/** curl-query.yaml's pool: `zed create -q test` (ts desc) with two records. */
async function curlQueryPool(s: TestServer): Promise<void> {
  await createPool(s, "test");
  await load(
    s,
    "test",
    '{a:"hello",b:{c:"world",d:"goodbye"}}\n{a:"one",b:{c:"two",d:"three"}}\n',
  );
}

/**
 * Masks the times of QueryStats lines, as the reference's tests do (they mask
 * numbers of three or more digits, which a time's ns of 0 would escape).
 */
const maskStats = (text: string) => text.replace(/"(sec|ns)":\d+/g, '"$1":xxx');

Deno.test("query: curl-query.yaml in every format", () =>
  withServer(async (s) => {
    await curlQueryPool(s);
    const zson = '{a:"hello",b:{c:"world",d:"goodbye"}}\n{a:"one",b:{c:"two",d:"three"}}\n';
    const cases: [string, string, string][] = [
      ["text/csv", "text/csv", "a,b.c,b.d\nhello,world,goodbye\none,two,three\n"],
      [
        "application/json",
        "application/json",
        '[{"a":"hello","b":{"c":"world","d":"goodbye"}},{"a":"one","b":{"c":"two","d":"three"}}]\n',
      ],
      [
        "application/x-ndjson",
        "application/x-ndjson",
        '{"a":"hello","b":{"c":"world","d":"goodbye"}}\n{"a":"one","b":{"c":"two","d":"three"}}\n',
      ],
      [
        "application/x-zjson",
        "application/x-zjson",
        '{"type":"QueryChannelSet","value":{"channel_id":0}}\n' +
        '{"type":{"kind":"record","id":31,"fields":[{"name":"a","type":{"kind":"primitive",' +
        '"name":"string"}},{"name":"b","type":{"kind":"record","id":30,"fields":[{"name":"c",' +
        '"type":{"kind":"primitive","name":"string"}},{"name":"d","type":{"kind":"primitive",' +
        '"name":"string"}}]}}]},"value":["hello",["world","goodbye"]]}\n' +
        '{"type":{"kind":"ref","id":31},"value":["one",["two","three"]]}\n' +
        '{"type":"QueryChannelEnd","value":{"channel_id":0}}\n' +
        '{"type":"QueryStats","value":{"start_time":{"sec":xxx,"ns":xxx},"update_time":' +
        '{"sec":xxx,"ns":xxx},"bytes_read":36,"bytes_matched":36,"records_read":2,' +
        '"records_matched":2}}\n',
      ],
      ["application/x-zson", "application/x-zson", zson],
      ["", "application/x-zson", zson],
    ];
    for (const [accept, type, body] of cases) {
      const r = await query(s, "from test", accept, "?ctrl=true");
      assert.equal(r.status, 200, accept);
      assert.equal(r.headers.get("Content-Type"), type, accept);
      assert.equal(maskStats(r.text), body, accept);
    }
    const pq = await query(s, "from test", "application/x-parquet");
    assert.equal(pq.headers.get("Content-Type"), "application/x-parquet");
    const reader = await openReader(ByteInput.fromBytes(pq.bytes), "parquet");
    let text = "";
    for (let b = await reader.read(); b !== null; b = await reader.read()) {
      for (const v of b) text += formatZson(v.type, v.body) + "\n";
    }
    assert.equal(text, zson);
  }));

Deno.test("query: ZNG output, with and without control frames, as the reference writes it", () =>
  withServer(async (s) => {
    await curlQueryPool(s);
    const values = "00010002016319016419000201611901621e18021f160668656c6c6f0f06776f726c6408676f" +
      "6f646279651f10046f6e650b0474776f067468726565";
    const plain = await query(s, "from test", "application/x-zng");
    assert.equal(plain.headers.get("Content-Type"), "application/x-zng");
    assert.equal(hex(plain.bytes), values + "ff");
    const ctrl = await query(s, "from test", "application/x-zng", "?ctrl=T");
    const set = "2202027b6368616e6e656c5f69643a307d283d51756572794368616e6e656c536574290a";
    const end = "2202027b6368616e6e656c5f69643a307d283d51756572794368616e6e656c456e64290a";
    const h = hex(ctrl.bytes);
    assert.ok(h.startsWith(set + values + end), h);
    assert.ok(h.endsWith("ff"));
    // The last frame is QueryStats (LZ4-compressed control frame: code 0x60 | length).
    const stats = ctrl.bytes.subarray((set + values + end).length / 2);
    assert.equal(stats[0] & 0xf0, 0x60);
  }));

Deno.test("query: curl-query-ctrl.yaml", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    await load(s, "test", "{ts:0}");
    const record = '{"type":{"kind":"record","id":30,"fields":[{"name":"ts","type":{"kind":' +
      '"primitive","name":"int64"}}]},"value":["0"]}\n';
    const on = await query(s, "from test@main", "application/x-zjson", "?ctrl=T");
    assert.equal(
      maskStats(on.text),
      '{"type":"QueryChannelSet","value":{"channel_id":0}}\n' + record +
        '{"type":"QueryChannelEnd","value":{"channel_id":0}}\n' +
        '{"type":"QueryStats","value":{"start_time":{"sec":xxx,"ns":xxx},"update_time":' +
        '{"sec":xxx,"ns":xxx},"bytes_read":1,"bytes_matched":1,"records_read":1,' +
        '"records_matched":1}}\n',
    );
    const stats = JSON.parse(on.text.trimEnd().split("\n").at(-1)!).value;
    const now = Date.now() / 1000;
    assert.ok(Math.abs(stats.start_time.sec - now) < 60);
    assert.ok(stats.update_time.ns >= 0 && stats.update_time.ns < 1e9);
    const off = await query(s, "from test@main", "application/x-zjson", "?ctrl=F");
    assert.equal(off.text, record);
    const bad = await query(s, "from test@main", "application/x-zjson", "?ctrl=Foo");
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get("Content-Type"), "application/json");
    assert.equal(
      bad.text,
      errorBody(
        "invalid operation",
        'invalid query param "Foo": strconv.ParseBool: parsing "Foo": invalid syntax',
      ),
    );
    // Go's strconv.ParseBool spellings.
    for (const v of ["1", "t", "T", "TRUE", "true", "True"]) {
      const r = await query(s, "from test", "application/x-zjson", `?ctrl=${v}`);
      assert.ok(r.text.startsWith('{"type":"QueryChannelSet"'), v);
    }
    for (const v of ["0", "f", "F", "FALSE", "false", "False", ""]) {
      assert.equal((await query(s, "from test", "application/x-zjson", `?ctrl=${v}`)).text, record);
    }
    // Control messages only in ZJSON and ZNG.
    assert.equal((await query(s, "from test", "application/x-zson", "?ctrl=T")).text, "{ts:0}\n");
  }));

Deno.test("query: an empty result", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    assert.equal((await query(s, "from test")).text, "");
    assert.equal((await query(s, "from test", "application/json")).text, "[]\n");
    for (
      const accept of [
        "text/csv",
        "application/x-parquet",
        "application/x-zng",
        "application/x-ndjson",
      ]
    ) {
      const r = await query(s, "from test", accept);
      assert.equal(r.bytes.length, 0, accept);
      // The reference sets no Content-Type on an empty body; loch always names the format.
      assert.equal(r.headers.get("Content-Type"), accept);
    }
    const ctrl = await query(s, "from test", "application/x-zjson", "?ctrl=1");
    assert.equal(
      maskStats(ctrl.text),
      '{"type":"QueryChannelEnd","value":{"channel_id":0}}\n' +
        '{"type":"QueryStats","value":{"start_time":{"sec":xxx,"ns":xxx},"update_time":' +
        '{"sec":xxx,"ns":xxx},"bytes_read":0,"bytes_matched":0,"records_read":0,' +
        '"records_matched":0}}\n',
    );
  }));

Deno.test("query: curl-query-json-array.yaml and accept-header.yaml", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const pools = await query(s, "from :pools | cut name", "application/json");
    assert.equal(pools.text, '[{"name":"test"}]\n');
    await load(s, "test", "{ts:0}");
    const json = await query(s, "from test@main", "text/plain, application/json");
    assert.equal(json.text, '[{"ts":0}]\n');
    const none = await query(s, "from test@main", "application/xml, text/css");
    assert.equal(none.status, 400);
    assert.equal(
      none.text,
      errorBody("invalid operation", "could not find supported MIME type in Accept header"),
    );
    const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    assert.equal((await query(s, "from test", browser)).text, "{ts:0}\n");
    // Beyond the reference: q-values order the list, and application/* means ZSON.
    assert.equal((await query(s, "from test", "application/json;q=0.5, text/csv")).text, "ts\n0\n");
    assert.equal((await query(s, "from test", "application/*")).text, "{ts:0}\n");
  }));

Deno.test("query: parse errors carry the reference's message and offset (query-parse-error.yaml)", () =>
  withServer(async (s) => {
    const one = await query(s, "from test \\ count()");
    assert.equal(one.status, 400);
    assert.equal(one.headers.get("Content-Type"), "application/json");
    assert.equal(
      one.text,
      errorBody(
        "invalid operation",
        "error parsing Zed at column 11:\nfrom test \\ count()\n      === ^ ===",
        { parse_error_offset: 10 },
      ),
    );
    const two = await query(s, "from\ntest \\ count()");
    assert.equal(
      two.text,
      errorBody(
        "invalid operation",
        "error parsing Zed at line 2, column 6:\ntest \\ count()\n === ^ ===",
        { parse_error_offset: 10 },
      ),
    );
  }));

Deno.test("query: unknown pools and branches, no pool (query-error-nopool, query-bad-commit)", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const cases: [string, unknown, number, string][] = [
      [
        "from doesnotexit",
        null,
        404,
        errorBody("item does not exist", "doesnotexit: pool not found"),
      ],
      [
        "from test@doesnotexist",
        null,
        404,
        errorBody("item does not exist", '"doesnotexist": branch not found'),
      ],
      // Client faults are 4xx here (Zed answers 500 to these).
      ["count()", null, 400, errorBody("invalid operation", "pool name missing")],
      ["", null, 400, errorBody("invalid operation", "pool name missing")],
      [
        "count()",
        { pool: "test", branch: "nope" },
        404,
        errorBody("item does not exist", '"nope": branch not found'),
      ],
      [
        "from nope*",
        null,
        404,
        errorBody("item does not exist", "nope*: pool matching glob not found"),
      ],
      [
        "from :dns",
        null,
        400,
        errorBody("invalid operation", 'unknown lake metadata type: "dns"'),
      ],
      [
        "from test@main:nosuch",
        null,
        400,
        errorBody("invalid operation", 'unknown commit metadata type: "nosuch"'),
      ],
    ];
    for (const [q, head, status, body] of cases) {
      const r = await post(
        s,
        "/query",
        JSON.stringify(head === null ? { query: q } : { query: q, head }),
      );
      assert.equal(r.status, status, q);
      assert.equal(r.text, body, q);
    }
  }));

Deno.test("query: head, empty queries, TestQuery and TestQueryGroupByReverse", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    await load(
      s,
      "test",
      '{_path:"b",ts:1970-01-01T00:00:01Z}\n{_path:"a",ts:1970-01-01T00:00:01Z}\n',
    );
    assert.deepEqual(await zsonLines(s, "from test | _path == 'b'"), [
      '{_path:"b",ts:1970-01-01T00:00:01Z}',
    ]);
    await createPool(s, "gb");
    await load(
      s,
      "gb",
      '{ts:1970-01-01T00:00:01Z,uid:"A"}\n{ts:1970-01-01T00:00:01Z,uid:"B"}\n' +
        '{ts:1970-01-01T00:00:02Z,uid:"B"}\n',
    );
    assert.deepEqual(await zsonLines(s, "from gb | count() by every(1s)"), [
      "{ts:1970-01-01T00:00:02Z,count:1(uint64)}",
      "{ts:1970-01-01T00:00:01Z,count:2(uint64)}",
    ]);
    // No from: the head's pool and branch; an empty query is everything.
    const withHead = (q: string, head: unknown) =>
      post(s, "/query", JSON.stringify({ query: q, head }));
    assert.equal((await withHead("count()", { pool: "gb" })).text, "{count:3(uint64)}\n");
    assert.equal((await withHead("", { pool: "gb", branch: "main" })).text.split("\n").length, 4);
    const commit = await load(s, "gb", "{ts:1970-01-01T00:00:03Z}");
    await post(s, "/pool/gb", JSON.stringify({ name: "dev", commit }));
    await load(s, "gb", "{ts:1970-01-01T00:00:04Z}", "dev");
    assert.equal(
      (await withHead("count()", { pool: "gb", branch: "dev" })).text,
      "{count:5(uint64)}\n",
    );
    assert.equal((await withHead("count()", { pool: "gb" })).text, "{count:4(uint64)}\n");
    // ZSON bodies and JSON Content-Type work alike.
    const z = await post(s, "/query", '{query:"from gb@dev | count()"}');
    assert.equal(z.text, "{count:5(uint64)}\n");
    const j = await post(s, "/query", '{"query":"from gb | count()"}', {
      "Content-Type": "application/json",
    });
    assert.equal(j.text, "{count:4(uint64)}\n");
    // A query without a body is a query for nothing in particular.
    const empty = await post(s, "/query");
    assert.equal(empty.text, errorBody("invalid operation", "pool name missing"));
  }));

Deno.test("query: OPTIONS without a preflight's headers runs the query", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    await load(s, "test", "{ts:1}");
    const r = await call(s, "OPTIONS", "/query", { body: '{"query":"from test | count()"}' });
    assert.equal(r.status, 200);
    assert.equal(r.text, "{count:1(uint64)}\n");
  }));

Deno.test("query: a failure after the output started (QueryError, or the output just ends)", () =>
  withServer(async (s) => {
    const pool = await createPool(s, "test", { order: "asc", keys: [["ts"]] });
    await load(s, "test", "{ts:1}");
    await load(s, "test", "{ts:5}");
    // Remove the second object's file: the scan fails when it reaches it.
    const objects = JSON.parse(
      (await query(s, "from test@main:objects | sort meta.first | yield id", "application/json"))
        .text,
    );
    await Deno.remove(`${s.dir}/pools/${base62(pool)}/data/${base62(objects[1])}.zng`);
    const zjson = await query(s, "from test", "application/x-zjson", "?ctrl=true");
    assert.equal(zjson.status, 200);
    const lines = zjson.text.trimEnd().split("\n");
    assert.equal(lines.length, 3, zjson.text);
    assert.equal(lines[0], '{"type":"QueryChannelSet","value":{"channel_id":0}}');
    assert.match(lines[1], /"value":\["1"\]\}$/);
    const err = JSON.parse(lines[2]);
    assert.equal(err.type, "QueryError");
    assert.match(err.value.error, new RegExp(`${base62(objects[1])}\\.zng`));
    // ZNG: the QueryError control frame ends the stream.
    const zng = await query(s, "from test", "application/x-zng", "?ctrl=true");
    const text = new TextDecoder().decode(zng.bytes);
    assert.ok(text.includes("(=QueryError)\n"), text);
    assert.equal(zng.bytes.at(-1), 0xff);
    assert.ok(!text.includes("QueryStats"));
    // Without control messages the output just ends (JSON still closes its array).
    assert.equal((await query(s, "from test", "application/json")).text, '[{"ts":1}]\n');
    assert.equal((await query(s, "from test")).text, "{ts:1}\n");
    // CSV output of mixed records stops at the second type, with status 200.
    await createPool(s, "mixed", { order: "asc", keys: [["ts"]] });
    await load(s, "mixed", '{ts:1,a:"hello"}\n{ts:2,b:1}\n');
    const csv = await query(s, "from mixed", "text/csv");
    assert.equal(csv.status, 200);
    assert.equal(csv.text, "ts,a\n1,hello\n");
  }));

Deno.test("a query run on the serving thread takes over its request's count of work", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loch-handover-" });
  const lake = await Lake.open(dir);
  const release = await shareEventLoop();
  try {
    const p = createLakePool(lake, { name: "p", layout: { order: "asc", keys: [["ts"]] } });
    await loadLake(lake, p, "main", await openReader(ByteInput.fromBytes(enc("{ts:1}\n{ts:2}"))));
    for (const q of ["from p | count()", "from p | yield ts"]) {
      // As the server counts a request while it is handled.
      const leave = enterWork();
      let handed = 0;
      let slice = 0;
      const res = await queryResponse(lake, q, "zson", {
        ctrl: false,
        handOver: () => {
          handed++;
          leave();
        },
      }, new Headers());
      // While the query runs, it alone is counted: not contended with its own request.
      slice = currentSliceMs();
      await res.text();
      leave();
      assert.equal(handed, 1, q);
      assert.equal(slice, SHARED_SLICE_MS, q);
    }
  } finally {
    await release();
    lake.close();
    await Deno.remove(dir, { recursive: true });
  }
});

function enc(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}
