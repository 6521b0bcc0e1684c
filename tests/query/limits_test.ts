// Limits on the values one query may build (runtime/limits.ts): past them
// V8 would abort the whole process, so the query fails instead.

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import {
  checkAggregate,
  checkElements,
  MAX_AGGREGATE_BYTES,
  MAX_ELEMENTS,
} from "../../lib/query/runtime/limits.ts";
import { fails } from "./source_helpers.ts";

Deno.test("limits: elements and aggregate bytes have ceilings, and the error is the client's", () => {
  checkElements(MAX_ELEMENTS);
  checkAggregate(MAX_ELEMENTS, MAX_AGGREGATE_BYTES);
  for (
    const f of [
      () => checkElements(MAX_ELEMENTS + 1),
      () => checkAggregate(MAX_ELEMENTS + 1, 0),
      () => checkAggregate(1, MAX_AGGREGATE_BYTES + 1),
    ]
  ) {
    assert.throws(f, (e: unknown) => {
      assert.ok(e instanceof LochError && e.kind === "invalid");
      assert.match(e.message, /^value too large: /);
      return true;
    });
  }
});

Deno.test("limits: an array spread into itself until it passes the ceiling fails the query", async () => {
  // 2^24 elements are allowed; the 25th doubling passes the ceiling.
  const doubling = "yield [1] | " + "yield [...this, ...this] | ".repeat(25) + "yield len(this)";
  await fails(
    doubling,
    `value too large: more than ${MAX_ELEMENTS} elements in one value (a query's values are limited to protect the server)`,
    { input: "{}", kind: "invalid" },
  );
});
