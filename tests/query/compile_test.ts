import assert from "node:assert/strict";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { lines } from "./helpers.ts";

function compileError(q: string): string {
  try {
    compileQuery(q);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`no error for ${q}`);
}

Deno.test("implied operators: filter, yield, put, summarize", async () => {
  assert.deepEqual(await lines("x==1", "{x:1} {x:2}"), ["{x:1}"]);
  assert.deepEqual(await lines("x+1", "{x:1} {x:2}"), ["2", "3"]);
  assert.deepEqual(await lines("y:=x*2", "{x:1}"), ["{x:1,y:2}"]);
  assert.deepEqual(await lines("c:=count()", "{x:1} {x:2}"), ["{c:2(uint64)}"]);
  assert.deepEqual(await lines("count()", "1 2 3"), ["{count:3(uint64)}"]);
  assert.deepEqual(await lines("is(<int64>)", '1 "a"'), ["1"]);
  assert.deepEqual(await lines("foo", '"foo" {s:"bar"} {foo:1}'), ['"foo"', "{foo:1}"]);
  assert.deepEqual(await lines("*", "1 2"), ["1", "2"]);
});

Deno.test("Zui's pagination query uses a running count in a record literal", async () => {
  const q = "* | { i: count(), v: this} | i > 1 | head 2 | yield v";
  assert.deepEqual(await lines(q, '"a" "b" "c" "d" "e"'), ['"b"', '"c"']);
});

Deno.test("constants, types and scoping", async () => {
  assert.deepEqual(await lines("const x = 2 yield this * x", "1 2"), ["2", "4"]);
  assert.deepEqual(await lines("type port=uint16 cast(this, <port>)", "80"), ["80(port=uint16)"]);
  const nested = [
    "const a = 1",
    "switch this.a (",
    "  case 1 => const a = 10 const b = 20 yield {k:0,a:[101, a, b]}",
    "  case 2 => const b = 30 yield {k:1,a:[102, a, b, this.a]}",
    "  case 3 => yield {k:2,a:[103, a, b]}",
    ") | sort k",
  ].join("\n");
  assert.deepEqual(await lines(nested, "{a:1,b:1001}{a:2,b:1002}{a:3,b:1003}"), [
    "{k:0,a:[101,10,20]}",
    "{k:1,a:[102,1,30,2]}",
    "{k:2,a:[103,1,1003]}",
  ]);
});

Deno.test("fork and switch combine their legs", async () => {
  assert.deepEqual(await lines("fork (=>pass =>pass) | sort this", "1 2"), ["1", "1", "2", "2"]);
  const sw = "switch ( case this%2==0 => {even:this} case this%2==1 => {odd:this}) | sort odd,even";
  assert.deepEqual(await lines(sw, "1 2 3 4"), ["{odd:1}", "{odd:3}", "{even:2}", "{even:4}"]);
  assert.deepEqual(
    await lines(
      'switch this ( case 1 => yield "1!" default => yield string(this) ) | sort',
      "1 2 3",
    ),
    ['"1!"', '"2"', '"3"'],
  );
});

Deno.test("head stops the input early", async () => {
  const many = Array.from({ length: 5000 }, (_, i) => String(i)).join(" ");
  assert.deepEqual(await lines("head 2", many), ["0", "1"]);
});

Deno.test("summarize names and keys", async () => {
  assert.deepEqual(await lines("count() by lower(s) | sort this", '{s:"A"} {s:"a"}'), [
    '{lower:"a",count:2(uint64)}',
  ]);
  assert.deepEqual(await lines("sum(x) by every(1h) | sort", "{ts:2021-02-01T12:00:01Z,x:1}"), [
    "{ts:2021-02-01T12:00:00Z,sum:1}",
  ]);
});

Deno.test("compile-time errors carry the reference's messages", () => {
  assert.equal(compileError("cut this:=a"), "cannot assign to 'this'");
  assert.equal(compileError("count() by this"), "cannot assign to 'this'");
  assert.equal(compileError("count(), count()"), 'duplicate field: "count"');
  assert.equal(
    compileError("cut rec.sub1,other,rec.sub2"),
    "fields in record rec must be adjacent",
  );
  assert.equal(compileError("cut rec.sub,rec.sub.sub"), 'duplicate field: "rec.sub.sub"');
  assert.equal(compileError("rename dst:=id.resp_h"), "cannot rename id.resp_h to dst");
  assert.equal(compileError("const t=a put x:=t"), 'const "t": cannot have variable dependency');
  assert.equal(
    compileError("cut hex := hex(this) where this % 2 == 0"),
    "rhs of assignment expression: 'where' clause on non-aggregation function: hex",
  );
  assert.equal(
    compileError("a:=1, b:=count()"),
    "mix of aggregations and non-aggregations in assignment list",
  );
  assert.equal(compileError("const x=1 const x=2 pass"), 'symbol "x" redefined');
  assert.equal(compileError("nosuch(1)"), "nosuch(): no such function");
  assert.equal(
    compileError("switch x ( case y => pass )"),
    "switch case is not a constant expression",
  );
  assert.equal(compileError("cut x+1"), "illegal left-hand side of assignment'");
});

Deno.test("a leading filter is lifted into the inputs: errors and non-bools drop", async () => {
  const input = '1 "foo" true';
  // As the reference's scanner applies it (zq prints only true) ...
  assert.deepEqual(await lines("where this", input), ["true"]);
  assert.deepEqual(await lines('where error("boom")', input), []);
  assert.deepEqual(await lines("len(this) > 1", input), ['"foo"']);
  assert.deepEqual(await lines("where len(this) > 1 | count()", input), ["{count:1(uint64)}"]);
  // ... while a filter after another operator emits them.
  assert.deepEqual(await lines("yield this | where this", input), [
    'error("not type bool: 1")',
    'error("not type bool: \\"foo\\"")',
    "true",
  ]);
  assert.deepEqual(await lines("pass | where len(this) > 1", input), [
    'error("len: bad type: int64")',
    '"foo"',
    'error("len: bad type: bool")',
  ]);
});
