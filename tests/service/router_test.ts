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
