import assert from "node:assert/strict";
import type { Assignment } from "../../lib/query/ops/paths.ts";
import { checkPutPaths, Put } from "../../lib/query/ops/put.ts";
import { checkRenamePaths, Rename } from "../../lib/query/ops/rename.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { isError, MISSING, NULL, QUIET } from "../../lib/query/runtime/values.ts";
import { TypeInt64, TypeString } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import { f, lines, lit, quiet, runBoth } from "./ops_helpers.ts";

/** `put` with dotted paths. */
function put(...clauses: [string, Expr][]): (input: string) => string[] {
  const a: Assignment[] = clauses.map(([p, expr]) => ({ path: p.split("."), expr }));
  return (input) => runBoth((next) => new Put(next, a), input);
}

function rename(...pairs: [string, string][]): (input: string) => string[] {
  const p = pairs.map(([to, from]) => ({ to: to.split("."), from: from.split(".") }));
  return (input) => runBoth((next) => new Rename(next, p), input);
}

function plus1(e: Expr): Expr {
  return (v) => {
    const r = e(v);
    return isError(r) ? r : new Value(TypeInt64, (r.body as number) + 1);
  };
}

function strFn(fn: (s: string) => string, e: Expr): Expr {
  return (v) => new Value(TypeString, fn(e(v).body as string));
}

Deno.test("put: docs examples", () => {
  assert.deepEqual(put(["c", lit("3")])("{a:1,b:2}"), ["{a:1,b:2,c:3}"]);
  assert.deepEqual(put(["d", f("e")])("{a:1,b:2,c:3}"), ['{a:1,b:2,c:3,d:error("missing")}']);
  assert.deepEqual(put(["b", lit("2")])("{a:1} 1"), [
    "{a:1,b:2}",
    'error("put: not a record: 1")',
  ]);
  assert.deepEqual(put(["x", plus1(f("x"))])("{x:1(int32)} {x:2(int32)}"), ["{x:2}", "{x:3}"]);
  assert.deepEqual(
    put(["c", lit("1")], ["a", lit("3")], ["b", lit("2")])("{a:1(int32),b:2(int32),c:3(int32)}"),
    ["{a:3,b:2,c:1}"],
  );
  assert.deepEqual(
    put(["a", lit("3")], ["b", lit("2")], ["c", lit("1")])("{a:1(int32),b:2(int32)}"),
    ["{a:3,b:2,c:1}"],
  );
  assert.deepEqual(put(["x", quiet(f("y"))])("{} {x:1}"), ["{}", "{x:1}"]);
  assert.deepEqual(put(["b", () => NULL])("{a:1(int32)}"), ["{a:1(int32),b:null}"]);
  assert.deepEqual(put(["y", plus1(f("x"))])("{x:1(int32)} {x:2(int32)}"), [
    "{x:1(int32),y:2}",
    "{x:2(int32),y:3}",
  ]);
});

Deno.test("put: a clause's type may change from value to value", () => {
  const cond: Expr = (v) =>
    (f("x")(v).body as number) > 0 ? new Value(TypeString, "string") : f("x")(v);
  assert.deepEqual(put(["y", cond])("{x:0(int32)} {x:1(int32)} {x:0(int32)}"), [
    "{x:0(int32),y:0(int32)}",
    '{x:1(int32),y:"string"}',
    "{x:0(int32),y:0(int32)}",
  ]);
});

Deno.test("put: right-hand sides see the original input", () => {
  const upper = strFn((s) => s.toUpperCase(), f("x"));
  const lower = strFn((s) => s.toLowerCase(), f("x"));
  assert.deepEqual(put(["x", upper], ["y", lower])('{x:"vAlUe1"}'), ['{x:"VALUE1",y:"value1"}']);
  const ab = "{a:1(int32),b:2(int32)} {a:3(int32),b:4(int32)}";
  const swapped = ["{a:2(int32),b:1(int32)}", "{a:4(int32),b:3(int32)}"];
  assert.deepEqual(put(["a", f("b")], ["b", f("a")])(ab), swapped);
  assert.deepEqual(put(["b", f("a")], ["a", f("b")])(ab), swapped);
  assert.deepEqual(put(["new", lit("1")], ["x", plus1(f("x"))])("{x:1(int32)}"), ["{x:2,new:1}"]);
});

Deno.test("put: records replace and are replaced (put-3, put-4, put-5, cut-root)", () => {
  assert.deepEqual(put(["r2", f("r")])('{r:{s:"hello"}}'), ['{r:{s:"hello"},r2:{s:"hello"}}']);
  assert.deepEqual(put(["x", f("r")])('{x:1(int32),r:{s:"hello"}}'), [
    '{x:{s:"hello"},r:{s:"hello"}}',
  ]);
  assert.deepEqual(put(["r", f("x")])('{x:1(int32),r:{s:"hello"}}'), ["{x:1(int32),r:1(int32)}"]);
  assert.deepEqual(
    put(["x", f()])("{a:null({b:int32})} {a:{b:null(int32)}} {a:{b:1(int32)}}"),
    lines(`{a:null({b:int32}),x:{a:null({b:int32})}}
      {a:{b:null(int32)},x:{a:{b:null(int32)}}}
      {a:{b:1(int32)},x:{a:{b:1(int32)}}}`),
  );
});

Deno.test("put: nested paths (put-nested)", () => {
  const p = put(
    ["pre", lit('"pre"')],
    ["a.a", lit("1")],
    ["a.b", lit("2")],
    ["a.c.a", lit("3")],
    ["a.d", lit("4")],
    ["b", lit("5")],
    ["post", lit('"post"')],
  );
  const input = `{}
    {a:null}
    {a:{}}
    {a:{}(=named)}
    {a:{c:null}}
    {a:{c:{}}}
    {a:{c:{a:4}}}
    {a:{c:{a:{a:4}}}}
    {pre:"pre",a:{x:10,b:2,c:{a:3},d:4},b:5,post:"post"}
    {other:"other"}`;
  assert.deepEqual(
    p(input),
    lines(`{pre:"pre",a:{a:1,b:2,c:{a:3},d:4},b:5,post:"post"}
      {a:{a:1,b:2,c:{a:3},d:4},pre:"pre",b:5,post:"post"}
      {a:{a:1,b:2,c:{a:3},d:4},pre:"pre",b:5,post:"post"}
      {a:{a:1,b:2,c:{a:3},d:4},pre:"pre",b:5,post:"post"}
      {a:{c:{a:3},a:1,b:2,d:4},pre:"pre",b:5,post:"post"}
      {a:{c:{a:3},a:1,b:2,d:4},pre:"pre",b:5,post:"post"}
      {a:{c:{a:3},a:1,b:2,d:4},pre:"pre",b:5,post:"post"}
      {a:{c:{a:3},a:1,b:2,d:4},pre:"pre",b:5,post:"post"}
      {pre:"pre",a:{x:10,b:2,c:{a:3},d:4,a:1},b:5,post:"post"}
      {other:"other",pre:"pre",a:{a:1,b:2,c:{a:3},d:4},b:5,post:"post"}`),
  );
});

Deno.test("put: a field name with a dot", () => {
  const a: Assignment[] = [{
    path: ["x.y"],
    expr: strFn((s) => s.toLowerCase(), (v) => f("x.y")(v)),
  }];
  assert.deepEqual(runBoth((next) => new Put(next, a), '{"x.y":"Hello, World"}'), [
    '{"x.y":"hello, world"}',
  ]);
});

Deno.test("put: errors pass, missing and quiet inputs vanish, names go", () => {
  assert.deepEqual(put(["b", lit("2")])('error("x") error("missing") error("quiet")'), [
    'error("x")',
  ]);
  assert.deepEqual(put(["b", lit("2")])("{a:1}(=foo)"), ["{a:1,b:2}"]);
  // Nothing assigned: the value is untouched, name included.
  assert.deepEqual(put(["b", () => QUIET])("{a:1}(=foo)"), ["{a:1}(=foo)"]);
  assert.deepEqual(put(["b", () => MISSING])("{a:1}"), ['{a:1,b:error("missing")}']);
});

Deno.test("put: reading a field of a null record makes the output null (as the reference)", () => {
  assert.deepEqual(put(["x", lit("1")])("null({a:int64})"), ["null({a:int64,x:int64})"]);
  assert.deepEqual(put(["a.c", lit("1")])("{a:null({b:int64})}"), [
    "null({a:{b:int64,c:int64}})",
  ]);
  // Nothing read from the null record: no failure.
  assert.deepEqual(put(["a.b", lit("1")])("{a:null({b:int64})}"), ["{a:{b:1}}"]);
  assert.deepEqual(put(["x", lit("1")])("null({})"), ["{x:1}"]);
});

Deno.test("put: which clauses are quiet is part of the plan", () => {
  const maybe: Expr = (v) => (f("b")(v).body as number) > 1 ? QUIET : f("a")(v);
  assert.deepEqual(put(["x", maybe], ["y", f("b")])("{a:5,b:2} {a:5,b:1}"), [
    "{a:5,b:2,y:2}",
    "{a:5,b:1,x:5,y:1}",
  ]);
});

Deno.test("put: compile-time path checks", () => {
  assert.throws(() => checkPutPaths([["a"], ["a"]]), { message: "put: multiple assignments to a" });
  assert.throws(() => checkPutPaths([["a", "b"], ["a"]]), {
    message: "put: conflicting nested assignments to a and a.b",
  });
  assert.throws(() => checkPutPaths([["a"], ["a", "b", "c"]]), {
    message: "put: conflicting nested assignments to a and a.b.c",
  });
  assert.throws(() => checkPutPaths([[]]), {
    message: "put: LHS cannot be 'this' (use 'yield' operator)",
  });
  checkPutPaths([["a", "b"], ["a", "c"], ["b"]]);
  assert.throws(() => put(["x", f()], ["x", f()])("{}"), { message: /multiple assignments to x/ });
});

Deno.test("rename: docs examples", () => {
  assert.deepEqual(rename(["c", "b"])("{a:1,b:2}"), ["{a:1,c:2}"]);
  assert.deepEqual(rename(["r.a", "r.b"])("{a:1,r:{b:2,c:3}}"), ["{a:1,r:{a:2,c:3}}"]);
  assert.deepEqual(rename(["a", "b"])("{b:1} {a:1,b:1} {c:1}"), [
    "{a:1}",
    'error({message:"rename: duplicate field: \\"a\\"",on:{a:1,b:1}})',
    "{c:1}",
  ]);
});

Deno.test("rename: nested renames see the previous ones (rename-nested)", () => {
  const r = rename(["id.dst", "id.resp_h"], ["id.src", "id.orig_h"], ["net", "id"]);
  assert.deepEqual(
    r(`{id:{orig_h:10.164.94.120,orig_p:39681(port=uint16),resp_h:10.47.3.155,resp_p:3389(port)}}
       {id:{orig_h:10.164.94.121,orig_p:39681(port=uint16),resp_h:10.47.3.155,resp_p:3390(port)}}
       {id:{orig_p:39681(port=uint16),resp_p:3389(port)}}`),
    lines(`{net:{src:10.164.94.120,orig_p:39681(port=uint16),dst:10.47.3.155,resp_p:3389(port)}}
      {net:{src:10.164.94.121,orig_p:39681(port=uint16),dst:10.47.3.155,resp_p:3390(port)}}
      {net:{orig_p:39681(port=uint16),resp_p:3389(port)}}`),
  );
});

Deno.test("rename: rename-foo-bar, rename-error-dupe", () => {
  assert.deepEqual(
    rename(["f", "foo"], ["b", "bar"])(`{foo:"foo0"} {foo:"foo1",goo:"goo1"} {bar:"bar2"}
      {goo:"goo3",bar:"bar3"} {bar:"bar4",goo:"goo4",foo:"foo4"} {goo:"goo5"}`),
    lines(`{f:"foo0"}
      {f:"foo1",goo:"goo1"}
      {b:"bar2"}
      {goo:"goo3",b:"bar3"}
      {b:"bar4",goo:"goo4",f:"foo4"}
      {goo:"goo5"}`),
  );
  assert.deepEqual(rename(["foo", "goo"])('{foo:"foo1",goo:"goo1"}'), [
    'error({message:"rename: duplicate field: \\"foo\\"",on:{foo:"foo1",goo:"goo1"}})',
  ]);
});

Deno.test("rename: non-records pass, record names are lost, named sub-records stay", () => {
  assert.deepEqual(rename(["a", "b"])('1 error("x") error("missing")'), ["1", 'error("x")']);
  assert.deepEqual(rename(["a", "b"])("{b:1}(=foo) {c:1}(=bar)"), ["{a:1}", "{c:1}"]);
  assert.deepEqual(rename(["r.a", "r.b"])("{r:{b:1}(=inner)}"), ["{r:{b:1}(=inner)}"]);
});

Deno.test("rename: compile-time path checks", () => {
  const check = (to: string, from: string) => () =>
    checkRenamePaths([{ to: to.split("."), from: from.split(".") }]);
  assert.throws(check("dst", "id.resp_h"), { message: "cannot rename id.resp_h to dst" });
  assert.throws(check("c.d", "a.b"), { message: "cannot rename a.b to c.d (differ in a vs c)" });
  assert.throws(check("x.y.c", "x.z.b"), {
    message: "cannot rename x.z.b to x.y.c (differ in z vs y)",
  });
  check("a.c", "a.b")();
});
