import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { errorJSON, errorResponse, goJSON } from "../../lib/service/errors.ts";
import { parseQuery } from "../../lib/query/parser/parse.ts";

Deno.test("error kinds map to statuses and the reference's kind strings", async () => {
  const cases: [LochError, number, string][] = [
    [new LochError("invalid", "bad"), 400, "invalid operation"],
    [new LochError("not found", "x: pool not found"), 404, "item does not exist"],
    [new LochError("conflict", "x: pool already exists"), 409, "conflict with pending operation"],
    [new LochError("internal", "boom"), 500, ""],
  ];
  for (const [e, status, kind] of cases) {
    const r = errorResponse(e);
    assert.equal(r.status, status);
    assert.equal(r.headers.get("Content-Type"), "application/json");
    assert.deepEqual(await r.json(), { type: "Error", kind, error: e.message });
  }
  assert.equal(errorResponse(new TypeError("oops")).status, 500);
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
