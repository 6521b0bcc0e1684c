import assert from "node:assert/strict";
import { cleanPath, Router } from "../../lib/service/router.ts";

const router = new Router<string>()
  .add("POST", "/pool", "create")
  .add("PUT", "/pool/:pool", "rename")
  .add("GET", "/pool/:pool/branch/:branch", "tip");

const at = (method: string, path: string) => router.match(method, new URL(`http://h${path}`));

Deno.test("routes match one segment per parameter, decoded once", () => {
  assert.deepEqual(at("GET", "/pool/a%20b/branch/main"), {
    kind: "route",
    target: "tip",
    params: { pool: "a b", branch: "main" },
  });
  assert.deepEqual(at("PUT", "/pool/x%2By"), {
    kind: "route",
    target: "rename",
    params: { pool: "x+y" },
  });
  assert.deepEqual(at("GET", "/pool/a/branch/b/c"), { kind: "not found" });
});

Deno.test("wrong methods, trailing slashes and unclean paths", () => {
  assert.deepEqual(at("GET", "/pool"), { kind: "method not allowed", allowed: ["POST"] });
  assert.deepEqual(at("GET", "/pool/"), { kind: "not found" });
  assert.deepEqual(at("GET", "//pool/x/./branch/main?a=1"), {
    kind: "redirect",
    location: "/pool/x/branch/main?a=1",
  });
  assert.equal(cleanPath("/a/../b/"), "/b/");
  assert.equal(cleanPath("/"), "/");
  assert.throws(() => at("PUT", "/pool/%zz"), /bad escape/);
});

Deno.test("literal paths are found directly, unless a pattern route also matches them", () => {
  const r = new Router<string>()
    .add("GET", "/pool/:id", "pool")
    .add("GET", "/pool/stats", "stats")
    .add("POST", "/query", "query")
    .add("OPTIONS", "/query", "options");
  const at = (method: string, path: string) => r.match(method, new URL(`http://h${path}`));
  assert.deepEqual(at("POST", "/query"), { kind: "route", target: "query", params: {} });
  assert.deepEqual(at("OPTIONS", "/query"), { kind: "route", target: "options", params: {} });
  assert.deepEqual(at("GET", "/query"), {
    kind: "method not allowed",
    allowed: ["POST", "OPTIONS"],
  });
  // The pattern route comes first, and matches the literal path too.
  assert.deepEqual(at("GET", "/pool/stats"), {
    kind: "route",
    target: "pool",
    params: { id: "stats" },
  });
});
