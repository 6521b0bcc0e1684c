// Routing over HTTP (lake-api.md §1.3–1.4): trailing slashes
// (TestNoEndSlashSupport), unknown paths, wrong methods, unclean paths,
// path parameters decoded once, request ids (TestRequestID).

import assert from "node:assert/strict";
import {
  call,
  createPool,
  errorBody,
  get,
  post,
  query,
  rawHTTP,
  rawRequest,
  withServer,
} from "./helpers.ts";

Deno.test("routing: TestNoEndSlashSupport and unknown paths get Go's 404", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    for (
      const path of ["/pool/", "/nope", "/pool/test/branch/main/", "/pool/test/stats/x", "/query/"]
    ) {
      const r = await get(s, path);
      assert.equal(r.status, 404, path);
      assert.equal(r.text, "404 page not found\n");
      assert.equal(r.headers.get("Content-Type"), "text/plain; charset=utf-8");
      assert.equal(r.headers.get("X-Content-Type-Options"), "nosniff");
      // Middleware runs on matched routes only.
      assert.equal(r.headers.get("X-Request-Id"), null);
      assert.equal(r.headers.get("Vary"), null);
    }
  }));

Deno.test("routing: a known path with the wrong method is 405 with no body", () =>
  withServer(async (s) => {
    for (
      const [method, path] of [
        ["GET", "/pool"],
        ["GET", "/query"],
        ["OPTIONS", "/pool"],
        ["PATCH", "/pool/test"],
        ["POST", "/pool/test/stats"],
        ["PUT", "/pool/test/branch/main"],
        ["POST", "/events"],
      ]
    ) {
      const r = await call(s, method, path);
      assert.equal(r.status, 405, `${method} ${path}`);
      assert.equal(r.text, "");
      assert.equal(r.headers.get("X-Request-Id"), null);
    }
  }));

Deno.test("routing: unclean paths are redirected to their clean form", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    for (
      const [path, location] of [
        ["//pool/test/branch/main?x=1", "/pool/test/branch/main?x=1"],
        ["/pool//test/stats", "/pool/test/stats"],
        ["/query//", "/query/"],
      ]
    ) {
      // Raw, since fetch would clean the path itself.
      const r = await rawRequest(s, rawHTTP("GET", path, []));
      assert.match(r, /^HTTP\/1\.1 301 Moved Permanently\r\n/, path);
      assert.match(r, new RegExp(`\r\nlocation: ${location.replace("?", "\\?")}\r\n`, "i"), path);
      assert.ok(r.endsWith("\r\n\r\n"), path);
    }
    // `.` and `..` too, as Go's server redirects them (URL parsing would resolve them).
    for (
      const [path, location] of [
        ["/pool/x/../test/./stats", "/pool/test/stats"],
        ["/pool/a/../version", "/pool/version"],
        ["/pool/test/stats/..?y=2", "/pool/test?y=2"],
      ]
    ) {
      const r = await rawRequest(s, rawHTTP("GET", path, []));
      assert.match(r, /^HTTP\/1\.1 301 Moved Permanently\r\n/, path);
      assert.match(r, new RegExp(`\r\nlocation: ${location.replace("?", "\\?")}\r\n`, "i"), path);
    }
  }));

Deno.test("routing: path parameters are decoded once", () =>
  withServer(async (s) => {
    for (const name of ["a b", "a+b", "a/b", "100%", "zoë", "a.b"]) {
      await createPool(s, name);
      await post(s, `/pool/${encodeURIComponent(name)}/branch/main`, "{x:1}");
    }
    const names = (await query(s, "from :pools | sort name | yield name", "application/json")).text;
    assert.equal(names, '["100%","a b","a+b","a.b","a/b","zoë"]\n');
    for (const name of ["a b", "a+b", "a/b", "100%", "zoë"]) {
      const r = await get(s, `/pool/${encodeURIComponent(name)}/stats`, {
        Accept: "application/json",
      });
      assert.equal(r.status, 200, name);
    }
    // A literal + is not a space (the reference decodes twice).
    const plus = await get(s, "/pool/a+b/branch/main", { Accept: "application/json" });
    assert.equal(plus.status, 200);
    const bad = await get(s, "/pool/a%zzb/branch/main");
    assert.equal(bad.status, 400);
    assert.equal(
      bad.text,
      errorBody("invalid operation", 'invalid path param "pool": bad escape in a%zzb'),
    );
    const missing = await get(s, `/pool/${encodeURIComponent("x y")}/stats`);
    assert.equal(missing.text, errorBody("item does not exist", "x y: pool not found"));
  }));

Deno.test("routing: TestRequestID", () =>
  withServer(async (s) => {
    const body = '{"query":"from :pools"}';
    const a = await post(s, "/query", body);
    const b = await post(s, "/query", body);
    const idA = a.headers.get("X-Request-Id");
    const idB = b.headers.get("X-Request-Id");
    assert.match(idA ?? "", /^[0-9A-Za-z]{27}$/);
    assert.match(idB ?? "", /^[0-9A-Za-z]{27}$/);
    assert.notEqual(idA, idB);
    const given = await post(s, "/query", body, { "X-Request-ID": "random-request-ID" });
    assert.equal(given.headers.get("X-Request-Id"), "random-request-ID");
    // Errors carry it too.
    const err = await get(s, "/pool/nope/stats", { "X-Request-ID": "r2" });
    assert.equal(err.status, 404);
    assert.equal(err.headers.get("X-Request-Id"), "r2");
  }));
