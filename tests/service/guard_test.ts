// What a browser page must not make the server do (lib/service/guard.ts):
// read it through a rebound DNS name, or change the lake with "simple"
// cross-origin requests (form or text bodies need no preflight).

import assert from "node:assert/strict";
import { call, createPool, post, rawHTTP, rawRequest, withServer } from "./helpers.ts";

const statusOf = (raw: string) => Number(raw.split(" ")[1]);

Deno.test("guard: a server on loopback answers only loopback Host names", () =>
  withServer(async (s) => {
    for (
      const host of ["evil.example", "evil.example:80", "10.0.0.1", `lake.rebound.test:${s.port}`]
    ) {
      for (const [method, path] of [["GET", "/status"], ["GET", "/pool"], ["GET", "/events"]]) {
        const raw = await rawRequest(s, rawHTTP(method, path, [], undefined, host));
        assert.equal(statusOf(raw), 403, `${host} ${path}`);
        // As the request's URL has it (http's default port dropped).
        const shown = host.replace(/:80$/, "");
        assert.ok(raw.endsWith(`"error":"host not allowed: ${shown}"}\n`), raw);
        assert.ok(!raw.includes("\r\n\r\nok"), "no answer leaks");
      }
    }
    for (
      const host of [
        "localhost",
        `localhost:${s.port}`,
        `127.0.0.1:${s.port}`,
        "[::1]:1",
        "app.localhost",
      ]
    ) {
      const raw = await rawRequest(s, rawHTTP("GET", "/status", [], undefined, host));
      assert.equal(statusOf(raw), 200, host);
    }
  }));

Deno.test("guard: -allow-host adds names", () =>
  withServer(async (s) => {
    const ok = await rawRequest(s, rawHTTP("GET", "/status", [], undefined, "Lake.Internal:9867"));
    assert.equal(statusOf(ok), 200);
    const other = await rawRequest(s, rawHTTP("GET", "/status", [], undefined, "other.internal"));
    assert.equal(statusOf(other), 403);
  }, { allowHosts: ["lake.internal"] }));

Deno.test("guard: cross-origin requests that change the lake are refused, whatever their body", () =>
  withServer(async (s) => {
    await createPool(s, "p");
    const evil = { Origin: "http://evil.example" };
    const attempts: [string, string, string, Record<string, string>][] = [
      ["POST", "/pool", '{"name":"made"}', { "Content-Type": "application/x-www-form-urlencoded" }],
      ["POST", "/pool/p/branch/main", '{"x":1}', { "Content-Type": "text/plain" }],
      ["POST", "/pool/p/branch/main/delete", '{"where":"true"}', { "Content-Type": "text/plain" }],
      ["POST", "/pool/p", '{"name":"b"}', { "Content-Type": "multipart/form-data; boundary=x" }],
      ["PUT", "/pool/p", '{"name":"q"}', {}],
      ["DELETE", "/pool/p", "", {}],
    ];
    for (const [method, path, body, headers] of attempts) {
      const r = await call(s, method, path, { body, headers: { ...headers, ...evil } });
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.deepEqual(JSON.parse(r.text), {
        type: "Error",
        kind: "forbidden",
        error: "cross-origin request not allowed from http://evil.example",
      });
    }
    const pools = await post(s, "/query", '{"query":"from :pools | yield name"}', {
      Accept: "application/json",
    });
    assert.equal(pools.text, '["p"]\n', "nothing changed");
    const count = await post(s, "/query", '{"query":"from p | count()"}', {
      Accept: "application/json",
    });
    assert.equal(count.text, "[]\n", "nothing loaded");
    // A query changes nothing (and without CORS the page cannot read it), as in curl-cors.yaml.
    const q = await post(s, "/query", '{"query":"from :pools | count()"}', evil);
    assert.equal(q.status, 200);
    assert.equal(q.headers.get("Access-Control-Allow-Origin"), null);
  }));

Deno.test("guard: the server's own origin, allowed origins and clients without an Origin may write", () =>
  withServer(async (s) => {
    const own = await post(s, "/pool", '{"name":"a"}', { Origin: s.url });
    assert.equal(own.status, 200, own.text);
    const zed = await post(s, "/pool", '{"name":"b"}', {
      Origin: "http://test.observableusercontent.com",
    });
    assert.equal(zed.status, 200, zed.text);
    // curl -d sends a form content type and no Origin: taken as ZSON, as by Zed.
    const curl = await post(s, "/pool", '{name:"c"}', {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    assert.equal(curl.status, 200, curl.text);
  }));
