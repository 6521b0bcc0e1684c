// Named types are bound per request: a name one client's data or query
// defines resolves in that client's query, never in another's.

import assert from "node:assert/strict";
import { createPool, load, withServer, zsonLines } from "./helpers.ts";

Deno.test("type scope: a name bound by one query does not resolve in the next", () =>
  withServer(async (s) => {
    await createPool(s, "p", null);
    await load(s, "p", "{x:1}");
    assert.deepEqual(await zsonLines(s, "from p | yield cast(x, <port=uint16>)"), [
      "1(port=uint16)",
    ]);
    assert.deepEqual(await zsonLines(s, "from p | yield <port>"), ['error("missing")']);
  }));

Deno.test("type scope: a name from the data read resolves in that query only", () =>
  withServer(async (s) => {
    await createPool(s, "named", null);
    await createPool(s, "plain", null);
    await load(s, "named", "{x:1(=port)}");
    await load(s, "plain", "{x:1}");
    // The load defined the name in its own request; the query reading the data defines it again.
    assert.deepEqual(await zsonLines(s, "from plain | yield <port>"), ['error("missing")']);
    assert.deepEqual(await zsonLines(s, "from named | yield <port>"), ["<port=int64>"]);
    assert.deepEqual(await zsonLines(s, "from plain | yield <port>"), ['error("missing")']);
  }));
