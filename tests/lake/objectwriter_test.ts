// What an object's metadata keeps of its sort buffer, its first, last,
// span and seek keys, when the keys are read from the values' bodies (not
// strings: IPs from a ZNG load).

import assert from "node:assert/strict";
import { encodeZng } from "../../lib/formats/zng/writer.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { tipObjects } from "../../lib/lake/objects.ts";
import type { Value } from "../../lib/zed/value.ts";
import { keyedPool, lines, loadInto, withLake } from "./helpers.ts";

const zson = (v: Value) => formatZson(v.type, v.body);

Deno.test("an object's first, last, span and seek keys read from ZNG bodies (ip keys)", async () => {
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
