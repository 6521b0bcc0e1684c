import assert from "node:assert/strict";
import { runSort } from "../../lib/lake/runsort.ts";

/** Inputs of each shape the sort meets: in order, reversed, random, nearly in order, few distinct. */
function shapes(n: number, rand: () => number): Map<string, number[]> {
  const sorted = Array.from({ length: n }, (_, i) => i);
  const near = sorted.map((i) => i + Math.floor(rand() * 40));
  const swapped = sorted.slice();
  for (let k = 0; k < n / 10; k++) {
    const a = Math.floor(rand() * n), b = Math.min(n - 1, a + Math.floor(rand() * 8));
    [swapped[a], swapped[b]] = [swapped[b], swapped[a]];
  }
  return new Map([
    ["sorted", sorted],
    ["reversed", sorted.slice().reverse()],
    ["random", sorted.map(() => Math.floor(rand() * n))],
    ["near", near],
    ["swapped", swapped],
    ["few", sorted.map(() => Math.floor(rand() * 4))],
    ["blocks", sorted.map((i) => (i % 100) + (i > n / 2 ? 0 : 50))],
  ]);
}

Deno.test("runSort: sorts indexes stably by the comparator, whatever the input's shape", () => {
  let x = 3;
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const n of [0, 1, 2, 31, 32, 33, 100, 1000, 5000]) {
    for (const [shape, keys] of shapes(n, rand)) {
      const idx = Uint32Array.from(keys.keys());
      let compares = 0;
      runSort(idx, (i, j) => {
        compares++;
        return keys[i] - keys[j];
      });
      // Array.prototype.sort is stable: equal keys keep their indexes' order.
      const want = [...keys.keys()].sort((i, j) => keys[i] - keys[j]);
      assert.deepEqual([...idx], want, `${shape} of ${n}`);
      if (shape === "sorted" || shape === "reversed") {
        assert.ok(compares <= Math.max(0, n - 1), `${shape} of ${n}: ${compares} comparisons`);
      }
    }
  }
});

Deno.test("runSort: input nearly in order takes few comparisons per element", () => {
  let x = 5;
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const n = 50000;
  const keys = Array.from({ length: n }, (_, i) => i + rand() * 20);
  const idx = Uint32Array.from(keys.keys());
  let compares = 0;
  runSort(idx, (i, j) => {
    compares++;
    return keys[i] - keys[j];
  });
  for (let k = 1; k < n; k++) assert.ok(keys[idx[k - 1]] <= keys[idx[k]]);
  // A merge of every run would take ~log2(n / 32) ≈ 11 comparisons per element.
  assert.ok(compares < 8 * n, `${compares} comparisons`);
});
