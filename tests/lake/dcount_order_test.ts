// dcount over a pool takes the values in pool order, as the reference's
// merged scan gives them: when its sketch turns dense can depend on the
// order of the values, so reading overlapping objects one after the other
// (as an order-free aggregate may) could change the estimate.

import assert from "node:assert/strict";
import "../../lib/query/aggregates/mod.ts";
import { lookupAggregate } from "../../lib/query/aggregates/registry.ts";
import { TypeInt64 } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import { agreed, keyedPool, loadText, withLake } from "./helpers.ts";

/** dcount of int64 values in the order given. */
function dcountOf(xs: number[]): string {
  const a = lookupAggregate("dcount")!.make();
  for (const x of xs) a.consume(new Value(TypeInt64, x));
  return String(a.result().body);
}

Deno.test("dcount over a pool: values in pool order, across overlapping objects", async () => {
  // Object A: x = 0..3374 at ts 0, 1000, ...; object B: x = 0..99 again, at
  // ts between A's rows 200 and 201. In pool order B's rows come after A's
  // 201st; A's rows and then B's would be another order.
  const d = 3375;
  const a = Array.from({ length: d }, (_, i) => i);
  const b = Array.from({ length: 100 }, (_, k) => k);
  const inPoolOrder = [...a.slice(0, 201), ...b, ...a.slice(201)];
  assert.equal(dcountOf(inPoolOrder), "3375");
  assert.notEqual(dcountOf([...a, ...b]), "3375"); // (3384: the order matters here)
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    await loadText(lake, p, a.map((i) => `{ts:${i * 1000},x:${i}}`).join("\n"));
    await loadText(lake, p, b.map((k) => `{ts:${200001 + k},x:${k}}`).join("\n"));
    assert.deepEqual(await agreed(lake, "from p | dcount(x)"), ["{dcount:3375(uint64)}"]);
  });
});
