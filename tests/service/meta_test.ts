// The auxiliary routes: GET /version, /status and / answer any method, in
// one format, with CORS headers but no request id (lake-api.md §1.2).

import assert from "node:assert/strict";
import { call, get, VERSION, withServer } from "./helpers.ts";

Deno.test("/version: JSON whatever the Accept header or method", () =>
  withServer(async (s) => {
    for (
      const [method, accept] of [["GET", "*/*"], ["GET", "application/xml"], ["POST", "text/csv"]]
    ) {
      const r = await call(s, method, "/version", { headers: { Accept: accept } });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("Content-Type"), "application/json");
      assert.equal(r.text, `{"version":"${VERSION}"}\n`);
      assert.equal(r.headers.get("X-Request-Id"), null);
      assert.equal(r.headers.get("Vary"), "Origin");
    }
  }));

Deno.test("/status and /", () =>
  withServer(async (s) => {
    const status = await get(s, "/status");
    assert.equal(status.status, 200);
    assert.equal(status.headers.get("Content-Type"), "text/plain; charset=utf-8");
    assert.equal(status.text, "ok");
    assert.equal((await call(s, "DELETE", "/status")).text, "ok");
    const root = await get(s, "/", { Accept: "application/x-zng" });
    assert.equal(root.status, 200);
    assert.equal(root.headers.get("Content-Type"), "text/html; charset=utf-8");
    // The web console (tests/service/console/).
    assert.match(root.text, /<title>loch console<\/title>/);
  }));

Deno.test("the console's files: every one the page names is served, with a strict CSP", () =>
  withServer(async (s) => {
    const root = await get(s, "/");
    assert.match(root.headers.get("Content-Security-Policy") ?? "", /default-src 'self'/);
    assert.equal(root.headers.get("X-Frame-Options"), "DENY");
    const names = [...root.text.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)].map((m) => m[1]);
    const app = await get(s, "/console/app.js");
    // The modules app.js imports, and theirs.
    for (const m of app.text.matchAll(/from "\.\/([a-z]+\.js)"/g)) names.push(`/console/${m[1]}`);
    assert.ok(names.length >= 6, String(names));
    for (const name of names) {
      const r = await get(s, name);
      assert.equal(r.status, 200, name);
      assert.match(r.headers.get("Content-Type") ?? "", /^text\/(javascript|css); charset=utf-8$/);
      assert.equal(r.headers.get("X-Content-Type-Options"), "nosniff");
      assert.ok(r.text.length > 100, name);
    }
    assert.equal((await get(s, "/console/nope.js")).status, 404);
    assert.equal((await get(s, "/console/")).status, 404);
  }));

Deno.test("-rootcontentfile: its contents at / in place of the console", async () => {
  const page = new TextEncoder().encode("<html><body>ours</body></html>\n");
  await withServer(async (s) => {
    const root = await get(s, "/");
    assert.equal(root.text, "<html><body>ours</body></html>\n");
    assert.equal(root.headers.get("Content-Type"), "text/html; charset=utf-8");
    // The console's other files are still there.
    assert.equal((await get(s, "/console/app.js")).status, 200);
  }, { rootContent: page });
  await withServer(async (s) => {
    const root = await get(s, "/");
    assert.equal(root.text, "plain words");
    assert.equal(root.headers.get("Content-Type"), "text/plain; charset=utf-8");
  }, { rootContent: new TextEncoder().encode("plain words") });
});

Deno.test("auxiliary routes carry CORS headers and answer preflights", () =>
  withServer(async (s) => {
    const origin = "http://test.observableusercontent.com";
    const r = await get(s, "/version", { Origin: origin });
    assert.equal(r.headers.get("Access-Control-Allow-Origin"), origin);
    assert.equal(r.headers.get("Access-Control-Allow-Credentials"), "true");
    assert.equal(r.headers.get("Vary"), "Origin");
    const pre = await call(s, "OPTIONS", "/status", {
      headers: { Origin: origin, "Access-Control-Request-Method": "GET" },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.text, "");
    assert.equal(pre.headers.get("Access-Control-Allow-Methods"), "GET");
    assert.equal(pre.headers.get("Access-Control-Allow-Origin"), origin);
    const other = await get(s, "/status", { Origin: "http://elsewhere.example" });
    assert.equal(other.headers.get("Access-Control-Allow-Origin"), null);
  }, { corsOrigins: ["*.observableusercontent.com", "localhost"] }));
