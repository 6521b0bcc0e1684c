import assert from "node:assert/strict";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { lines } from "./helpers.ts";

Deno.test("over traverses arrays, sets, maps and records", async () => {
  assert.deepEqual(await lines('over 1,2,"foo"', "null"), ["1", "2", '"foo"']);
  assert.deepEqual(await lines("over [1,2],[3,4,5]", "null"), ["1", "2", "3", "4", "5"]);
  assert.deepEqual(await lines("over a | this % 2 == 0", "{a:[6,5,4]} {a:[3,2,1]}"), [
    "6",
    "4",
    "2",
  ]);
  assert.deepEqual(await lines("over this", '|{"amzn":1900,"goog":1120,"fb":180}|'), [
    '{key:"fb",value:180}',
    '{key:"amzn",value:1900}',
    '{key:"goog",value:1120}',
  ]);
  assert.deepEqual(await lines("over this", "{a:1,b:2}"), [
    '{key:["a"],value:1}',
    '{key:["b"],value:2}',
  ]);
  assert.deepEqual(await lines("over this", '[1,"foo"]([(int64,string)])'), ["1", '"foo"']);
});

Deno.test("over with a lateral scope runs once per value", async () => {
  assert.deepEqual(await lines("over a => ( sum(this) )", "{a:[1,2]} {a:[3,4,5]}"), [
    "{sum:3}",
    "{sum:12}",
  ]);
  assert.deepEqual(
    await lines(
      "over a with s => (sum(this) | yield {s,sum})",
      '{a:[1,2],s:"foo"} {a:[3,4,5],s:"bar"}',
    ),
    ['{s:"foo",sum:3}', '{s:"bar",sum:12}'],
  );
  assert.deepEqual(await lines("over a => (head 2)", "{a:[7,6,1]} {a:[8]} {a:[3,2,1,0]}"), [
    "7",
    "6",
    "8",
    "3",
    "2",
  ]);
  assert.deepEqual(await lines("over a => (sum(this))", "{a:null([int64])} {a:[6,5,4]}"), [
    "{sum:15}",
  ]);
});

Deno.test("lateral expressions combine their results", async () => {
  assert.deepEqual(await lines("yield (over this | sum(this))", "[3,2,1] [4,1,7]"), [
    "{sum:6}",
    "{sum:12}",
  ]);
  assert.deepEqual(
    await lines(
      "{...(over this | sort this | sorted:=collect(this)),...(over this | sum(this))}",
      "[3,2,1]",
    ),
    ["{sorted:[1,2,3],sum:6}"],
  );
  assert.deepEqual(await lines("yield (over a | sum(this)) | yield sum", "{a:[1,2]} {a:null}"), [
    "3",
    "null",
  ]);
});

Deno.test("join styles over two parallel legs", async () => {
  const q = (style: string) =>
    `fork ( => yield left | sort a => yield right | sort b ) | ${style} join on a=b hit:=sb | sort a`;
  const input = '{left:{a:1,sa:"x"},right:{b:1,sb:"y"}} {left:{a:2,sa:"z"},right:{b:3,sb:"w"}}';
  assert.deepEqual(await lines(q("inner"), input), ['{a:1,sa:"x",hit:"y"}']);
  assert.deepEqual(await lines(q("left"), input), ['{a:1,sa:"x",hit:"y"}', '{a:2,sa:"z"}']);
  assert.deepEqual(await lines(q("anti"), input), ['{a:2,sa:"z"}']);
  // A right join outputs right values; its assignments read the left ones.
  const right =
    "fork ( => yield left | sort a => yield right | sort b ) | right join on a=b hit:=sa | sort b";
  assert.deepEqual(await lines(right, input), ['{b:1,sb:"y",hit:"x"}', '{b:3,sb:"w"}']);
  assert.throws(() => compileQuery("join on a=b | pass | join on a=b"), /two upstream parallel/);
});

Deno.test("merge interleaves sorted legs", async () => {
  assert.deepEqual(await lines("fork (=>pass =>pass) | merge this", "1 2"), ["1", "1", "2", "2"]);
  assert.deepEqual(await lines("fork ( => x <= 2 => x > 2 ) | merge x", "{x:1}{x:3}{x:2}"), [
    "{x:1}",
    "{x:2}",
    "{x:3}",
  ]);
});

Deno.test("explode, top and shape", async () => {
  assert.deepEqual(await lines("explode a,b by int64", '{a:1,b:[10,11],c:["a","b"]}'), [
    "{value:1}",
    "{value:10}",
    "{value:11}",
  ]);
  assert.deepEqual(await lines("explode this by int64 as foo", "{a:1,b:[10]}"), [
    "{foo:1}",
    "{foo:10}",
  ]);
  assert.deepEqual(await lines("top 3 foo", "{foo:null} {foo:1} {foo:5} {foo:2} {foo:4} {foo:3}"), [
    "{foo:5}",
    "{foo:4}",
    "{foo:3}",
  ]);
  assert.deepEqual(await lines("shape", "{a:10.,b:null} {a:null,b:11.}"), [
    "{a:10,b:null(int64)}",
    "{a:null(int64),b:11}",
  ]);
});

Deno.test("SQL SELECT rewrites to operators", async () => {
  const input = '{name:"b",n:2}(=fruit) {name:"a",n:1}(=fruit) {name:"c",n:3}(=other)';
  assert.deepEqual(await lines("SELECT name FROM fruit ORDER BY name", input), [
    '{name:"a"}',
    '{name:"b"}',
  ]);
  assert.deepEqual(await lines("SELECT count() AS c FROM fruit", input), ["{c:2(uint64)}"]);
  assert.deepEqual(await lines("SELECT * FROM fruit LIMIT 1", input), ['{name:"b",n:2}(=fruit)']);
  assert.throws(() => compileQuery("SELECT a, count() FROM t"), /cannot mix aggregations/);
  assert.throws(
    () => compileQuery("SELECT a FROM t GROUP BY b"),
    /'b': GROUP BY key not in selection/,
  );
});
