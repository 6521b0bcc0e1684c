// Writing an object gives its sort buffer's memory back at once; what the
// object's metadata keeps of the buffer (its first, last and seek keys) is
// copied out of it first.

import assert from "node:assert/strict";
import { encodeZng } from "../../lib/formats/zng/writer.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { tipObjects } from "../../lib/lake/objects.ts";
import { PoolKey } from "../../lib/lake/poolkey.ts";
import { SortBuffer } from "../../lib/lake/sortbuffer.ts";
import type { Value } from "../../lib/zed/value.ts";
import { keyedPool, lines, loadInto, withLake } from "./helpers.ts";

const zson = (v: Value) => formatZson(v.type, v.body);

Deno.test("an object's first, last and seek keys outlive its buffer (ip keys read from ZNG bodies)", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "a", "asc", { seekStride: 64 });
    const vals = [];
    for (let i = 0; i < 300; i++) {
      vals.push(parseZsonValue(`{a:10.0.${i % 7}.${(i * 37) % 250},n:${i}}`));
    }
    const out = await loadInto(lake, p, encodeZng(vals), [4096], true);
    assert.equal(out.error, null);
    const [o] = tipObjects(lake.catalog, p.id, "main");
    assert.equal(zson(o.first), "10.0.0.0");
    assert.equal(zson(o.last), "10.0.6.249");
    assert.equal(zson(o.span.lo!), "10.0.0.0");
    assert.equal(zson(o.span.hi!), "10.0.6.249");
    // The seek index's keys, through a range the index narrows.
    assert.deepEqual(await lines(lake, "from p | a >= 10.0.3.0 and a < 10.0.4.0 | count()"), [
      "{count:43(uint64)}",
    ]);
    assert.deepEqual(await lines(lake, "from p | sort -r a | head 1 | yield a"), ["10.0.6.249"]);
  });
});

Deno.test("a released sort buffer has given its memory back and holds no values", () => {
  const buf = new SortBuffer();
  const key = new PoolKey(["ts"], "asc");
  for (let i = 0; i < 100; i++) {
    const v = parseZsonValue(`{ts:${i},s:"${"x".repeat(i)}"}`);
    buf.add(v, key.keyOf(v));
  }
  const view = buf.tagged(99);
  assert.ok(view.length > 99);
  buf.release();
  assert.equal(buf.length, 0);
  assert.equal(buf.bodyBytes, 0);
  assert.ok((view.buffer as ArrayBuffer).detached, "the buffer's bytes are gone");
  assert.equal(view.length, 0);
});
