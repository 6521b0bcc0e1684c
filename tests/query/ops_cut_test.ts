import assert from "node:assert/strict";
import { checkCutPaths, Cut } from "../../lib/query/ops/cut.ts";
import { Drop } from "../../lib/query/ops/drop.ts";
import type { Assignment } from "../../lib/query/ops/paths.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { isError } from "../../lib/query/runtime/values.ts";
import { isInteger, TypeInt64, TypeString, TypeType, underId } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import { f, lines, quiet, runBoth } from "./ops_helpers.ts";

/** `cut` with paths written dotted; a bare path is its own expression. */
function cut(...fields: (string | [string, Expr])[]): (input: string) => string[] {
  const assignments: Assignment[] = fields.map((x) => {
    const [p, e] = typeof x === "string" ? [x, f(...x.split("."))] : x;
    return { path: p.split("."), expr: e };
  });
  return (input) => runBoth((next) => new Cut(next, assignments), input);
}

function drop(...paths: string[]): (input: string) => string[] {
  return (input) => runBoth((next) => new Drop(next, paths.map((p) => p.split("."))), input);
}

/** e + 1 for integers (an int64 result, as the reference's promotion gives here). */
function plus1(e: Expr): Expr {
  return (v) => {
    const r = e(v);
    if (isError(r)) return r;
    assert.ok(isInteger(underId(r.type)));
    return new Value(TypeInt64, (r.body as number) + 1);
  };
}

function lower(e: Expr): Expr {
  return (v) => new Value(TypeString, (e(v).body as string).toLowerCase());
}

function typeOf(e: Expr): Expr {
  return (v) => new Value(TypeType, e(v).type);
}

Deno.test("cut: docs examples", () => {
  assert.deepEqual(cut("a", "c")("{a:1,b:2,c:3}"), ["{a:1,c:3}"]);
  assert.deepEqual(cut("a", "d")("{a:1,b:2,c:3}"), ['{a:1,d:error("missing")}']);
  assert.deepEqual(cut(["a", quiet(f("a"))], ["d", quiet(f("d"))])("{a:1,b:2,c:3}"), ["{a:1}"]);
  assert.deepEqual(cut("a", "b")("1 {a:1,b:2,c:3}"), [
    '{a:error("missing"),b:error("missing")}',
    "{a:1,b:2}",
  ]);
  assert.deepEqual(
    cut(["b", plus1(f("x"))], ["c", quiet(plus1(f("x")))], ["d", quiet(plus1(f("a")))])("{a:1}"),
    ['{b:error("missing"),d:2}'],
  );
});

Deno.test("cut: empty records (cut-empty-record)", () => {
  assert.deepEqual(
    cut("a", "b")("{} {a:{}} {a:{},b:{}}"),
    lines(`{a:error("missing"),b:error("missing")}
      {a:{},b:error("missing")}
      {a:{},b:{}}`),
  );
});

Deno.test("cut: all fields quiet gives no output", () => {
  assert.deepEqual(cut(["a.b", quiet(f("a", "b"))])("{a:1} {a:{b:1}}"), ["{a:{b:1}}"]);
});

Deno.test("cut: cut-rename-nested", () => {
  assert.deepEqual(
    cut(["ports", f("id")], ["resp_p", quiet(f("id", "resp_p"))])(
      "{id:{orig_p:1(port=uint16),resp_p:2(port)}} {id:[3(port=uint16),4(port)]}",
    ),
    [
      "{ports:{orig_p:1(port=uint16),resp_p:2(port)},resp_p:2(port)}",
      "{ports:[3(port=uint16),4(port)]}",
    ],
  );
});

Deno.test("cut: nested paths (cut-nested)", () => {
  const nested1 = `{rec:{foo:"foo1",bar:"bar1"}} {rec:{foo:"foo2",bar:"bar2"}}`;
  assert.deepEqual(cut("rec.foo")(nested1), ['{rec:{foo:"foo1"}}', '{rec:{foo:"foo2"}}']);
  assert.deepEqual(cut("rec.foo", "rec.bar")(nested1), [
    '{rec:{foo:"foo1",bar:"bar1"}}',
    '{rec:{foo:"foo2",bar:"bar2"}}',
  ]);
  const nested2 =
    `{foo:"outer1",rec1:{sub1:{foo:"foo1.1",bar:"bar1.1"},sub2:{foo:"foo2.1",bar:"bar2.1"}},rec2:{foo:"foo3.1"}}
     {foo:"outer2",rec1:{sub1:{foo:"foo1.2",bar:"bar1.2"},sub2:{foo:"foo2.2",bar:"bar2.2"}},rec2:{foo:"foo3.2"}}`;
  assert.deepEqual(
    cut("rec1.sub1.foo", "rec1.sub2.bar", "rec2.foo", "foo")(nested2),
    lines(`{rec1:{sub1:{foo:"foo1.1"},sub2:{bar:"bar2.1"}},rec2:{foo:"foo3.1"},foo:"outer1"}
      {rec1:{sub1:{foo:"foo1.2"},sub2:{bar:"bar2.2"}},rec2:{foo:"foo3.2"},foo:"outer2"}`),
  );
});

Deno.test("cut: computed fields (cut-expr)", () => {
  const c = cut(["y", plus1(f("x"))], ["a", lower(f("s"))], ["typeof", typeOf(f("s"))]);
  assert.deepEqual(
    c(`{a:[]([int32]),x:1(int32),s:"foo",b:0x68656c6c6f0a}
       {a:[1(int32)],x:2(int32),s:"Bar",b:0x74686572650a}`),
    ['{y:2,a:"foo",typeof:<string>}', '{y:3,a:"bar",typeof:<string>}'],
  );
});

Deno.test("cut: missing fields and changing types (cut-foo-mixed, cut-foo-bar)", () => {
  const input = `{bar:"bar1"} {foo:"foo1"} {bar:"bar2"} {foo:1}`;
  assert.deepEqual(cut("foo")(input), [
    '{foo:error("missing")}',
    '{foo:"foo1"}',
    '{foo:error("missing")}',
    "{foo:1}",
  ]);
  const input2 = `{foo:"foo0"} {foo:"foo1",goo:"goo1"} {bar:"bar2"} {goo:"goo3",bar:"bar3"}
    {bar:"bar4",goo:"goo4",foo:"foo4"} {goo:"goo5"}`;
  assert.deepEqual(
    cut(["foo", quiet(f("foo"))], ["bar", quiet(f("bar"))])(input2),
    lines(`{foo:"foo0"}
      {foo:"foo1"}
      {bar:"bar2"}
      {bar:"bar3"}
      {foo:"foo4",bar:"bar4"}`),
  );
  assert.deepEqual(
    cut(["f", quiet(f("foo"))], ["b", quiet(f("bar"))])(input2),
    lines(`{f:"foo0"}
      {f:"foo1"}
      {b:"bar2"}
      {b:"bar3"}
      {f:"foo4",b:"bar4"}`),
  );
});

Deno.test("cut: compile errors", () => {
  const make = (paths: string[][]) => () =>
    runBoth((next) => new Cut(next, paths.map((path) => ({ path, expr: f(...path) }))), "{}");
  assert.throws(make([[]]), { message: "cannot assign to 'this'" });
  assert.throws(() => checkCutPaths([["a"], ["b", "c"], ["a"]]), {
    message: 'duplicate field: "a"',
  });
  checkCutPaths([["a"], ["b", "c"], ["b", "d"]]);
  assert.throws(make([["rec"], ["other"], ["rec"]]), { message: 'duplicate field: "rec"' });
  assert.throws(make([["rec", "sub1"], ["rec", "sub1"]]), {
    message: 'duplicate field: "rec.sub1"',
  });
  assert.throws(make([["rec", "sub", "sub"], ["rec", "sub"]]), {
    message: 'duplicate field: "rec.sub"',
  });
  assert.throws(make([["rec", "sub1"], ["other"], ["rec", "sub2"]]), {
    message: "fields in record rec must be adjacent",
  });
  assert.throws(make([["t", "rec", "sub1"], ["t", "other"], ["t", "rec", "sub2"]]), {
    message: "fields in record t.rec must be adjacent",
  });
});

Deno.test("drop: docs examples", () => {
  assert.deepEqual(drop("b")("{a:1,b:2,c:3}"), ["{a:1,c:3}"]);
  assert.deepEqual(drop("a", "b")("1 {a:1,b:2,c:3}"), ["1", "{c:3}"]);
  assert.deepEqual(drop("id")("{id:null({ip:ip}),id2:{ip:1.1.1.1}}"), ["{id2:{ip:1.1.1.1}}"]);
});

Deno.test("drop: nested fields and named types (drop-nested)", () => {
  assert.deepEqual(
    drop("rec.bar")(`{rec:{foo:"foo1",bar:"bar1"}}
      {rec:{foo:"foo2",bar:"bar2"}(=rec_named)}(=named)
      {rec:{foo:"foo3",baz:"baz1"}(=rec_named)}(=named)`),
    lines(`{rec:{foo:"foo1"}}
      {rec:{foo:"foo2"}}
      {rec:{foo:"foo3",baz:"baz1"}(=rec_named)}(=named)`),
  );
  assert.deepEqual(
    drop("rec1")(
      `{foo:"outer1",rec1:{sub1:{foo:"foo1.1",bar:"bar1.1"},sub2:{foo:"foo2.1",bar:"bar2.1"}},rec2:{foo:"foo3.1"}}
       {foo:"outer2",rec1:{sub1:{foo:"foo1.2",bar:"bar1.2"},sub2:{foo:"foo2.2",bar:"bar2.2"}}(=rec1_named),rec2:{foo:"foo3.2"}(=rec2_named)}(=named)`,
    ),
    lines(`{foo:"outer1",rec2:{foo:"foo3.1"}}
      {foo:"outer2",rec2:{foo:"foo3.2"}(=rec2_named)}`),
  );
  assert.deepEqual(
    drop("level0.level1.level2.level3")(
      `{level0:{level1:{level2:{level3:"hi",foo:1,bar:2}}}}`,
    ),
    ["{level0:{level1:{level2:{foo:1,bar:2}}}}"],
  );
});

Deno.test("drop: absent fields, several fields, everything dropped", () => {
  const foos = `{foo:"foo1"} {foo:"foo2"}`;
  assert.deepEqual(drop("boo")(foos), ['{foo:"foo1"}', '{foo:"foo2"}']);
  assert.deepEqual(drop("foo")(`{foo:"foo1"} {bar:"bar1"} {foo:"foo2"}`), ['{bar:"bar1"}']);
  assert.deepEqual(drop("bar", "blar")(`{foo:"foo1",bar:"bar1",blar:"blar1"}`), ['{foo:"foo1"}']);
  // A sub-record left empty disappears; so does a record left empty.
  assert.deepEqual(drop("a.b")("{a:{b:1},c:2} {a:{b:1}}"), ["{c:2}"]);
  assert.deepEqual(drop("x")('1 error("missing") error("x")'), ["1", 'error("x")']);
});

Deno.test("drop: a rebuilt null sub-record becomes a record of nulls", () => {
  // d is copied whole (nothing dropped in it), so it stays a null record.
  assert.deepEqual(drop("a.b")("{a:null({b:int64,c:int64,d:{e:string,f:int64}}),x:1}"), [
    "{a:{c:null(int64),d:null({e:string,f:int64})},x:1}",
  ]);
  assert.deepEqual(drop("a.d.e")("{a:null({b:int64,d:{e:string,f:int64}})}"), [
    "{a:{b:null(int64),d:{f:null(int64)}}}",
  ]);
});
