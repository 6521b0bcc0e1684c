import assert from "node:assert/strict";
import { Sort, type SortOptions } from "../../lib/query/ops/sort.ts";
import { SortHead } from "../../lib/query/ops/sorthead.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { f, run, runBoth } from "./ops_helpers.ts";
import { lines as queryLines } from "./helpers.ts";
import { parseQuery } from "../../lib/query/parser/parse.ts";
import type * as ast from "../../lib/query/ast.ts";
import { Scope } from "../../lib/query/compiler/scope.ts";
import { leadingValues } from "../../lib/query/planner/pages.ts";

/** A small seeded generator (the same cases every run). */
function rng(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** Values of k (and j) drawn from kinds whose orders differ: ints, int8s, floats, strings, nulls, missing. */
function input(r: () => number, n: number, kinds: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = kinds[Math.floor(r() * kinds.length)];
    const small = Math.floor(r() * 7) - 3;
    const k = kind === "int"
      ? `k:${small}`
      : kind === "int8"
      ? `k:${small}(int8)`
      : kind === "uint8"
      ? `k:${small + 3}(uint8)`
      : kind === "float"
      ? `k:${small / 2}`
      : kind === "string"
      ? `k:"s${small}"`
      : kind === "null"
      ? "k:null"
      : "";
    const j = `j:${Math.floor(r() * 3)}`;
    out.push(`{${[k, j, `i:${i}`].filter((x) => x !== "").join(",")}}`);
  }
  return out.join("\n");
}

Deno.test("sort with a short head or tail: the first or last values of the full sort, ties in input order", () => {
  const r = rng(7);
  const kindSets = [
    ["int"],
    ["int", "int8"],
    ["int8", "uint8"],
    ["int", "null", "missing"],
    ["float", "int"],
    ["string", "int", "null"],
    ["float", "string", "null", "missing"],
    // (Not int8 beside other numbers in the general order, nor several number types beside
    // other types: the order of values is then not transitive, and a sort's result depends on
    // how it compares, as the reference's does.)
  ];
  const keySets: Expr[][] = [[f("k")], [f("k"), f("j")], [f("j"), f("k")]];
  for (let round = 0; round < 60; round++) {
    const kinds = kindSets[round % kindSets.length];
    const text = input(r, 1 + Math.floor(r() * 80), kinds);
    const keys = keySets[Math.floor(r() * keySets.length)];
    const opts: SortOptions = { reverse: r() < 0.5, nullsFirst: r() < 0.3 };
    const full = run((next) => new Sort(next, keys, opts), text);
    for (const n of [1, 3, 10, 100]) {
      const head = runBoth((next) => new SortHead(next, keys, opts, n), text);
      assert.deepEqual(head, full.slice(0, n), `${kinds} ${JSON.stringify(opts)} head ${n}`);
      // The same sort before a tail keeps the last values. (Not of int8
      // beside uint8: compared by their bytes across the two types but as
      // numbers within each, their order is not transitive, and which come
      // last depends on how the sort compares.)
      if (kinds.includes("uint8")) continue;
      const tail = runBoth((next) => new SortHead(next, keys, opts, n, true), text);
      const last = full.slice(Math.max(0, full.length - n));
      assert.deepEqual(tail, last, `${kinds} ${JSON.stringify(opts)} tail ${n}`);
    }
  }
});

Deno.test("a sort then a short tail in a query keeps only the last values", async () => {
  const text = input(rng(17), 200, ["int", "string", "null", "missing"]);
  for (
    const q of [
      "sort k | tail 5",
      "sort -r k, j | tail 12",
      "sort -nulls first k | tail",
      "sort k | tail 0",
    ]
  ) {
    const full = q.replace(/\| tail/, "| tail 20000 | tail");
    assert.deepEqual(await queryLines(q, text), await queryLines(full, text), q);
    assert.equal(
      (await queryLines(q, text)).length,
      /tail \d*[1-9]/.test(q) ? Number(q.split(" ").at(-1)) : 1,
    );
  }
});

Deno.test("sort with a short head: no keys guesses the key from the first value", async () => {
  const text = "{b:2,a:1} {b:1,a:2} {b:3,a:0} {b:1,a:9}";
  const full = await queryLines("sort", text);
  assert.deepEqual(await queryLines("sort | head 2", text), full.slice(0, 2));
  assert.deepEqual(
    await queryLines("sort -r | head 3", text),
    (await queryLines("sort -r", text)).slice(0, 3),
  );
  // A head past the bound is the full sort's.
  assert.deepEqual(await queryLines("sort a | head 20000", text), await queryLines("sort a", text));
});

Deno.test("a sort or a fuse before Zui's page keeps only the page's first N+M values", async () => {
  const r = rng(11);
  const text = input(r, 300, ["int", "float", "null", "missing"]) +
    '\n{other:1,i:1000}\n{k:2,other:"x",i:1001}';
  for (const before of ["sort k", "sort -r k, j", "sort j", "fuse", "sort -r k | fuse"]) {
    for (const [cmp, n, m] of [[">", 0, 5], [">", 40, 7], [">=", 290, 20], [">", 400, 3]]) {
      const page = `{i:count(), v:this} | i ${cmp} ${n} | head ${m} | yield v`;
      // With `pass` between, the page is not seen and every value is kept.
      assert.deepEqual(
        await queryLines(`${before} | ${page}`, text),
        await queryLines(`${before} | pass | ${page}`, text),
        `${before} | ${page}`,
      );
    }
  }
});

Deno.test("how many first values decide what follows: a head's count, a page's N+M", () => {
  const ops = (q: string) => (parseQuery(q) as { ops: ast.Op[] }).ops;
  const scope = new Scope();
  assert.equal(leadingValues(ops("head 7 | pass"), scope), 7);
  assert.equal(leadingValues(ops("head"), scope), 1);
  assert.equal(
    leadingValues(ops("{i:count(), v:this} | i > 1000 | head 500 | yield v"), scope),
    1500,
  );
  assert.equal(leadingValues(ops("yield {n:count(), v:this} | n >= 10 | head 5"), scope), 14);
  assert.equal(leadingValues(ops("{i:count(), v:this} | i >= 0 | head 5"), scope), 5);
  // Not pages: another aggregate, a non-constant bound, another field, a head missing.
  assert.equal(leadingValues(ops("{i:sum(x), v:this} | i > 10 | head 5"), scope), null);
  assert.equal(leadingValues(ops("{i:count(), v:this} | i > x | head 5"), scope), null);
  assert.equal(leadingValues(ops("{i:count(), v:this} | v > 10 | head 5"), scope), null);
  assert.equal(leadingValues(ops("{i:count(), v:this} | i > 10 | tail 5"), scope), null);
  assert.equal(leadingValues(ops("{i:count(), v:this, w:count()} | i > 1 | head 5"), scope), null);
  assert.equal(leadingValues(ops("pass | head 5"), scope), null);
});
