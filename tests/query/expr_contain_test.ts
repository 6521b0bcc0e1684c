import assert from "node:assert/strict";
import { compileIn, contains, walkValue } from "../../lib/query/expr/contain.ts";
import { compileOr } from "../../lib/query/expr/logic.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { each, f, k, self, show, z } from "./expr_helpers.ts";

/** elem in container where elem is the constant written in ZSON (path A when it applies). */
function constIn(elem: string, container: Expr): Expr {
  return compileIn(k(elem), container, z(elem));
}

Deno.test("in: 1 in this walks the value depth-first", () => {
  assert.deepEqual(
    each(constIn("1", self), ["{a:[1,2]}", "{b:{c:3}}", "{d:{e:1}}"]),
    ["true", "false", "true"],
  );
});

Deno.test("in: elements of arrays and sets (complex-in, complex-in-set)", () => {
  const inputs = ["{a:2}", "{a:4}", "{a:6}"];
  assert.deepEqual(each(compileIn(f("a"), k("[1,2,3]")), inputs), ["true", "false", "false"]);
  assert.deepEqual(each(compileIn(f("a"), k("|[1,2,3]|")), inputs), ["true", "false", "false"]);
  // where id in [1,2]
  assert.deepEqual(each(compileIn(f("id"), k("[1,2]")), ["{id:1}", "{id:2}", "{id:3}"]), [
    "true",
    "true",
    "false",
  ]);
});

Deno.test("in: in-field ztest (2 matches 2(uint32) through path A)", () => {
  assert.deepEqual(
    each(constIn("2", f("a")), [
      "{a:[1(uint32),2(uint32)]}",
      "{a:[1(uint32)]}",
      "{a:[2(uint32),3(uint32)]}",
    ]),
    ["true", "false", "true"],
  );
});

Deno.test("in: in-map ztest", () => {
  const m = k('|{"a":1,"b":2}|');
  const b1 = compileIn(f("x"), m);
  const b2 = constIn('"a"', f("a"));
  const inputs = ['{x:"a"}', "{x:1}", "{x:10}", "{y:1}", '{a:|{"a":"hello"}|}'];
  assert.deepEqual(each(b1, inputs), [
    "true",
    "true",
    "false",
    'error("missing")',
    'error("missing")',
  ]);
  assert.deepEqual(each(b2, inputs), [
    'error("missing")',
    'error("missing")',
    'error("missing")',
    'error("missing")',
    "true",
  ]);
});

Deno.test("in: time constant in this (time-dur ztest b4)", () => {
  const e = constIn("2018-03-24T17:15:56.6Z", self);
  assert.deepEqual(
    each(e, [
      "{t:2018-03-24T17:15:56.4Z,d:1m}",
      "{t:2018-03-24T17:15:56.5Z,d:1y}",
      "{t:2018-03-24T17:15:56.6Z,d:1y3m}",
    ]),
    ["false", "false", "true"],
  );
});

Deno.test("in: ipv6-in ztest", () => {
  const e = compileOr(
    compileOr(
      compileOr(
        constIn("fe80::58d2:2d09:e8cb:a8ad", f("a")),
        constIn("::58d2:2d09:e8cb:a8ad", f("a")),
      ),
      constIn("2d09:e8cb:a8ad::", f("a")),
    ),
    constIn("::", f("a")),
  );
  assert.deepEqual(
    each(e, [
      "{a:[fe80::58d2:2d09:e8cb:a8ad]}",
      "{a:[::58d2:2d09:e8cb:a8ad]}",
      "{a:[2d09:e8cb:a8ad::]}",
      "{a:[::]}",
      "{a:[10.0.0.1]}",
    ]),
    ["true", "true", "true", "true", "false"],
  );
});

Deno.test("in: the container itself is visited, so x in 5 is x == 5", () => {
  assert.deepEqual(each(compileIn(f("x"), k("5")), ["{x:5}", "{x:5.}", "{x:6}"]), [
    "true",
    "true",
    "false",
  ]);
  assert.deepEqual(each(constIn("5", f("x")), ["{x:5(uint8)}", "{x:[5]}", '{x:"5"}']), [
    "true",
    "true",
    "false",
  ]);
});

Deno.test("in: errors, unions, error payloads and map keys", () => {
  assert.equal(show(contains(z("1"), z('error("x")'))), "false"); // error containers are walked here
  assert.equal(show(compileIn(k("1"), k('error("boom")'))(z("{}"))), 'error("boom")');
  assert.equal(show(compileIn(f("e"), k("[1]"))(z('{e:error("x")}'))), 'error("x")');
  assert.equal(show(contains(z('"a"'), z('[1((int64,string)),"a"((int64,string))]'))), "true");
  assert.equal(show(contains(z("3"), z("{e:error({x:3})}"))), "true");
  assert.equal(show(contains(z('"k"'), z('|{"k":1}|'))), "true");
  assert.equal(show(contains(z("null"), z("[1,null]"))), "true");
  assert.equal(show(contains(z("null(string)"), z("[1]"))), "false");
  // Incompatible elements are skipped; a record equals a record.
  assert.equal(show(contains(z("{a:1}"), z('["x",{a:1}]'))), "true");
  assert.equal(show(contains(z("{a:1}"), z('["x",{a:2}]'))), "false");
});

Deno.test("in: a signed/unsigned overflow is an error in the general path", () => {
  assert.equal(
    show(contains(z("-1"), z("[18446744073709551615(uint64)]"))),
    'error("integer overflow: uint64 value too large for int64")',
  );
  assert.equal(show(contains(z("1"), z("[18446744073709551615(uint64),1(uint64)]"))), "true");
  // A constant int64 elem uses path A: large uint64s just do not match.
  assert.equal(show(constIn("-1", k("[18446744073709551615(uint64)]"))(z("{}"))), "false");
});

Deno.test("in: null constant elem matches null values inside", () => {
  assert.deepEqual(each(constIn("null", f("a")), ["{a:[1,null]}", "{a:[1]}", "{a:null}"]), [
    "true",
    "false",
    "true",
  ]);
});

Deno.test("walkValue: visits in depth-first order, container first", () => {
  const v = z('{a:[1,2],m:|{"k":{b:3}}|,u:4((int64,string)),e:error("x")}');
  const seen: string[] = [];
  walkValue(v.type, v.body, (t, b) => {
    seen.push(formatZson(t, b));
    return false;
  });
  assert.deepEqual(seen, [
    show(v),
    "[1,2]",
    "1",
    "2",
    '|{"k":{b:3}}|',
    '"k"',
    "{b:3}",
    "3",
    "4((int64,string))",
    "4",
    'error("x")',
    '"x"',
  ]);
});
