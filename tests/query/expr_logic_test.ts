import assert from "node:assert/strict";
import { compileCompare } from "../../lib/query/expr/compare.ts";
import { compileNegate } from "../../lib/query/expr/arith.ts";
import {
  asBool,
  compileAnd,
  compileConditional,
  compileNot,
  compileOr,
} from "../../lib/query/expr/logic.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import type { Value } from "../../lib/zed/value.ts";
import { each, f, k, on, show, z } from "./expr_helpers.ts";

// ztest logical.yaml runs every combination on this record.
const INPUT = '{t:true,f:false,m:error("missing"),n:null(bool)}';
const MISSING = 'error("missing")';

function and(a: string, b: string): string {
  return on(compileAnd(f(a), f(b)), INPUT);
}

function or(a: string, b: string): string {
  return on(compileOr(f(a), f(b)), INPUT);
}

Deno.test("logic: logical.yaml AND table", () => {
  assert.deepEqual(
    [and("t", "t"), and("t", "f"), and("t", "n"), and("t", "m")],
    ["true", "false", "false", MISSING],
  );
  for (const b of ["t", "f", "n", "m"]) {
    assert.equal(and("f", b), "false", `f AND ${b}`);
    assert.equal(and("n", b), "false", `n AND ${b}`);
    assert.equal(and("m", b), MISSING, `m AND ${b}`);
  }
});

Deno.test("logic: logical.yaml OR table", () => {
  assert.deepEqual(
    [or("t", "t"), or("t", "f"), or("t", "n"), or("t", "m")],
    ["true", "true", "true", "true"],
  );
  assert.deepEqual(
    [or("f", "t"), or("f", "f"), or("f", "n"), or("f", "m")],
    ["true", "false", "false", MISSING],
  );
  assert.deepEqual(
    [or("n", "t"), or("n", "f"), or("n", "n"), or("n", "m")],
    ["true", "false", "false", MISSING],
  );
  assert.deepEqual(
    [or("m", "t"), or("m", "f"), or("m", "n"), or("m", "m")],
    ["true", "false", "false", MISSING],
  );
});

Deno.test("logic: logical.yaml NOT", () => {
  const not = (e: Expr) => on(compileNot(e), INPUT);
  assert.deepEqual(
    [not(f("t")), not(f("f")), not(f("m")), not(f("n")), not(compileNot(f("f")))],
    ["false", "true", MISSING, "true", "false"],
  );
});

Deno.test("logic: non-bool operands are errors", () => {
  assert.equal(on(compileAnd(k("1"), k("true")), "{}"), 'error("not type bool: 1")');
  assert.equal(on(compileAnd(k("true"), k('"x"')), "{}"), 'error("not type bool: \\"x\\"")');
  assert.equal(on(compileOr(k('"x"'), k("true")), "{}"), 'error("not type bool: \\"x\\"")');
  assert.equal(on(compileOr(k("false"), k("{a:1}")), "{}"), 'error("not type bool: {a:1}")');
  assert.equal(on(compileNot(k("1(int32)")), "{}"), 'error("not type bool: 1(int32)")');
  // A non-missing error on the LHS of `or` is returned without evaluating the RHS.
  assert.equal(on(compileOr(k('error("boom")'), k("true")), "{}"), 'error("boom")');
  // Named bools are bools.
  assert.equal(on(compileAnd(k("true(=b)"), k("true")), "{}"), "true");
  assert.equal(on(compileNot(k("true(=b)")), "{}"), "false");
});

Deno.test("logic: short circuits", () => {
  let calls = 0;
  const counted: Expr = () => {
    calls++;
    return z("true");
  };
  compileAnd(k("false"), counted)(z("{}"));
  compileOr(k("true"), counted)(z("{}"));
  compileAnd(k("1"), counted)(z("{}"));
  assert.equal(calls, 0);
  compileOr(f("missing"), counted)(z("{}"));
  assert.equal(calls, 1);
});

Deno.test("logic: asBool mirrors the operand check", () => {
  assert.equal(show(asBool(z("true"))), "true");
  assert.equal(show(asBool(z("null(bool)"))), "null(bool)");
  assert.equal(show(asBool(z('error("x")'))), 'error("x")');
  assert.equal(show(asBool(z("[1]"))), 'error("not type bool: [1]")');
});

Deno.test("conditional: overview examples", () => {
  // yield (s=="foo") ? v : -v
  const cond = compileCompare("==", f("s"), k('"foo"'), z('"foo"'));
  const e = compileConditional(cond, f("v"), compileNegate(f("v")));
  assert.deepEqual(each(e, ['{s:"foo",v:1}', '{s:"bar",v:2}']), ["1", "-2"]);
});

Deno.test("conditional: only the chosen branch is evaluated", () => {
  const counts = { a: 0, b: 0 };
  const branch = (name: "a" | "b"): Expr => (v: Value) => {
    counts[name]++;
    return v;
  };
  const e = compileConditional(f("c"), branch("a"), branch("b"));
  e(z("{c:true}"));
  e(z("{c:true}"));
  e(z("{c:false}"));
  assert.deepEqual(counts, { a: 2, b: 1 });
});

Deno.test("conditional: non-bool predicates, missing included, are errors", () => {
  const e = compileConditional(f("c"), k("1"), k("2"));
  const required = 'error("?-operator: bool predicate required")';
  assert.deepEqual(
    each(e, ["{c:1}", "{}", '{c:error("x")}', '{c:"true"}', "{c:true(=b)}", "{c:null(bool)}"]),
    [required, required, required, required, "1", "2"],
  );
});
