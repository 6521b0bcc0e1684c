// CORS (lake-api.md §1.6): curl-cors.yaml with the reference's origins (the
// default), `*`, preflights on every route and the Zed-Commit header.

import assert from "node:assert/strict";
import { call, createPool, post, withServer } from "./helpers.ts";

const ZED_ORIGINS = ["*.observableusercontent.com", "localhost"];
const ALLOWED = "http://test.observableusercontent.com";
const DENIED = "http://adversarialobservableusercontent.com";

/** The Access-Control-Allow-* headers, sorted as grep prints them in curl-cors.yaml. */
function allowHeaders(h: Headers): string[] {
  return [...h].filter(([k]) => k.startsWith("access-control-allow"))
    .map(([k, v]) => `${k}: ${v}`).sort();
}

const preflight = (origin: string, method = "POST", headers = "content-type, authorization") => ({
  Origin: origin,
  "Access-Control-Request-Method": method,
  "Access-Control-Request-Headers": headers,
});

Deno.test("CORS: curl-cors.yaml", () =>
  withServer(async (s) => {
    const ok = await call(s, "OPTIONS", "/query", { headers: preflight(ALLOWED) });
    assert.equal(ok.status, 204);
    assert.equal(ok.text, "");
    assert.deepEqual(allowHeaders(ok.headers), [
      "access-control-allow-credentials: true",
      "access-control-allow-headers: Content-Type, Authorization",
      "access-control-allow-methods: POST",
      `access-control-allow-origin: ${ALLOWED}`,
    ]);
    assert.equal(
      ok.headers.get("Vary"),
      "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    );
    const denied = await call(s, "OPTIONS", "/query", { headers: preflight(DENIED) });
    assert.equal(denied.status, 204);
    assert.deepEqual(allowHeaders(denied.headers), []);
    const body = '{"query":"from :pools | *"}';
    const post1 = await post(s, "/query", body, { Origin: ALLOWED, Accept: "application/json" });
    assert.equal(post1.text, "[]\n");
    assert.deepEqual(allowHeaders(post1.headers), [
      "access-control-allow-credentials: true",
      `access-control-allow-origin: ${ALLOWED}`,
    ]);
    assert.equal(post1.headers.get("Vary"), "Origin");
    const post2 = await post(s, "/query", body, { Origin: DENIED, Accept: "application/json" });
    assert.equal(post2.status, 200);
    assert.deepEqual(allowHeaders(post2.headers), []);
    // `localhost` is compared with the whole Origin value.
    const local = await call(s, "OPTIONS", "/query", { headers: preflight("localhost") });
    assert.equal(local.headers.get("Access-Control-Allow-Origin"), "localhost");
    const browserLocal = await call(s, "OPTIONS", "/query", {
      headers: preflight("http://localhost:3000"),
    });
    assert.equal(browserLocal.headers.get("Access-Control-Allow-Origin"), null);
  }, { corsOrigins: ZED_ORIGINS }));

Deno.test("CORS: methods and headers a preflight may ask for", () =>
  withServer(async (s) => {
    const lower = await call(s, "OPTIONS", "/query", { headers: preflight(ALLOWED, "post", "") });
    assert.equal(lower.headers.get("Access-Control-Allow-Methods"), "POST");
    assert.equal(lower.headers.get("Access-Control-Allow-Headers"), null);
    const trace = await call(s, "OPTIONS", "/query", { headers: preflight(ALLOWED, "TRACE") });
    assert.deepEqual(allowHeaders(trace.headers), []);
    const unknown = await call(s, "OPTIONS", "/query", {
      headers: preflight(ALLOWED, "POST", "x-custom"),
    });
    assert.deepEqual(allowHeaders(unknown.headers), []);
    // Beyond the reference: the headers loch's clients send may be asked for.
    const commit = await call(s, "OPTIONS", "/pool/x/branch/main", {
      headers: preflight(ALLOWED, "POST", "zed-commit, x-request-id, accept"),
    });
    assert.equal(commit.status, 204);
    assert.equal(
      commit.headers.get("Access-Control-Allow-Headers"),
      "Zed-Commit, X-Request-Id, Accept",
    );
  }, { corsOrigins: ZED_ORIGINS }));

Deno.test("CORS: the default is Zed v1.3's origins, so a page elsewhere is not allowed", () =>
  withServer(async (s) => {
    const origin = "http://localhost:3000";
    const r = await call(s, "OPTIONS", "/query", { headers: preflight(origin) });
    assert.equal(r.status, 204);
    assert.deepEqual(allowHeaders(r.headers), []);
    const ok = await call(s, "OPTIONS", "/query", { headers: preflight(ALLOWED) });
    assert.equal(ok.headers.get("Access-Control-Allow-Origin"), ALLOWED);
    const actual = await post(s, "/query", '{"query":"from :pools"}', { Origin: origin });
    assert.equal(actual.headers.get("Access-Control-Allow-Origin"), null);
  }));

Deno.test("CORS: preflights on every route; `*` allows any origin", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const origin = "http://localhost:3000";
    for (
      const [path, method] of [
        ["/pool", "POST"],
        ["/pool/test", "PUT"],
        ["/pool/test", "DELETE"],
        ["/pool/test/branch/main", "POST"],
        ["/pool/test/stats", "GET"],
        ["/events", "GET"],
        ["/auth/identity", "GET"],
      ]
    ) {
      const r = await call(s, "OPTIONS", path, { headers: preflight(origin, method, "") });
      assert.equal(r.status, 204, path);
      assert.equal(r.headers.get("Access-Control-Allow-Origin"), origin, path);
      assert.equal(r.headers.get("Access-Control-Allow-Methods"), method, path);
    }
    // No preflight for a path no route has.
    const none = await call(s, "OPTIONS", "/nope", { headers: preflight(origin) });
    assert.equal(none.status, 404);
    const actual = await call(s, "GET", "/pool/test/stats", { headers: { Origin: origin } });
    assert.equal(actual.headers.get("Access-Control-Allow-Origin"), origin);
    // Error responses carry them too.
    const err = await call(s, "GET", "/pool/nope/stats", { headers: { Origin: origin } });
    assert.equal(err.status, 404);
    assert.equal(err.headers.get("Access-Control-Allow-Origin"), origin);
    assert.equal(err.headers.get("Content-Type"), "application/json");
  }, { corsOrigins: ["*"] }));
