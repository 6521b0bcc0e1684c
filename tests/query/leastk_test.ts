import assert from "node:assert/strict";
import { LeastK } from "../../lib/query/runtime/leastk.ts";

Deno.test("the k least of what is offered, the earlier of equal ones kept", () => {
  let x = 11;
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) % 50;
  for (const k of [0, 1, 3, 10, 200]) {
    const items = Array.from({ length: 120 }, (_, i) => ({ v: rand(), i }));
    const least = new LeastK<{ v: number; i: number }>((a, b) => a.v - b.v, k);
    for (const it of items) least.offer(it);
    // A stable sort's first k: equal values in the order they came.
    const want = items.slice().sort((a, b) => a.v - b.v).slice(0, k);
    const got = least.sorted().sort((a, b) => a.v - b.v || a.i - b.i);
    assert.deepEqual(got, want, `k ${k}`);
    assert.equal(least.size, Math.min(k, items.length));
    if (k > 0) assert.equal(least.greatest!.v, want[want.length - 1].v);
  }
});
