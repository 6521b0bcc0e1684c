// The merge of a group's rows from several objects by the pool key
// (lib/query/vector/keymerge.ts): runs in pool order, from key columns of
// strings, of ints, and from values where the columns differ in type; null
// where keys tie across objects or a row has none.

import assert from "node:assert/strict";
import { mergeRows, type RowKeys, RunKeys } from "../../lib/query/vector/keymerge.ts";
import { MISSING } from "../../lib/query/runtime/values.ts";
import { PoolKey } from "../../lib/lake/poolkey.ts";
import { TypeFloat64, TypeInt64 } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import { ABSENT, NumberVector, VALUE, type Vector } from "../../lib/zed/vector.ts";
import { stateOf, stringVector } from "./vector_helpers.ts";

/** A key: a string, a number, null (a null key) or undefined (no key). */
type Key = string | number | null | undefined;

function strings(keys: Key[]): Vector {
  return stringVector(keys);
}

function numbers(keys: Key[], type = TypeInt64): Vector {
  const f64 = Float64Array.from(keys, (k) => typeof k === "number" ? k : 0);
  return new NumberVector(type, stateOf(keys), f64, null);
}

/** An object's keys as the merge reads them (one column). */
function rowKeys(v: Vector): RowKeys {
  return {
    vectors: [v],
    col: null,
    value: (i) =>
      v.state[i] === ABSENT ? MISSING : new Value(v.type, v.state[i] === VALUE ? v.body(i) : null),
  };
}

/**
 * Merges objects that each hold one group of all their rows; returns the
 * merged keys (object:row), or null where the merge gave up.
 */
function merge(objects: Vector[], order: "asc" | "desc"): string[] | null {
  const run = objects.map((v) => ({
    p: { rows: Int32Array.from(v.state, (_, i) => i), start: Int32Array.of(0, v.length) },
  }));
  const parts = objects.map((_, k) => ({ k, g: 0 }));
  const keys = new RunKeys(objects.map(rowKeys), new PoolKey(["ts"], order));
  const runs = mergeRows(run, parts, keys);
  if (runs === null) return null;
  const out: string[] = [];
  for (let t = 0; t < runs.length; t += 3) {
    for (let r = runs[t + 1]; r < runs[t + 2]; r++) out.push(`${runs[t]}:${r}`);
  }
  return out;
}

/**
 * The expected order: every row sorted by the pool key (nulls last; rows
 * without a key among them), or null where keys tie across objects.
 */
function expected(objects: Key[][], order: "asc" | "desc"): string[] | null {
  const all: { key: Key; id: string }[] = [];
  objects.forEach((keys, k) =>
    keys.forEach((key, r) => all.push({ key: key === undefined ? null : key, id: `${k}:${r}` }))
  );
  const dir = order === "desc" ? -1 : 1;
  const cmp = (a: Key, b: Key) => {
    if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
    return (a! < b! ? -1 : a! > b! ? 1 : 0) * dir;
  };
  all.sort((x, y) => cmp(x.key, y.key));
  for (let i = 1; i < all.length; i++) {
    if (cmp(all[i - 1].key, all[i].key) === 0 && all[i - 1].id[0] !== all[i].id[0]) return null;
  }
  return all.map((x) => x.id);
}

Deno.test("keymerge: objects one after another come as one run each, in key order", () => {
  const a = ["c", "d", "e"], b = ["a", "b"];
  assert.deepEqual(merge([strings(a), strings(b)], "asc"), ["1:0", "1:1", "0:0", "0:1", "0:2"]);
  assert.deepEqual(
    merge([strings(["e", "d", "c"]), strings(["b", "a"])], "desc"),
    ["0:0", "0:1", "0:2", "1:0", "1:1"],
  );
});

Deno.test("keymerge: interleaved rows merge in runs, nulls last", () => {
  const a: Key[] = ["a", "b", "e", "f", null], b: Key[] = ["c", "d", "g"];
  assert.deepEqual(merge([strings(a), strings(b)], "asc"), expected([a, b], "asc"));
  assert.deepEqual(
    merge([strings(a), strings(b)], "asc"),
    ["0:0", "0:1", "1:0", "1:1", "0:2", "0:3", "1:2", "0:4"],
  );
});

Deno.test("keymerge: a key tied across objects, or a row without one, gives up", () => {
  assert.equal(merge([strings(["a", "b"]), strings(["b", "c"])], "asc"), null);
  assert.equal(merge([strings(["a", undefined]), strings(["b"])], "asc"), null);
  // Where it comes after every other object's rows, its place is clear.
  assert.deepEqual(
    merge([strings(["a", "b"]), strings(["c", undefined])], "asc"),
    ["0:0", "0:1", "1:0", "1:1"],
  );
  assert.equal(merge([numbers([1, 5]), numbers([5, 9])], "asc"), null);
  // Two null keys tie too.
  assert.equal(merge([strings(["a", null]), strings(["b", null])], "asc"), null);
  // Equal keys within one object are its own order.
  assert.deepEqual(merge([strings(["a", "a"]), strings(["b"])], "asc"), ["0:0", "0:1", "1:0"]);
});

Deno.test("keymerge: keys of different types compare as values", () => {
  // Ints and floats compare by value: the same order as ints alone.
  const a: Key[] = [1, 4, 10], b: Key[] = [2, 3, 11];
  const want = expected([a, b], "asc");
  assert.deepEqual(merge([numbers(a), numbers(b)], "asc"), want);
  assert.deepEqual(merge([numbers(a), numbers(b, TypeFloat64)], "asc"), want);
});

Deno.test("keymerge: random keys merge as a sort by the pool key does", () => {
  let seed = 12345;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  let merged = 0, gaveUp = 0;
  for (let trial = 0; trial < 400; trial++) {
    let missing = false;
    const nObjects = 1 + rand(5);
    const useStrings = trial % 2 === 0;
    const order = trial % 3 === 0 ? "desc" : "asc";
    const objects: Key[][] = [];
    for (let k = 0; k < nObjects; k++) {
      const n = 1 + rand(12);
      // Spread or clustered: some objects overlap, some follow each other.
      const base = rand(4) * 40;
      const keys: Key[] = [];
      for (let r = 0; r < n; r++) {
        const x = base + rand(rand(2) === 0 ? 200 : 30);
        keys.push(useStrings ? `k${String(x).padStart(4, "0")}é` : x);
      }
      const dir = order === "desc" ? -1 : 1;
      keys.sort((p, q) => (p! < q! ? -1 : p! > q! ? 1 : 0) * dir);
      // Rows with a null key, or none, come last in an object, as in pool order.
      const tail = rand(12);
      if (tail === 0) keys.push(null);
      const gone = tail === 1;
      if (gone) keys.push(undefined);
      missing ||= gone;
      objects.push(keys);
    }
    const vectors = objects.map((keys) => useStrings ? strings(keys) : numbers(keys));
    const got = merge(vectors, order);
    const want = expected(objects, order);
    // A row without a key gives up the merge where its place matters, else it comes last.
    if (missing && got === null) continue;
    assert.deepEqual(got, want, JSON.stringify(objects));
    if (got === null) gaveUp++;
    else merged++;
  }
  // Both outcomes were exercised.
  assert.ok(merged > 100 && gaveUp > 10, `${merged} merged, ${gaveUp} gave up`);
});

Deno.test("keymerge: a run's groups merge right whatever order their objects come in", () => {
  // Three objects; group 0's rows come object 0, 1, 2 in key order, group
  // 1's 2, 0, 1, group 2's interleave. Keys share long prefixes (as times
  // do) and differ in a word or in the bytes after the last whole word.
  const p = "2018-03-24T17:15:";
  const objects = [
    [`${p}01.1`, `${p}07.5`, `${p}20.000001`, `${p}20.0001`],
    [`${p}02.2`, `${p}08.5`, `${p}20.000002`, `${p}30`],
    [`${p}00`, `${p}03.3`, `${p}06.5`, `${p}20.000003`],
  ];
  // Per object, the group of each row (rows of a group in row order).
  const groupOf = [[1, 0, 1, 2], [1, 0, 2, 2], [1, 0, 1, 2]];
  for (const order of ["asc", "desc"] as const) {
    const keys = objects.map((o) => order === "asc" ? o : [...o].reverse());
    const groups = order === "asc" ? groupOf : groupOf.map((g) => [...g].reverse());
    const run = groups.map((gs) => {
      const rows: number[] = [];
      const start = [0];
      for (let g = 0; g < 3; g++) {
        gs.forEach((x, r) => x === g && rows.push(r));
        start.push(rows.length);
      }
      return { p: { rows: Int32Array.from(rows), start: Int32Array.from(start) } };
    });
    const runKeys = new RunKeys(keys.map((k) => rowKeys(strings(k))), new PoolKey(["ts"], order));
    for (const g of [0, 1, 2, 0, 1]) {
      const runs = mergeRows(run, [0, 1, 2].map((k) => ({ k, g })), runKeys);
      assert.ok(runs !== null);
      const got: string[] = [];
      for (let t = 0; t < runs.length; t += 3) {
        for (let r = runs[t + 1]; r < runs[t + 2]; r++) {
          got.push(keys[runs[t]][run[runs[t]].p.rows[r]]);
        }
      }
      const want = keys.flatMap((k, o) => k.filter((_, r) => groups[o][r] === g)).sort();
      if (order === "desc") want.reverse();
      assert.deepEqual(got, want, `${order} group ${g}`);
    }
  }
});

Deno.test("keymerge: with a tie order, equal keys and rows without one merge as a scan merges", () => {
  let seed = 777;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  let tied = 0;
  for (let trial = 0; trial < 300; trial++) {
    const order = trial % 2 === 0 ? "asc" : "desc";
    const dir = order === "desc" ? -1 : 1;
    const objects: Key[][] = [];
    // Each row's encoding's place in the bytes' order (distinct, in no order within an object).
    const enc: number[][] = [];
    let next = 0;
    for (let k = 1 + rand(6); k > 0; k--) {
      const keys: Key[] = [];
      for (let r = rand(10); r >= 0; r--) keys.push(rand(8));
      keys.sort((p, q) => ((p as number) - (q as number)) * dir);
      for (let r = rand(3); r > 0; r--) keys.push(rand(2) === 0 ? null : undefined);
      objects.push(keys);
      enc.push(keys.map(() => (next += 1 + rand(3)) * (rand(2) === 0 ? 1 : -1)));
    }
    const ties = (a: number, i: number, b: number, j: number) => (enc[a][i] - enc[b][j]) * dir;
    const vectors = objects.map((keys) => numbers(keys));
    const run = vectors.map((v) => ({
      p: { rows: Int32Array.from(v.state, (_, i) => i), start: Int32Array.of(0, v.length) },
    }));
    const parts = vectors.map((_, k) => ({ k, g: 0 }));
    const keys = new RunKeys(vectors.map(rowKeys), new PoolKey(["ts"], order));
    const runs = mergeRows(run, parts, keys, ties);
    assert.ok(runs !== null);
    const got: string[] = [];
    for (let t = 0; t < runs.length; t += 3) {
      for (let r = runs[t + 1]; r < runs[t + 2]; r++) got.push(`${runs[t]}:${r}`);
    }
    // A scan's merge: the object whose next row comes first by key (nulls
    // last, absent as null), then by its bytes, each time.
    const want: string[] = [];
    const at = objects.map(() => 0);
    const keyOf = (k: number) => objects[k][at[k]] ?? null;
    for (;;) {
      let best = -1;
      for (let k = 0; k < objects.length; k++) {
        if (at[k] >= objects[k].length) continue;
        if (best < 0) {
          best = k;
          continue;
        }
        const a = keyOf(k), b = keyOf(best);
        const c = a === null || b === null
          ? (a === b ? 0 : a === null ? 1 : -1)
          : ((a as number) - (b as number)) * dir;
        if (c < 0 || (c === 0 && ties(k, at[k], best, at[best]) < 0)) best = k;
      }
      if (best < 0) break;
      if (at[best] > 0 && keyOf(best) !== null) tied++;
      want.push(`${best}:${at[best]++}`);
    }
    assert.deepEqual(got, want, JSON.stringify({ objects, enc }));
  }
  assert.ok(tied > 100);
});
