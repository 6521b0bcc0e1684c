import assert from "node:assert/strict";
import type * as ast from "../../lib/query/ast.ts";
import { parseQuery } from "../../lib/query/parser/parse.ts";
import { fieldDemand, fieldPathOf } from "../../lib/query/compiler/demand.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";

function demand(query: string): string[] | null {
  const ops = parseQuery(query).ops;
  const d = fieldDemand(ops, null);
  return d === null ? null : d.sort();
}

Deno.test("aggregations need only the fields they read", () => {
  assert.deepEqual(demand("count() by _path"), ["_path"]);
  assert.deepEqual(demand("sum(x) by a, b.c"), ["a", "b", "x"]);
  assert.deepEqual(demand("count()"), []);
  assert.deepEqual(demand("where y > 1 | count() by _path"), ["_path", "y"]);
  assert.deepEqual(demand("n:=count() where z == 1"), ["z"]);
  // every(d) buckets ts without naming it.
  assert.deepEqual(demand("count() by every(1h)"), ["ts"]);
  assert.deepEqual(demand("count() by every(1h), _path"), ["_path", "ts"]);
});

Deno.test("operators that pass values on need everything after them", () => {
  assert.equal(demand("where y > 1"), null);
  assert.equal(demand("head 5"), null);
  assert.equal(demand("sort x | head 1"), null);
  assert.deepEqual(demand("sort x | head 1 | cut y"), ["x", "y"]);
  assert.deepEqual(demand("cut a, b:=c.d"), ["a", "c"]);
  assert.deepEqual(demand("yield this.a + b"), ["a", "b"]);
  assert.equal(demand("put x:=1"), null);
  assert.equal(demand("rename a:=b | head 1"), null);
});

Deno.test("is(<t>) and the shaping functions with one argument read all of this", () => {
  for (const f of ["is", "cast", "crop", "fill", "fit", "order", "shape"]) {
    assert.equal(demand(`yield ${f}(<{a:int64}>) | count() by x`), null, f);
    assert.equal(demand(`${f}(<{a:int64}>) | count()`), null, f);
    // With the value given, only what it reads.
    assert.deepEqual(demand(`yield ${f}(a, <int64>) | count() by x`), ["a"], f);
  }
});

Deno.test("put, rename and drop add the fields they read (and assign) to what follows needs", () => {
  assert.deepEqual(demand("put x:=1 | count() by x"), ["x"]);
  assert.deepEqual(demand("put x:=rtt*1000 | sum(x)"), ["rtt", "x"]);
  assert.deepEqual(demand("x:=a+b | cut x"), ["a", "b", "x"]);
  assert.deepEqual(demand("put r.s:=len(q) | count() by r"), ["q", "r"]);
  assert.deepEqual(demand("rename q:=query | count() by q"), ["q", "query"]);
  assert.deepEqual(demand("drop a | count() by b"), ["a", "b"]);
  assert.equal(demand("put this[f]:=1 | count() by g"), null);
  assert.equal(demand("put x:=this | count() by x"), null);
});

Deno.test("whole values, search terms and unknown operators need every field", () => {
  assert.equal(demand("yield this"), null);
  assert.equal(demand("count() by typeof(this)"), null);
  assert.equal(demand("foo | count()"), null);
  assert.equal(demand('grep("x") | count()'), null);
  assert.equal(demand("uniq | count()"), null);
  assert.equal(demand("sort | head 1 | cut a"), null);
  assert.equal(demand("yield {...this}"), null);
});

Deno.test("from lifts the leading filter, and a pool performs a sort, count or summarize", () => {
  const q1 = compileQuery("from p | x > 1 | sort -r ts | head 3");
  const p1 = q1.sources![0];
  assert.equal(p1.filter?.fieldsOnly, true);
  assert.ok(p1.filter?.vector !== null, "the filter runs on columns");
  const s1 = p1.pushdown;
  assert.equal(s1?.kind, "sort");
  if (s1?.kind === "sort") {
    assert.deepEqual([s1.path, s1.reverse, s1.nullsFirst, s1.limit], [["ts"], true, false, 3]);
  }
  assert.equal(p1.ordered, true);

  const q2 = compileQuery("from p | ts >= 1 | count()");
  assert.deepEqual(q2.sources![0].pushdown, { kind: "count", field: "count" });
  assert.deepEqual(q2.sources![0].fields, ["ts"]);
  assert.equal(q2.sources![0].ordered, false);

  const q3 = compileQuery("from p | n:=count()");
  assert.deepEqual(q3.sources![0].pushdown, { kind: "count", field: "n" });

  const q4 = compileQuery("from p | count() by _path");
  const s4 = q4.sources![0].pushdown;
  assert.equal(s4?.kind, "summarize");
  if (s4?.kind === "summarize") assert.ok(s4.vector !== null, "columns can feed it");
  assert.equal(q4.sources![0].ordered, false);

  // Files carry out no pushdown; the operators stay.
  const q8 = compileQuery("file a.json | count()");
  assert.equal(q8.sources![0].pushdown, null);

  const q5 = compileQuery("from p | collect(x) by y");
  assert.equal(q5.sources![0].ordered, true);

  const q6 = compileQuery("const k = 1 from p | x == k");
  assert.equal(q6.sources![0].filter?.fieldsOnly, false);

  const q7 = compileQuery("from (pool b pool a => x > 1) | count()");
  assert.equal(q7.sources!.length, 2);
  assert.equal(q7.sources![0].filter, null);
  assert.notEqual(q7.sources![1].filter, null);
});

Deno.test("field paths: dotted names and fields by name in brackets", () => {
  const path = (text: string) => {
    const op = parseQuery(`yield ${text}`).ops[0];
    assert.equal(op.kind, "Yield");
    return fieldPathOf((op as ast.Op & { kind: "Yield" }).exprs[0]);
  };
  assert.deepEqual(path("a.b"), ["a", "b"]);
  assert.deepEqual(path('this["id.orig_p"]'), ["id.orig_p"]);
  assert.deepEqual(path('a["b.c"].d'), ["a", "b.c", "d"]);
  assert.equal(path("a[1]"), null);
  assert.equal(path("a[b]"), null);
  assert.equal(path("f(a)"), null);
});

Deno.test("over, let and explode need only the fields their expressions read", () => {
  assert.deepEqual(demand("over answers | count()"), ["answers"]);
  assert.deepEqual(demand("over a, b.c => (yield this) | head 1"), ["a", "b"]);
  assert.deepEqual(demand("over a with n=name => (yield {n, v:this})"), ["a", "name"]);
  assert.deepEqual(demand("where x > 1 | over a | count()"), ["a", "x"]);
  assert.equal(demand("over this | count()"), null);
  assert.deepEqual(demand("explode a by <string> as s | count() by s"), ["a"]);
  assert.deepEqual(demand("top 3 rtt | cut query"), ["query", "rtt"]);
  assert.equal(demand("top 3"), null);
});

Deno.test("fork and switch need what any branch needs", () => {
  assert.deepEqual(demand('fork ( => _path=="dns" | count() => _path=="ssl" | count() )'), [
    "_path",
  ]);
  assert.deepEqual(
    demand("switch ( case a > 1 => count() by b case c == 2 => yield d ) | sort e | cut f"),
    ["a", "b", "c", "d"],
  );
  assert.deepEqual(demand("switch x ( case 1 => sum(y) default => sum(z) )"), ["x", "y", "z"]);
  assert.deepEqual(demand("fork ( => where a > 1 => where b > 1 ) | count() by c"), [
    "a",
    "b",
    "c",
  ]);
  assert.equal(demand("fork ( => count() => head 1 )"), null);
  assert.equal(demand("switch ( case a > 1 => pass default => count() )"), null);
});

Deno.test("a pool is read unmerged when the result does not depend on the order of values", () => {
  const ordered = (q: string) => compileQuery(`from p | ${q}`).sources![0].ordered;
  for (
    const q of [
      'fork ( => _path=="dns" | count() => _path=="ssl" | count() ) | sort count',
      'switch ( case _path=="dns" => count() default => max(ts) )',
      "cut _path | count() by _path",
      "put n:=len(query) | yield {n} | min(n), max(n) by b:=n > 3",
      "over answers | count()",
      "x > 1 | rename y:=x | count() by y",
    ]
  ) assert.equal(ordered(q), false, q);
  for (
    const q of [
      "cut x | sum(x)", // float sums round by order
      "cut x | avg(x) by y",
      "cut x | collect(x)",
      "yield {c:count()} | count() by c",
      "put n:=count() | count() by n",
      "cut x | head 5 | count()",
      "fork ( => count() => head 1 )",
      "cut x",
      "sort x | count()",
    ]
  ) assert.equal(ordered(q), true, q);
});
