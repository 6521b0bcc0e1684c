import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { errorJSON, errorResponse, goJSON } from "../../lib/service/errors.ts";
import { parseQuery } from "../../lib/query/parser/parse.ts";
import { call, createPool, get, post, query, withServer, zsonLines } from "./helpers.ts";

Deno.test("error kinds map to statuses and the reference's kind strings", async () => {
  const cases: [LochError, number, string][] = [
    [new LochError("invalid", "bad"), 400, "invalid operation"],
    [new LochError("not found", "x: pool not found"), 404, "item does not exist"],
    [new LochError("conflict", "x: pool already exists"), 409, "conflict with pending operation"],
    [new LochError("forbidden", "host not allowed: x"), 403, "forbidden"],
    [new LochError("too large", "request body too large"), 413, "invalid operation"],
    [new LochError("upstream", "Get x: no response"), 502, ""],
    [new LochError("unavailable", "too many queries"), 503, ""],
    [new LochError("internal", "boom"), 500, ""],
  ];
  for (const [e, status, kind] of cases) {
    const r = errorResponse(e);
    assert.equal(r.status, status);
    assert.equal(r.headers.get("Content-Type"), "application/json");
    assert.deepEqual(await r.json(), { type: "Error", kind, error: e.message });
  }
  assert.equal(errorResponse(new TypeError("oops")).status, 500);
  // What V8 throws for a value past its limits is the client's fault.
  const big = errorResponse(new RangeError("Invalid string length"));
  assert.equal(big.status, 400);
  assert.equal((await big.json()).error, "value too large: Invalid string length");
});

Deno.test("error bodies escape as Go's encoder and carry parse offsets", () => {
  assert.equal(goJSON({ a: "<&>\u2028" }), '{"a":"\\u003c\\u0026\\u003e\\u2028"}');
  let err: unknown;
  try {
    parseQuery("from test \\ count()");
  } catch (e) {
    err = e;
  }
  assert.equal(
    errorJSON(err),
    '{"type":"Error","kind":"invalid operation","error":"error parsing Zed at column 11:\\nfrom test \\\\ count()\\n      === ^ ===","info":{"parse_error_offset":10}}\n',
  );
});

// ---- over HTTP ----

Deno.test("HTTP errors: the Accept check comes before anything else", () =>
  withServer(async (s) => {
    const none = '{"type":"Error","kind":"invalid operation","error":' +
      '"could not find supported MIME type in Accept header"}\n';
    const cases: [string, string, string | undefined][] = [
      ["GET", "/pool/nope/stats", undefined],
      ["POST", "/pool", '{"name":"x"}'],
      ["POST", "/pool/nope/branch/main", "{x:1}"],
      ["GET", "/auth/identity", undefined],
    ];
    for (const [method, path, body] of cases) {
      const r = await call(s, method, path, { body, headers: { Accept: "application/xml" } });
      assert.equal(r.status, 400, path);
      assert.equal(r.headers.get("Content-Type"), "application/json");
      assert.equal(r.text, none, path);
    }
    assert.deepEqual(await zsonLines(s, "from :pools"), []);
  }));

Deno.test("HTTP errors: request bodies", () =>
  withServer(async (s) => {
    const cases: [string, Record<string, string>, string][] = [
      ['{"name":"x"}', { "Content-Type": "text/plain" }, "unsupported MIME type: text/plain"],
      ['{"name":"x"}', { "Content-Type": "application/" }, "mime: expected token after slash"],
      ['{"name":"x"}', { "Content-Type": "a b" }, "mime: expected slash after first token"],
      ['{"name":"x"}', { "Content-Type": "a/b/c" }, "mime: unexpected content after media subtype"],
      ['{"name":"x"}', { "Content-Type": "/json" }, "mime: no media type"],
      // The reference's ZSON reader takes a truncated value for the end of the input.
      ["{name:", {}, "parse error: mismatched braces while parsing record type"],
      [
        '{"name":}',
        { "Content-Type": "application/json" },
        "invalid character '}' looking for beginning of value",
      ],
    ];
    for (const [body, headers, error] of cases) {
      const r = await post(s, "/pool", body, headers);
      assert.equal(r.status, 400, body);
      assert.equal(
        r.text,
        JSON.stringify({ type: "Error", kind: "invalid operation", error }) + "\n",
        `${body} ${JSON.stringify(headers)}`,
      );
    }
    // Charset and other parameters are ignored.
    const ok = await post(s, "/pool", '{"name":"x"}', {
      "Content-Type": "application/json; charset=utf-8",
    });
    assert.equal(ok.status, 200);
  }));

Deno.test("HTTP errors: messages are escaped as Go's JSON encoder escapes them", () =>
  withServer(async (s) => {
    const r = await get(s, `/pool/${encodeURIComponent("<a&b>")}/stats`);
    assert.equal(r.status, 404);
    assert.equal(
      r.text,
      '{"type":"Error","kind":"item does not exist","error":"\\u003ca\\u0026b\\u003e: pool not found"}\n',
    );
  }));

Deno.test("HTTP errors: NDJSON responses on other routes are one JSON line", () =>
  withServer(async (s) => {
    // The reference fails these mid-response with a 200 error body.
    await createPool(s, "test");
    const r = await get(s, "/pool/test/stats", { Accept: "application/x-ndjson" });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("Content-Type"), "application/x-ndjson");
    assert.equal(r.text, '{"size":0,"span":null}\n');
    assert.equal(
      (await query(s, "from :pools | yield name", "application/x-ndjson")).text,
      '"test"\n',
    );
  }));

Deno.test("client faults are 4xx: deep nesting, a missing pool, unknown meta-queries, corrupt gzip", () =>
  withServer(async (s) => {
    await createPool(s, "P");
    const cases: [string, number, string][] = [
      ["yield " + "(".repeat(100000) + "1" + ")".repeat(100000), 400, "query is nested too deeply"],
      ["yield " + "[".repeat(100000) + "]".repeat(100000), 400, "query is nested too deeply"],
      ["yield " + "!".repeat(100000) + "true", 400, "query is nested too deeply"],
      ["yield " + "a.".repeat(100000) + "b", 400, "query is nested too deeply"],
      ["yield 1", 400, "pool name missing"],
      ["from :dns", 400, 'unknown lake metadata type: "dns"'],
      ["from P@main:nosuch", 400, 'unknown commit metadata type: "nosuch"'],
      ["from P:nosuch", 400, 'unknown pool metadata type: "nosuch"'],
      ["from nosuch*", 404, "nosuch*: pool matching glob not found"],
      ["from /nosuch/", 404, "nosuch: pool matching regexp not found"],
    ];
    for (const [q, status, message] of cases) {
      const r = await post(s, "/query", JSON.stringify({ query: q }), {
        Accept: "application/json",
      });
      assert.equal(r.status, status, q.slice(0, 40));
      assert.equal(JSON.parse(r.text).error, message);
    }
    const gz = new Uint8Array(
      await new Response(
        new Blob(['{"a":1}\n'.repeat(1000)]).stream().pipeThrough(new CompressionStream("gzip")),
      ).arrayBuffer(),
    );
    for (
      const cut of [
        gz.subarray(0, gz.length >> 1),
        gz.subarray(0, 12),
        gz.subarray(0, gz.length - 4),
      ]
    ) {
      const r = await post(s, "/pool/P/branch/main", cut, { Accept: "application/json" });
      assert.equal(r.status, 400, `gzip cut to ${cut.length} of ${gz.length}`);
      assert.match(JSON.parse(r.text).error, /gzip/);
    }
    assert.deepEqual(await zsonLines(s, "from P | count()"), [], "nothing was loaded");
    // The server is fine afterwards.
    assert.equal((await get(s, "/status")).text, "ok");
  }));

Deno.test("a query that builds a value past the limits fails alone; the server stays up", () =>
  withServer(async (s) => {
    await createPool(s, "p");
    await post(s, "/pool/p/branch/main", "{a:1}");
    // An array of 2^27 elements would abort the whole process in V8.
    const doubling = "from p | yield [1] | " + "yield [...this, ...this] | ".repeat(27) +
      "yield len(this)";
    const failing = await post(s, "/query?ctrl=true", JSON.stringify({ query: doubling }), {
      Accept: "application/x-zjson",
    });
    assert.equal(failing.status, 200);
    assert.match(failing.text, /"QueryError".*value too large: more than 16777216 elements/);
    assert.equal((await get(s, "/status")).text, "ok");
    assert.deepEqual(await zsonLines(s, "from p | count()"), ["{count:1(uint64)}"]);
  }));
