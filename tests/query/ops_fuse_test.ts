import assert from "node:assert/strict";
import { Fuse } from "../../lib/query/ops/fuse.ts";
import { lines, runBoth } from "./ops_helpers.ts";
import { lines as queryLines } from "./helpers.ts";

const fuse = (input: string) => runBoth((next) => new Fuse(next), input);

Deno.test("fuse: docs examples", () => {
  assert.deepEqual(fuse("{a:1}{b:2}"), ["{a:1,b:null(int64)}", "{a:null(int64),b:2}"]);
  assert.deepEqual(fuse('{a:1}{a:"foo"}'), ["{a:1((int64,string))}", '{a:"foo"((int64,string))}']);
  assert.deepEqual(fuse('{a:[1,2]}{a:["foo","bar"],b:10.0.0.1}'), [
    "{a:[1,2]([(int64,string)]),b:null(ip)}",
    '{a:["foo","bar"]([(int64,string)]),b:10.0.0.1}',
  ]);
  assert.deepEqual(
    fuse('{x:1} {x:"foo",y:"foo"}{x:2,y:"bar"}'),
    lines(`{x:1((int64,string)),y:null(string)}
      {x:"foo"((int64,string)),y:"foo"}
      {x:2((int64,string)),y:"bar"}`),
  );
});

Deno.test("fuse: basic, dup, container", () => {
  assert.deepEqual(fuse('{a:"hello",b:"world"} {b:"goodnight",c:"gracie"}'), [
    '{a:"hello",b:"world",c:null(string)}',
    '{a:null(string),b:"goodnight",c:"gracie"}',
  ]);
  assert.deepEqual(fuse('{a:"hello",b:"world"} {a:"goodnight",b:123(int32)}'), [
    '{a:"hello",b:"world"((int32,string))}',
    '{a:"goodnight",b:123(int32)((int32,string))}',
  ]);
  assert.deepEqual(
    fuse(`{a:"hello",r:{x:1(int32),y:2(int32)}}
      {r:{y:4(int32),z:5(int32)},s:"world",r2:{x:6(int32)}}`),
    lines(`{a:"hello",r:{x:1(int32),y:2(int32),z:null(int32)},s:null(string),r2:null({x:int32})}
      {a:null(string),r:{x:null(int32),y:4(int32),z:5(int32)},s:"world",r2:{x:6(int32)}}`),
  );
});

Deno.test("fuse: mixed (the reference leaves the records unshaped)", () => {
  const u = "((int64,string,{a:(int64,string)},[int64],[string]))";
  assert.deepEqual(fuse('{a:1} {a:"s"} 1 "s" [1] ["s"]'), [
    "{a:1}",
    '{a:"s"}',
    "1" + u,
    '"s"' + u,
    "[1]" + u,
    '["s"]' + u,
  ]);
});

Deno.test("fuse: array-of-record", () => {
  assert.deepEqual(
    fuse("[{a:1}] [{b:2}] [{a:3},{b:3}] [{a:3,b:3}]"),
    lines(`[{a:1,b:null(int64)}]
      [{a:null(int64),b:2}]
      [{a:3,b:null(int64)},{a:null(int64),b:3}]
      [{a:3,b:3}]`),
  );
});

Deno.test("fuse: sets, maps, errors, nulls", () => {
  // Set elements wrapped in a union are put back in canonical order.
  assert.deepEqual(fuse('|[1,2]| |["a"]|'), [
    "|[1,2]|(|[(int64,string)]|)",
    '|["a"]|(|[(int64,string)]|)',
  ]);
  // An array meeting a set makes an array; the reference fuses the equal
  // element types into a union of the type with itself.
  assert.deepEqual(fuse("[1] |[2]|"), ["[1]([(int64,int64)])", "[2]([(int64,int64)])"]);
  // Maps of one type pass; of differing types the reference cannot shape them.
  assert.deepEqual(fuse('|{"a":1}| |{"b":2}|'), ['|{"a":1}|', '|{"b":2}|']);
  assert.deepEqual(fuse('|{"a":1}| |{"b":"x"}|'), [
    'error("cannot yet use maps in shaping functions (issue #2894)")',
    'error("cannot yet use maps in shaping functions (issue #2894)")',
  ]);
  // Error values pass unchanged. {a:null} fuses into the union's record
  // member {a:int64}, but the reference then finds no member for its own type
  // and leaves it as it is.
  assert.deepEqual(fuse('{a:1} error("x") {a:null}'), [
    "{a:1}(({a:int64},error(string)))",
    'error("x")',
    "{a:null}",
  ]);
  assert.deepEqual(fuse("{a:null,b:1} {a:2}"), ["{a:null(int64),b:1}", "{a:2,b:null(int64)}"]);
  assert.deepEqual(fuse(""), []);
});

Deno.test("fuse: unions in the input are re-tagged", () => {
  assert.deepEqual(fuse('1((int64,string)) 10.0.0.1 "x"((int64,string))'), [
    "1((int64,string,ip))",
    "10.0.0.1((int64,string,ip))",
    '"x"((int64,string,ip))',
  ]);
});

Deno.test("fuse before a head keeps only the head's values, fused with every type", async () => {
  const input = '{a:1,b:"x"} {c:2.5} {a:3,c:1.} {b:"y",a:4} 5 {a:null}';
  const all = fuse(input);
  for (const n of [1, 2, 3, 10]) {
    assert.deepEqual(runBoth((next) => new Fuse(next, n), input), all.slice(0, n));
    assert.deepEqual(await queryLines(`fuse | head ${n}`, input), all.slice(0, n));
  }
});
