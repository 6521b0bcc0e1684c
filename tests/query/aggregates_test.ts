// The aggregate functions (language.md §7): every example of §7.1 and §7.2,
// the reference's runtime/expr/agg ztests that need no other operator, and
// the numeric accumulator and fusion rules.

import assert from "node:assert/strict";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { parseZsonType, parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { fuseTypes } from "../../lib/query/aggregates/fuse-type.ts";
import { isAggregateName, lookupAggregate } from "../../lib/query/aggregates/mod.ts";
import type { AggregateDef } from "../../lib/query/aggregates/registry.ts";
import { makeRunningAggregate, Summarize } from "../../lib/query/ops/summarize.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { Collector } from "../../lib/query/runtime/op.ts";
import { boolValue, fieldOf, MISSING } from "../../lib/query/runtime/values.ts";
import { zctx } from "../../lib/zed/context.ts";
import { formatType } from "../../lib/zed/typetext.ts";
import { Value } from "../../lib/zed/value.ts";

// ---- helpers -------------------------------------------------------------

function def(name: string): AggregateDef {
  const d = lookupAggregate(name);
  assert.ok(d, `aggregate ${name} registered`);
  return d;
}

/** Parses space-separated scalars or a list of ZSON values. */
function values(input: string | string[]): Value[] {
  const texts = typeof input === "string" ? input.trim().split(/\s+/) : input;
  return texts.map((t) => parseZsonValue(t));
}

const self: Expr = (v) => v;

function field(name: string): Expr {
  return (v) => fieldOf(v, name) ?? MISSING;
}

/** A numeric comparison of an expression with a constant; missing stays missing. */
function cmp(e: Expr, op: ">" | ">=" | "<", n: number): Expr {
  return (v) => {
    const x = e(v);
    if (x === MISSING) return MISSING;
    const a = Number(x.body);
    return boolValue(op === ">" ? a > n : op === ">=" ? a >= n : a < n);
  };
}

interface Agg {
  name: string;
  as?: string;
  arg?: Expr;
  where?: Expr;
}

/** summarize with no keys: the one output record as ZSON (or none). */
function summarize(input: string | string[], aggs: Agg[]): string[] {
  const out = new Collector();
  const op = new Summarize(
    out,
    [],
    aggs.map((a) => ({ path: [a.as ?? a.name], def: def(a.name), arg: a.arg, where: a.where })),
  );
  const vals = values(input);
  if (vals.length > 0) op.push(vals);
  op.end();
  assert.ok(out.ended);
  return out.take().flat().map((v) => formatZson(v.type, v.body));
}

/** One aggregate call, summarize-style, with argument `this`. */
function one(name: string, input: string | string[]): string {
  const out = summarize(input, [{ name, arg: self }]);
  assert.equal(out.length, 1);
  return out[0];
}

/** A running aggregate (yield name(arg)) over the input: one result per value. */
function running(name: string, input: string | string[], arg?: Expr, where?: Expr): string[] {
  const e = makeRunningAggregate(def(name), arg, where);
  return values(input).map((v) => {
    const r = e(v);
    return formatZson(r.type, r.body);
  });
}

/** A map literal |{k:v}| built from two fields. */
function mapOf(k: string, val: string): Expr {
  return (v) => {
    const kv = fieldOf(v, k)!, vv = fieldOf(v, val)!;
    return new Value(zctx.lookupMap(kv.type, vv.type), [kv.body, vv.body]);
  };
}

// ---- registry ------------------------------------------------------------

Deno.test("every aggregate name is registered with its arity", () => {
  const names = "and any avg collect count dcount fuse map max min or sum union".split(" ");
  for (const n of names) {
    assert.ok(isAggregateName(n), n);
    assert.equal(def(n).min, n === "count" ? 0 : 1, n);
    assert.equal(def(n).max, 1, n);
  }
  assert.equal(isAggregateName("countdistinct"), false);
});

// ---- §7.1 examples (summarize context) ------------------------------------

Deno.test("§7.1: and, or, any", () => {
  assert.equal(one("and", "true false true"), "{and:false}");
  assert.equal(one("or", "false true false"), "{or:true}");
  assert.equal(one("any", "1 2 3 4"), "{any:1}");
  assert.equal(one("any", ['"foo"', "1", "2", "3"]), '{any:"foo"}');
});

Deno.test("§7.1: avg, collect, count, dcount skip or keep non-numbers as documented", () => {
  assert.equal(one("avg", '1 2 3 4 "foo"'), "{avg:2.5}");
  assert.equal(one("collect", '1 2 3 4 "foo"'), '{collect:[1,2,3,4,"foo"]}');
  assert.equal(summarize("1 2 3", [{ name: "count" }])[0], "{count:3(uint64)}");
  assert.equal(one("dcount", "1 2 2 3"), "{dcount:3(uint64)}");
});

Deno.test("§7.1: collect of mixed types has a union element type", () => {
  const out = new Collector();
  const op = new Summarize(out, [], [{ path: ["collect"], def: def("collect"), arg: self }]);
  op.push(values('1 2 3 4 "foo"'));
  op.end();
  const [v] = out.take()[0];
  assert.equal(formatType(v.type), "{collect:[(int64,string)]}");
});

Deno.test("§7.1: fuse", () => {
  assert.equal(one("fuse", ["{a:1,b:2}", '{a:2,b:"foo"}']), "{fuse:<{a:int64,b:(int64,string)}>}");
});

Deno.test("§7.1: map merges map values", () => {
  const out = summarize(['{stock:"APPL",price:145.03}', '{stock:"GOOG",price:87.07}'], [
    { name: "map", arg: mapOf("stock", "price") },
  ]);
  assert.deepEqual(out, ['{map:|{"APPL":145.03,"GOOG":87.07}|}']);
});

Deno.test("§7.1: max, min, sum ignore strings", () => {
  assert.equal(one("max", '1 2 3 4 "foo"'), "{max:4}");
  assert.equal(one("min", '1 2 3 4 "foo"'), "{min:1}");
  assert.equal(one("sum", '1 2 3 4 "foo"'), "{sum:10}");
  assert.equal(one("union", "1 2 3 3"), "{union:|[1,2,3]|}");
});

Deno.test("§7.1 / math-coercion.yaml: an int accumulator turns float64", () => {
  const out = summarize("2 2.5", [
    { name: "sum", arg: self },
    { name: "max", arg: self },
    { name: "min", arg: self },
    { name: "avg", arg: self },
  ]);
  assert.deepEqual(out, ["{sum:4.5,max:2.5,min:2.,avg:2.25}"]);
});

Deno.test("§7.1 / null.yaml: typed nulls select the accumulator type", () => {
  const x = field("x");
  const out = summarize(
    [
      "{x:null(uint64)}",
      "{x:null(float64)}",
      "{x:null(int64)}",
      "{x:null(duration)}",
      "{x:null(time)}",
    ],
    ["avg", "count", "dcount", "any", "max", "min", "sum"].map((name) => ({ name, arg: x })),
  );
  assert.deepEqual(out, [
    "{avg:null(float64),count:5(uint64),dcount:5(uint64),any:null(uint64),max:null(float64),min:null(float64),sum:null(float64)}",
  ]);
});

Deno.test("§7.1 / collect-union.yaml: collect of records of different types", () => {
  assert.equal(one("collect", ["{a:1}", "{b:1.5}", "{a:2}"]), "{collect:[{a:1},{b:1.5},{a:2}]}");
});

Deno.test("§7.1 / container.yaml: union and collect of int32", () => {
  const input = ["1", "-1", "2", "1", "8", "1"].map((n) => `{x:${n}(int32)}`);
  assert.deepEqual(summarize(input, [{ name: "union", arg: field("x") }]), [
    "{union:|[1(int32),-1(int32),2(int32),8(int32)]|}",
  ]);
  assert.deepEqual(summarize(input, [{ name: "collect", arg: field("x") }]), [
    "{collect:[1(int32),-1(int32),2(int32),1(int32),8(int32),1(int32)]}",
  ]);
});

Deno.test("§7.1 / union-single-union-type.yaml: a union-typed value keeps its type", () => {
  const r = running("union", ["1((int64,string))", "1((int64,string))"], self);
  assert.equal(r[1], "|[1]|(|[(int64,string)]|)");
});

Deno.test("§7.1 / map.yaml: later entries win, keys in normalized order", () => {
  const input = [
    ["APPL", "150.94"],
    ["GOOG", "91.22"],
    ["APPL", "160.94"],
    ["SBUX", "87.30"],
    ["NKE", "94.12"],
    ["TMUS", "152.22"],
  ].map(([s, p]) => `{stock:"${s}",price:${p}}`);
  const r = running("map", input, mapOf("stock", "price"));
  assert.equal(r[5], '|{"NKE":94.12,"APPL":160.94,"GOOG":91.22,"SBUX":87.3,"TMUS":152.22}|');
});

Deno.test("map-union.yaml: union keys and values are stored as their members", () => {
  const input = [
    '{k:"foo"(=my_string),v:"bar"((int64,string))}',
    "{k:1(my_union=(int32,int64)),v:1}",
    "{k:127.0.0.1,v:127.0.0.1}",
    "{k:2.,v:2.}",
    '{k:["bar","baz"],v:["bar","baz"]}',
  ];
  const bindings = new Map();
  const vals = input.map((t) => parseZsonValue(t, bindings));
  const e = makeRunningAggregate(def("map"), mapOf("k", "v"));
  let r = e(vals[0]);
  for (const v of vals.slice(1)) r = e(v);
  // The reference prints this with -pretty; the entries and order are these.
  assert.equal(
    formatZson(r.type, r.body),
    '|{1:1,"foo"(=my_string):"bar",127.0.0.1:127.0.0.1,2.:2.,["bar","baz"]:["bar","baz"]}|',
  );
});

Deno.test("§7.1 / logical.yaml: and/or with where", () => {
  const x = field("x");
  const out = summarize(["{x:1(int32)}", "{x:2(int32)}", "{x:3(int32)}"], [
    { name: "or", as: "t1", arg: cmp(x, ">", 2) },
    { name: "or", as: "t2", arg: cmp(x, ">", 4) },
    { name: "and", as: "t3", arg: cmp(x, ">", 0) },
    { name: "and", as: "t4", arg: cmp(x, ">", 2) },
    { name: "and", as: "t5", arg: cmp(x, ">", 2), where: cmp(x, ">", 2) },
  ]);
  assert.deepEqual(out, ["{t1:true,t2:false,t3:true,t4:false,t5:true}"]);
});

Deno.test("math.yaml: avg, count, dcount, any, min, max over int32", () => {
  const input = ["{n:0(int32)}", "{n:5(int32)}", "{n:10(int32)}"];
  const n = field("n");
  assert.deepEqual(summarize(input, [{ name: "avg", arg: n }]), ["{avg:5.}"]);
  assert.deepEqual(summarize(input, [{ name: "count" }]), ["{count:3(uint64)}"]);
  assert.deepEqual(summarize([...input, ...input], [{ name: "dcount", arg: n }]), [
    "{dcount:3(uint64)}",
  ]);
  assert.deepEqual(summarize(input, [{ name: "any", arg: n }]), ["{any:0(int32)}"]);
  assert.deepEqual(summarize(input, [{ name: "min", arg: n }]), ["{min:0}"]);
  assert.deepEqual(summarize(input, [{ name: "max", arg: n }]), ["{max:10}"]);
});

Deno.test("args.yaml: count() counts every value", () => {
  assert.deepEqual(summarize(["{}"], [{ name: "count" }]), ["{count:1(uint64)}"]);
});

Deno.test("fuse-container.yaml and fuse-dup.yaml", () => {
  const out = summarize(
    [
      '{a:"hello",r:{x:1(int32),y:2(int32)}}',
      '{r:{y:4(int32),z:5(int32)},s:"world",r2:{x:6(int32)}}',
    ],
    [{ name: "fuse", as: "all", arg: self }, { name: "fuse", as: "r", arg: field("r") }],
  );
  assert.deepEqual(out, [
    "{all:<{a:string,r:{x:int32,y:int32,z:int32},s:string,r2:{x:int32}}>,r:<{x:int32,y:int32,z:int32}>}",
  ]);
  assert.equal(
    one("fuse", ['{a:"hello",b:"world"}', '{a:"goodnight",b:123(int32)}']),
    "{fuse:<{a:string,b:(int32,string)}>}",
  );
});

Deno.test("union.yaml: union of records, mixed scalars, empty arrays", () => {
  const last = (input: string[]) => running("union", input, self).at(-1);
  assert.equal(
    last(['{x:1,s:"a"}', '{x:2,s:"b"}', '{x:1,s:"a"}', '{x:3,s:"e"}']),
    '|[{x:1,s:"a"},{x:2,s:"b"},{x:3,s:"e"}]|',
  );
  assert.equal(last(["1", '"1"', "1"]), '|[1,"1"]|');
  assert.equal(last(["[]([string])", "null([string])"]), "|[[]([string])]|");
});

// ---- §7.2 running aggregates ---------------------------------------------

Deno.test("§7.2: running aggregates return the result so far", () => {
  assert.deepEqual(running("avg", "1 2 3 4", self), ["1.", "1.5", "2.", "2.5"]);
  assert.deepEqual(running("and", "true false true", self), ["true", "false", "false"]);
  assert.deepEqual(running("and", 'true "foo" 0 false true', self), [
    "true",
    "true",
    "true",
    "false",
    "false",
  ]);
  assert.deepEqual(running("or", 'false "foo" 1 true false', self), [
    "false",
    "false",
    "false",
    "true",
    "true",
  ]);
  assert.deepEqual(running("any", "1 2 3 4", self), ["1", "1", "1", "1"]);
  assert.deepEqual(running("collect", "1 2 3 4", self), ["[1]", "[1,2]", "[1,2,3]", "[1,2,3,4]"]);
  assert.deepEqual(running("count", "1 2 3"), ["1(uint64)", "2(uint64)", "3(uint64)"]);
  assert.deepEqual(running("dcount", "1 2 2 3", self), [
    "1(uint64)",
    "2(uint64)",
    "2(uint64)",
    "3(uint64)",
  ]);
  assert.deepEqual(running("max", "1 2 3 4", self), ["1", "2", "3", "4"]);
  assert.deepEqual(running("min", "1 2 3 4", self), ["1", "1", "1", "1"]);
  assert.deepEqual(running("sum", "1 2 3 4", self), ["1", "3", "6", "10"]);
  assert.deepEqual(running("union", "1 2 3 3", self), [
    "|[1]|",
    "|[1,2]|",
    "|[1,2,3]|",
    "|[1,2,3]|",
  ]);
});

Deno.test("§7.2: running map", () => {
  assert.deepEqual(
    running("map", ['|{"APPL":145.03}|', '|{"GOOG":87.07}|', '|{"APPL":150.13}|'], self),
    [
      '|{"APPL":145.03}|',
      '|{"APPL":145.03,"GOOG":87.07}|',
      '|{"APPL":150.13,"GOOG":87.07}|',
    ],
  );
});

Deno.test("§7.2: one accumulator per call site (cut example columns)", () => {
  const input = "1 2 3";
  const odd: Expr = (v) => boolValue(Number(v.body) % 2 === 1);
  const even: Expr = (v) => boolValue(Number(v.body) % 2 === 0);
  assert.deepEqual(running("dcount", input, self), ["1(uint64)", "2(uint64)", "3(uint64)"]);
  assert.deepEqual(running("and", input, odd), ["true", "false", "false"]);
  assert.deepEqual(running("or", input, even), ["false", "true", "true"]);
  assert.deepEqual(running("avg", input, self), ["1.", "1.5", "2."]);
  assert.deepEqual(running("union", input, self), ["|[1]|", "|[1,2]|", "|[1,2,3]|"]);
  // Two call sites of the same aggregate keep separate state.
  const a = makeRunningAggregate(def("count")), b = makeRunningAggregate(def("count"));
  const v = parseZsonValue("1");
  a(v);
  a(v);
  const ra = a(v), rb = b(v);
  assert.equal(formatZson(ra.type, ra.body), "3(uint64)");
  assert.equal(formatZson(rb.type, rb.body), "1(uint64)");
});

Deno.test("§7.2: running sum with where returns untyped null until a value is consumed", () => {
  const even: Expr = (v) => boolValue(Number(v.body) % 2 === 0);
  assert.deepEqual(running("sum", "1 2 3 4 5", self, even), ["null", "2", "2", "6", "6"]);
});

Deno.test("§7.1: missing arguments are not consumed; other errors are", () => {
  const input = ["{x:1}", "{y:2}", "{x:3}"];
  assert.deepEqual(summarize(input, [{ name: "count", arg: field("x") }]), ["{count:2(uint64)}"]);
  assert.deepEqual(summarize(input, [{ name: "collect", arg: field("x") }]), ["{collect:[1,3]}"]);
  const err: Expr = () => parseZsonValue('error("boom")');
  assert.deepEqual(summarize(input, [{ name: "count", arg: err }]), ["{count:3(uint64)}"]);
  assert.deepEqual(summarize(input, [{ name: "any", arg: err }]), ['{any:error("boom")}']);
  assert.deepEqual(summarize(input, [{ name: "sum", arg: err }]), ["{sum:null}"]);
});

Deno.test("§7.1: where must be bool true (null, false, errors and non-bools skip)", () => {
  const whereOf = (text: string): Expr => {
    const w = parseZsonValue(text);
    return () => w;
  };
  for (const w of ["false", "null(bool)", '"true"', "1", 'error("x")']) {
    assert.deepEqual(summarize("1 2", [{ name: "count", where: whereOf(w) }]), [
      "{count:0(uint64)}",
    ], w);
  }
  assert.deepEqual(summarize("1 2", [{ name: "count", where: whereOf("true") }]), [
    "{count:2(uint64)}",
  ]);
});

Deno.test("§7.1: empty results of every aggregate", () => {
  const never: Expr = () => boolValue(false);
  const names = "and any avg collect count dcount fuse map max min or sum union".split(" ");
  const out = summarize("1", names.map((name) => ({ name, arg: self, where: never })));
  assert.deepEqual(out, [
    "{and:null(bool),any:null,avg:null(float64),collect:null,count:0(uint64),dcount:0(uint64),fuse:null(type),map:null,max:null,min:null,or:null(bool),sum:null,union:null}",
  ]);
});

// ---- numeric accumulators ------------------------------------------------

Deno.test("sum/min/max: narrow ints widen; unsigned stay unsigned; durations and times", () => {
  assert.equal(one("min", ["1(int8)", "-3(int16)"]), "{min:-3}");
  assert.equal(one("sum", ["1(uint8)", "2(uint32)"]), "{sum:3(uint64)}");
  assert.equal(one("sum", ["1(uint64)", "-2"]), "{sum:-1}");
  assert.equal(one("sum", ["1.(float32)", "2"]), "{sum:3.}");
  assert.equal(one("sum", ["1s", "2s"]), "{sum:3s}");
  assert.equal(one("max", ["1s", "2"]), "{max:2s}"); // ints count seconds in a duration accumulator
  assert.equal(
    one("max", ["2023-01-01T00:00:00Z", "2023-01-02T00:00:00Z"]),
    "{max:2023-01-02T00:00:00Z}",
  );
  assert.equal(one("sum", ['"a"', "10.0.0.1", "null"]), "{sum:null}");
  assert.equal(one("sum", ["null(int32)"]), "{sum:null(int64)}");
  assert.equal(one("min", ["null(uint16)"]), "{min:null(uint64)}");
});

Deno.test("sum wraps int64 and uint64 like the reference", () => {
  assert.equal(one("sum", ["9223372036854775807", "1"]), "{sum:-9223372036854775808}");
  assert.equal(
    one("sum", ["18446744073709551615(uint64)", "2(uint64)"]),
    "{sum:1(uint64)}",
  );
  assert.equal(one("sum", ["9007199254740991", "1"]), "{sum:9007199254740992}");
});

Deno.test("an int64 accumulator meeting a uint64 above MaxInt64 turns uint64", () => {
  assert.equal(
    one("max", ["1", "18446744073709551615(uint64)"]),
    "{max:18446744073709551615(uint64)}",
  );
});

Deno.test("avg parses numeric strings and converts times and durations", () => {
  assert.equal(one("avg", ['"1.5"', '"x"', "2.5", "null"]), "{avg:2.}");
  assert.equal(one("avg", ["1s", "3s"]), "{avg:2000000000.}");
});

Deno.test("dcount: distinct by underlying type id and bytes", () => {
  assert.equal(one("dcount", ["1", "1(int32)", '"1"', "1"]), "{dcount:3(uint64)}");
  // The reference hashes untagged bytes: null and 0 (or "") look alike.
  assert.equal(one("dcount", ["null(int64)", "0"]), "{dcount:1(uint64)}");
  assert.equal(one("dcount", ["0.", "-0."]), "{dcount:2(uint64)}");
});

Deno.test("any prefers a later non-null over a held null", () => {
  assert.equal(one("any", ["null(int64)", "null", '"x"', "3"]), '{any:"x"}');
  assert.equal(one("any", ["null(int64)", "null"]), "{any:null(int64)}");
});

Deno.test("union and collect ignore nulls; union dedups by type and value", () => {
  assert.equal(one("union", ["1", "null", "1(int32)", "1"]), "{union:|[1(int32),1]|}");
  assert.equal(one("collect", ["null", "null(int64)"]), "{collect:null}");
});

// ---- fuseTypes -----------------------------------------------------------

function fused(...types: string[]): string {
  return formatType(types.map((t) => parseZsonType(t)).reduce((a, b) => fuseTypes(a, b)));
}

Deno.test("fuseTypes: records, containers, unions, nulls (§3.7)", () => {
  assert.equal(fused("{a:int64}", "{b:int64}"), "{a:int64,b:int64}");
  assert.equal(fused("{a:int64}", "{a:string}"), "{a:(int64,string)}");
  assert.equal(fused("{a:[int64]}", "{a:[string],b:ip}"), "{a:[(int64,string)],b:ip}");
  assert.equal(fused("{x:int64}", "{x:string,y:string}"), "{x:(int64,string),y:string}");
  assert.equal(fused("null", "int64"), "int64");
  assert.equal(fused("int64", "null"), "int64");
  assert.equal(fused("{a:null}", "{a:int64}"), "{a:int64}");
  assert.equal(fused("[int64]", "|[string]|"), "[(int64,string)]");
  assert.equal(fused("|[int64]|", "|[string]|"), "|[(int64,string)]|");
  assert.equal(
    fused("|{string:int64}|", "|{int64:float64}|"),
    "|{(int64,string):(int64,float64)}|",
  );
  assert.equal(fused("(int64,string)", "ip"), "(int64,string,ip)");
  assert.equal(fused("ip", "(int64,string)"), "(int64,string,ip)");
  assert.equal(fused("(int64,{a:int64})", "{b:string}"), "(int64,{a:int64,b:string})");
  // mixed.yaml's fused type
  assert.equal(
    fused("{a:int64}", "{a:string}", "int64", "string", "[int64]", "[string]"),
    "(int64,string,{a:(int64,string)},[int64],[string])",
  );
});

Deno.test("fuse aggregate over types in first-seen order", () => {
  assert.equal(
    one("fuse", ["{x:1}", '{x:"foo",y:"foo"}', '{x:2,y:"bar"}']),
    "{fuse:<{x:(int64,string),y:string}>}",
  );
  assert.equal(one("fuse", ["null", "1"]), "{fuse:<int64>}");
  assert.equal(one("fuse", ["null"]), "{fuse:<null>}");
});
