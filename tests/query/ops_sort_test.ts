import assert from "node:assert/strict";
import { Head } from "../../lib/query/ops/head.ts";
import { guessSortKey, Sort } from "../../lib/query/ops/sort.ts";
import { Tail } from "../../lib/query/ops/tail.ts";
import { Uniq } from "../../lib/query/ops/uniq.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { Collector } from "../../lib/query/runtime/op.ts";
import { TypeInt64, TypeString } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import { f, lines, run, runBoth, values } from "./ops_helpers.ts";

function sort(keys: Expr[], flags = ""): (input: string) => string[] {
  const words = flags.split(" ");
  const opts = { reverse: words.includes("r"), nullsFirst: words.includes("first") };
  return (input) => runBoth((next) => new Sort(next, keys, opts), input);
}

const lower: Expr = (v) => new Value(TypeString, (v.body as string).toLowerCase());
const len: Expr = (v) => new Value(TypeInt64, (v.body as string).length);

Deno.test("sort: docs examples", () => {
  assert.deepEqual(sort([f()])("2 null 1 3"), ["1", "2", "3", "null"]);
  assert.deepEqual(sort([], "first")("2 null 1 3"), ["null", "1", "2", "3"]);
  assert.deepEqual(sort([])('{s:"bar",k:2}{s:"bar",k:3}{s:"foo",k:1}'), [
    '{s:"foo",k:1}',
    '{s:"bar",k:2}',
    '{s:"bar",k:3}',
  ]);
  assert.deepEqual(sort([f("k"), f("s")])('{s:"bar",k:2}{s:"bar",k:3}{s:"foo",k:2}'), [
    '{s:"bar",k:2}',
    '{s:"foo",k:2}',
    '{s:"bar",k:3}',
  ]);
  assert.deepEqual(sort([])('"foo" "bar" "BAZ"'), ['"BAZ"', '"bar"', '"foo"']);
  assert.deepEqual(sort([lower])('"foo" "C" "a" "Bar"'), ['"a"', '"Bar"', '"C"', '"foo"']);
  assert.deepEqual(sort([len])('"333" "22" "1"'), ['"1"', '"22"', '"333"']);
  // summarize count() by color | sort: the key guessed is count.
  assert.deepEqual(
    sort([])('{color:"brown",count:2(uint64)} {color:"red",count:1(uint64)}'),
    ['{color:"red",count:1(uint64)}', '{color:"brown",count:2(uint64)}'],
  );
});

Deno.test("sort: numbers of mixed types (numbers.yaml)", () => {
  const input = `16(uint16) 32(uint32) 64(uint64) -16(int16) -32(int32) -64 -32.32(float32)
    32.32(float32) -64.64 64.64`;
  assert.deepEqual(
    sort([])(input),
    lines(`-64.64
      -64
      -32.32(float32)
      -32(int32)
      -16(int16)
      16(uint16)
      32(uint32)
      32.32(float32)
      64(uint64)
      64.64`),
  );
});

Deno.test("sort: guessed keys (pick-nested-field, pick-named-field)", () => {
  assert.deepEqual(sort([])('{a:"1",b:{c:2}} {a:"2",b:{c:1}}'), [
    '{a:"2",b:{c:1}}',
    '{a:"1",b:{c:2}}',
  ]);
  assert.deepEqual(sort([])('{a:"1",b:2(=named)} {a:"2",b:1(=named)}'), [
    '{a:"2",b:1(=named)}',
    '{a:"1",b:2(=named)}',
  ]);
  const key = (zson: string) => guessSortKey(values(zson)[0]);
  assert.deepEqual(key("1"), []);
  assert.deepEqual(key('{a:"x",b:{c:1.5},d:2(uint8)}'), ["d"]);
  assert.deepEqual(key('{a:"x",b:{c:1.5}}'), ["b", "c"]);
  assert.deepEqual(key('{t:2020-01-01T00:00:00Z,r:{s:"x"}}'), ["r"]);
  assert.deepEqual(key("{t:2020-01-01T00:00:00Z}"), ["ts"]);
});

Deno.test("sort: nulls and missing (sort-4-*)", () => {
  const input = '{s:"b"} {s:"c"} {s:"a"} {s:null(string)} {notS:"bleah"}';
  const s = [f("s")];
  assert.deepEqual(
    sort(s, "last")(input),
    lines(`{s:"a"}
      {s:"b"}
      {s:"c"}
      {s:null(string)}
      {notS:"bleah"}`),
  );
  assert.deepEqual(
    sort(s, "first")(input),
    lines(`{s:null(string)}
      {notS:"bleah"}
      {s:"a"}
      {s:"b"}
      {s:"c"}`),
  );
  assert.deepEqual(
    sort(s, "r last")(input),
    lines(`{s:"c"}
      {s:"b"}
      {s:"a"}
      {s:null(string)}
      {notS:"bleah"}`),
  );
  assert.deepEqual(
    sort(s, "r first")(input),
    lines(`{s:null(string)}
      {notS:"bleah"}
      {s:"c"}
      {s:"b"}
      {s:"a"}`),
  );
});

Deno.test("sort: sort-first-field-always-null, sort-named, sets, arrays", () => {
  assert.deepEqual(
    sort([f("x"), f("y")])("{x:null(int64),y:2} {x:null(int64),y:1} {x:null(int64),y:3}"),
    ["{x:null(int64),y:1}", "{x:null(int64),y:2}", "{x:null(int64),y:3}"],
  );
  assert.deepEqual(sort([f("host")])("{host:127.0.0.2} {host:127.0.0.1(=ipaddr)}"), [
    "{host:127.0.0.1(=ipaddr)}",
    "{host:127.0.0.2}",
  ]);
  assert.deepEqual(
    sort([])("|[192.168.1.2,192.168.1.10,192.179.1.1]| |[192.168.1.2,192.168.1.10]|"),
    ["|[192.168.1.2,192.168.1.10]|", "|[192.168.1.2,192.168.1.10,192.179.1.1]|"],
  );
  assert.deepEqual(sort([])("|[192.168.1.2,192.168.1.10]| |[192.168.0.2,192.168.1.10]|"), [
    "|[192.168.0.2,192.168.1.10]|",
    "|[192.168.1.2,192.168.1.10]|",
  ]);
  assert.deepEqual(
    sort([f("TTLs")])(`{TTLs:[0s,4m30s],count:1(uint64)} {TTLs:[0s,0s],count:4(uint64)}
      {TTLs:[0s,4h6m39s,1s],count:1(uint64)} {TTLs:[0s],count:18(uint64)}
      {TTLs:[0s,53s],count:1(uint64)} {TTLs:[0s,2s,2s],count:3(uint64)}`),
    lines(`{TTLs:[0s],count:18(uint64)}
      {TTLs:[0s,0s],count:4(uint64)}
      {TTLs:[0s,2s,2s],count:3(uint64)}
      {TTLs:[0s,53s],count:1(uint64)}
      {TTLs:[0s,4m30s],count:1(uint64)}
      {TTLs:[0s,4h6m39s,1s],count:1(uint64)}`),
  );
});

Deno.test("sort: type values in type order (sort-types)", () => {
  const expected = `<uint8> <uint16> <uint32> <uint64> <int8> <int16> <int32> <int64> <duration>
    <time> <float32> <float64> <bool> <bytes> <string> <ip> <net> <named=type> <null>
    <{x:uint16}> <{x:string}> <{x:int64,y:int64}> <[uint8]> <[net]> <|[time]|> <|[ip]|>
    <|{float64:uint8}|> <|{float64:string}|> <|{bool:string}|> <({a:net},{x:int64})>
    <({x:int64},{x:string})> <({x:string},{x:int64,y:int64})> <enum(a,b,c)> <enum(b,c,d)>
    <error(enum(a,c,d))> <error(enum(b,c,d))>`;
  const want = expected.split(/\s+/).filter((s) => s !== "");
  const shuffled = want.slice().reverse();
  [shuffled[0], shuffled[7]] = [shuffled[7], shuffled[0]];
  assert.deepEqual(sort([f()])(shuffled.join(" ")), want);
});

Deno.test("sort: mixed types compare by type name; records byte-wise", () => {
  assert.deepEqual(sort([f()])('"foo" 10.0.0.1 1'), ["1", "10.0.0.1", '"foo"']);
  // {ts} records compare by their encodings, not numerically (groupby.yaml).
  assert.deepEqual(
    sort([f()])(`{ts:1970-01-01T00:00:01Z,count:2(uint64)} {ts:1970-01-01T00:00:03Z,count:1(uint64)}
      {ts:1970-01-01T00:00:02Z,count:1(uint64)} {ts:null(time),count:1(uint64)}`),
    lines(`{ts:null(time),count:1(uint64)}
      {ts:1970-01-01T00:00:02Z,count:1(uint64)}
      {ts:1970-01-01T00:00:01Z,count:2(uint64)}
      {ts:1970-01-01T00:00:03Z,count:1(uint64)}`),
  );
});

Deno.test("sort: integer keys sort numerically only when all are integers", () => {
  assert.deepEqual(sort([f()])("1(int8) -2(int8) 0(int8)"), ["-2(int8)", "0(int8)", "1(int8)"]);
  // With a non-integer key present, int8 compares by its zig-zag bytes.
  assert.deepEqual(sort([f()])('1(int8) -2(int8) "a"'), ["1(int8)", "-2(int8)", '"a"']);
  assert.deepEqual(
    sort([f()])("18446744073709551615(uint64) 9223372036854775807 18446744073709551614(uint64)"),
    ["9223372036854775807", "18446744073709551614(uint64)", "18446744073709551615(uint64)"],
  );
});

Deno.test("sort: stable in both directions", () => {
  const input = "{k:1,i:1} {k:0,i:2} {k:1,i:3} {k:0,i:4}";
  assert.deepEqual(sort([f("k")])(input), ["{k:0,i:2}", "{k:0,i:4}", "{k:1,i:1}", "{k:1,i:3}"]);
  assert.deepEqual(sort([f("k")], "r")(input), [
    "{k:1,i:1}",
    "{k:1,i:3}",
    "{k:0,i:2}",
    "{k:0,i:4}",
  ]);
});

Deno.test("sort: empty input, and stopping when downstream is done", () => {
  assert.deepEqual(sort([f("foo")])(""), []);
  const sink = new Collector();
  const s = new Sort(new Head(sink, 1), [f()], { reverse: false, nullsFirst: false });
  s.push(values("3 1 2"));
  s.end();
  assert.deepEqual(sink.take().flat().map((v) => v.body), [1]);
  assert.equal(sink.ended, true);
});

Deno.test("head: docs examples", () => {
  const head = (n: number) => (input: string) => runBoth((next) => new Head(next, n), input);
  assert.deepEqual(head(2)('1 "foo" [1,2,3]'), ["1", '"foo"']);
  assert.deepEqual(head(1)('{a:"hello"}{b:"world"}'), ['{a:"hello"}']);
  assert.deepEqual(head(0)("1 2"), ["1"]);
  assert.deepEqual(head(5)("1 2"), ["1", "2"]);
});

Deno.test("head: reports done and ignores later input", () => {
  const sink = new Collector();
  const h = new Head(sink, 3);
  h.push(values("1 2"));
  assert.equal(h.done, false);
  h.push(values("3 4 5"));
  assert.equal(h.done, true);
  h.push(values("6"));
  h.end();
  assert.deepEqual(sink.take().flat().map((v) => v.body), [1, 2, 3]);
  // The stream read stops as soon as head is done.
  assert.deepEqual(run((next) => new Head(next, 2), "1 2 3 4", 1), ["1", "2"]);
});

Deno.test("tail: docs examples", () => {
  const tail = (n: number) => (input: string) => runBoth((next) => new Tail(next, n), input);
  assert.deepEqual(tail(2)('1 "foo" [1,2,3]'), ['"foo"', "[1,2,3]"]);
  assert.deepEqual(tail(2)('{x:"first"}'), ['{x:"first"}']);
  assert.deepEqual(tail(0)("1 2 3"), ["3"]);
  assert.deepEqual(tail(1)(""), []);
  const many = Array.from({ length: 5000 }, (_, i) => String(i)).join(" ");
  assert.deepEqual(run((next) => new Tail(next, 3), many, 7), ["4997", "4998", "4999"]);
});

Deno.test("uniq: docs examples", () => {
  const uniq = (c: boolean) => (input: string) => runBoth((next) => new Uniq(next, c), input);
  assert.deepEqual(uniq(false)("1 2 2 3"), ["1", "2", "3"]);
  assert.deepEqual(uniq(true)("1 2 2 3"), [
    "{value:1,count:1(uint64)}",
    "{value:2,count:2(uint64)}",
    "{value:3,count:1(uint64)}",
  ]);
  assert.deepEqual(uniq(true)("1 1 {x:1}"), [
    "{value:1,count:2(uint64)}",
    "{value:{x:1},count:1(uint64)}",
  ]);
});

Deno.test("uniq: equality is by encoded body, type ignored, adjacency only", () => {
  const uniq = (input: string) => runBoth((next) => new Uniq(next, false), input);
  assert.deepEqual(uniq("1 1(int32) 1(uint64) 2"), ["1", "1(uint64)", "2"]);
  // Runs across types after runs within one: each comparison sees the value before.
  const counted = (input: string) => runBoth((next) => new Uniq(next, true), input);
  assert.deepEqual(counted("1 1(int32) 2 2(int32) 2(int16) 3(int16) 3"), [
    "{value:1,count:2(uint64)}",
    "{value:2,count:3(uint64)}",
    "{value:3(int16),count:2(uint64)}",
  ]);
  assert.deepEqual(uniq('"a" "a" "b" "a"'), ['"a"', '"b"', '"a"']);
  assert.deepEqual(uniq('null "" 0'), ["null"]);
  assert.deepEqual(uniq("{a:1} {b:1} {a:2}"), ["{a:1}", "{a:2}"]);
  // Records of other types, of as many fields or not, and an array of their bodies.
  assert.deepEqual(
    counted("{a:1,b:2} [1,2] {x:1,y:2} {c:1} {a:1,b:2,c:3} {a:1,b:{c:2}} {x:1,y:{z:2}}"),
    [
      "{value:{a:1,b:2},count:3(uint64)}",
      "{value:{c:1},count:1(uint64)}",
      "{value:{a:1,b:2,c:3},count:1(uint64)}",
      "{value:{a:1,b:{c:2}},count:2(uint64)}",
    ],
  );
  // -0 and 0 encode differently (both print as 0.).
  assert.deepEqual(uniq("1. 1. -0. 0. NaN NaN"), ["1.", "0.", "0.", "NaN"]);
  assert.deepEqual(uniq(""), []);
  // Same-type values compare structurally, nulls inside containers included.
  assert.deepEqual(uniq('{a:null(string)} {a:""} {a:""} {a:null(string)}'), [
    "{a:null(string)}",
    '{a:""}',
    "{a:null(string)}",
  ]);
  assert.deepEqual(uniq("[1,2] [1,2] [1,2,3] |{1:[0x01]}| |{1:[0x01]}| |{1:[0x02]}|"), [
    "[1,2]",
    "[1,2,3]",
    "|{1:[0x01]}|",
    "|{1:[0x02]}|",
  ]);
  assert.deepEqual(uniq('1((int64,string)) "1"((int64,string)) "1"((int64,string))'), [
    "1((int64,string))",
    '"1"((int64,string))',
  ]);
});
