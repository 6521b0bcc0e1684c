// The summarize operator (language.md §3.18, §8): the examples there and the
// reference's runtime/op/groupby ztests (plus the runtime/expr/agg ztests that
// group), with hand-built expressions standing in for the compiled query.

import assert from "node:assert/strict";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import "../../lib/query/aggregates/mod.ts";
import { lookupAggregate } from "../../lib/query/aggregates/registry.ts";
import {
  Summarize,
  type SummarizeAggregate,
  type SummarizeKey,
} from "../../lib/query/ops/summarize.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { Collector } from "../../lib/query/runtime/op.ts";
import {
  boolValue,
  errorValue,
  fieldOf,
  isMissing,
  MISSING,
  QUIET,
} from "../../lib/query/runtime/values.ts";
import { compareValues } from "../../lib/zed/compare.ts";
import { Kind, type Type, TypeNet, TypeType, typeUnder } from "../../lib/zed/types.ts";
import type { Body, Value } from "../../lib/zed/value.ts";
import { Value as V } from "../../lib/zed/value.ts";

// ---- helpers -------------------------------------------------------------

function parseAll(texts: string[]): Value[] {
  const bindings = new Map<string, Type>();
  return texts.map((t) => parseZsonValue(t, bindings));
}

const self: Expr = (v) => v;

/** A field path a.b.c; missing when any step is absent or not a record. */
function path(...names: string[]): Expr {
  return (v) => {
    let cur: Value = v;
    for (const n of names) {
      const f = fieldOf(cur, n);
      if (f === undefined) return MISSING;
      cur = f;
    }
    return cur;
  };
}

function num(e: Expr, op: ">" | ">=" | "<", n: number): Expr {
  return (v) => {
    const x = e(v);
    if (isMissing(x)) return MISSING;
    const a = Number(x.body);
    return boolValue(op === ">" ? a > n : op === ">=" ? a >= n : a < n);
  };
}

function eq(e: Expr, s: string): Expr {
  return (v) => {
    const x = e(v);
    return isMissing(x) ? MISSING : boolValue(x.body === s);
  };
}

/** `name:=expr` keys; a dotted name makes a nested path. */
function key(name: string, expr: Expr): SummarizeKey {
  return { path: name.split("."), expr };
}

function agg(name: string, as: string, arg?: Expr, where?: Expr): SummarizeAggregate {
  const def = lookupAggregate(name);
  assert.ok(def, name);
  return { path: as.split("."), def, arg, where };
}

function run(
  input: string[],
  keys: SummarizeKey[],
  aggs: SummarizeAggregate[],
  limit?: number,
): Value[] {
  const out = new Collector();
  const op = new Summarize(out, keys, aggs, limit);
  const vals = parseAll(input);
  // Push in small batches, as a reader would.
  for (let i = 0; i < vals.length; i += 2) op.push(vals.slice(i, i + 2));
  op.end();
  assert.ok(out.ended);
  return out.take().flat();
}

function zsonOf(vals: Value[]): string[] {
  return vals.map((v) => formatZson(v.type, v.body));
}

/** `sort this` (nulls last; missing treated as null). */
function sortThis(vals: Value[]): Value[] {
  return vals.slice().sort((a, b) => compareValues(a.type, a.body, b.type, b.body));
}

/** `sort e1, e2, ...` */
function sortBy(vals: Value[], ...exprs: Expr[]): Value[] {
  const body = (x: Value): Body => isMissing(x) ? null : x.body;
  return vals.slice().sort((a, b) => {
    for (const e of exprs) {
      const x = e(a), y = e(b);
      const c = compareValues(x.type, body(x), y.type, body(y));
      if (c !== 0) return c;
    }
    return 0;
  });
}

const KV = ['{k:"foo",v:1}', '{k:"bar",v:2}', '{k:"foo",v:3}', '{k:"baz",v:4}'];

// ---- §3.18 ------------------------------------------------------------------

Deno.test("§3.18: summarize avg(this) and sum(this)", () => {
  assert.deepEqual(zsonOf(run(["1", "2", "3", "4"], [], [agg("avg", "avg", self)])), ["{avg:2.5}"]);
  assert.deepEqual(zsonOf(run(["1", "2", "3", "4"], [], [agg("sum", "sum", self)])), ["{sum:10}"]);
});

Deno.test("§3.18: set:=union(v) by key:=k | sort", () => {
  const out = run(KV, [key("key", path("k"))], [agg("union", "set", path("v"))]);
  assert.deepEqual(zsonOf(sortThis(out)), [
    '{key:"bar",set:|[2]|}',
    '{key:"baz",set:|[4]|}',
    '{key:"foo",set:|[1,3]|}',
  ]);
});

Deno.test("§3.18: the where clause binds to its aggregate", () => {
  const out = run(KV, [key("key", path("k"))], [
    agg("union", "set", path("v"), num(path("v"), ">", 1)),
  ]);
  assert.deepEqual(zsonOf(sortThis(out)), [
    '{key:"bar",set:|[2]|}',
    '{key:"baz",set:|[4]|}',
    '{key:"foo",set:|[3]|}',
  ]);
});

Deno.test("§3.18 / where-sum.yaml: lg:=sum(x) where x>=5, sm:=sum(x) where x<8", () => {
  const input = ["1", "10", "5", "6", "-1", "12"].map((n) => `{x:${n}(int32)}`);
  const x = path("x");
  const out = run(input, [], [
    agg("sum", "lg", x, num(x, ">=", 5)),
    agg("sum", "sm", x, num(x, "<", 8)),
  ]);
  assert.deepEqual(zsonOf(out), ["{lg:33,sm:11}"]);
});

Deno.test("§3.18: count() where _path == 'conn'", () => {
  const input = ['{_path:"conn"}', '{_path:"dns"}', '{_path:"conn"}', "{}"];
  const out = run(input, [], [agg("count", "count", undefined, eq(path("_path"), "conn"))]);
  assert.deepEqual(zsonOf(out), ["{count:2(uint64)}"]);
});

// ---- §8.1 output record -------------------------------------------------------

Deno.test("§8.1 / nested-agg-name.yaml: key and aggregate share a parent record", () => {
  const input = [
    '{animal:"cat",s:"a",x:1(int32)}',
    '{animal:"dog",s:"b",x:1(int32)}',
    '{animal:"cat",s:"a",x:1(int32)}',
    '{animal:"elephant",s:"a",x:1(int32)}',
    '{animal:"cat",s:"b",x:1(int32)}',
  ];
  const out = run(input, [key("result.animal", path("animal"))], [agg("count", "result.count")]);
  assert.deepEqual(zsonOf(sortThis(out)), [
    '{result:{animal:"cat",count:3(uint64)}}',
    '{result:{animal:"dog",count:1(uint64)}}',
    '{result:{animal:"elephant",count:1(uint64)}}',
  ]);
});

Deno.test("§8.1 / duplicate.yaml: count(), count() is a duplicate field", () => {
  assert.throws(
    () => run(["{x:1(int32)}"], [], [agg("count", "count"), agg("count", "count")]),
    { message: 'duplicate field: "count"' },
  );
  assert.throws(
    () =>
      new Summarize(new Collector(), [key("a.x", self)], [agg("count", "b"), agg("count", "a.y")]),
    { message: "fields in record a must be adjacent" },
  );
});

Deno.test("§8.1 / where.yaml: each row's type comes from its own values", () => {
  const input = [
    '{animal:"cat",s:"a",x:1(int32)}',
    '{animal:"dog",s:"b",x:1(int32)}',
    '{animal:"cat",s:"a",x:1(int32)}',
    '{animal:"elephant",s:"a",x:1(int32)}',
    '{animal:"cat",s:"b",x:1(int32)}',
  ];
  const x = path("x");
  const out = run(input, [key("key", path("animal"))], [
    agg("sum", "sum", x, eq(path("s"), "a")),
    agg("sum", "s2", x),
  ]);
  assert.deepEqual(zsonOf(sortThis(out)), [
    '{key:"cat",sum:2,s2:3}',
    '{key:"elephant",sum:1,s2:1}',
    '{key:"dog",sum:null,s2:1}',
  ]);
});

Deno.test("§8.1 / by-only.yaml: by with no aggregates emits the distinct keys", () => {
  const input = [
    ["1", "b"],
    ["2", "f"],
    ["1", "b"],
    ["1", "a"],
    ["1", "b"],
    ["2", "c"],
    ["1", "a"],
    ["1", "a"],
  ].map(([x, s]) => `{x:${x}(int32),s:"${s}"}`);
  const out = run(input, [key("s", path("s"))], []);
  assert.deepEqual(zsonOf(sortBy(out, path("s"))), ['{s:"a"}', '{s:"b"}', '{s:"c"}', '{s:"f"}']);
});

// ---- §8.3 keys ------------------------------------------------------------------

Deno.test("§8.3: keys group by value and type", () => {
  const out = run(["1", "1(int32)", "1", '"1"'], [key("k", self)], [agg("count", "count")]);
  assert.deepEqual(zsonOf(out), [
    "{k:1,count:2(uint64)}",
    "{k:1(int32),count:1(uint64)}",
    '{k:"1",count:1(uint64)}',
  ]);
});

Deno.test("§8.3: a quiet key skips the value entirely", () => {
  const q: Expr = (v) => fieldOf(v, "k") ?? QUIET;
  const out = run(["{k:1,x:1}", "{x:2}", "{k:1,x:3}"], [key("k", q)], [
    agg("count", "count"),
    agg("sum", "sum", path("x")),
  ]);
  assert.deepEqual(zsonOf(out), ["{k:1,count:2(uint64),sum:4}"]);
});

Deno.test("§8.3: null and missing are normal keys", () => {
  const out = run(["{k:null}", "{k:null(int64)}", "{}", "{k:null}", "{}"], [key("k", path("k"))], [
    agg("count", "count"),
  ]);
  assert.deepEqual(zsonOf(out), [
    "{k:null,count:2(uint64)}",
    "{k:null(int64),count:1(uint64)}",
    '{k:error("missing"),count:2(uint64)}',
  ]);
});

Deno.test("§8.3 / groupby-missing.yaml: by a:=a[0], b:=b.c | sort this", () => {
  const first: Expr = (v) => {
    const a = fieldOf(v, "a");
    if (a === undefined || typeUnder(a.type).kind !== Kind.Array) return MISSING;
    const elems = a.body as Body[] | null;
    if (elems === null || elems.length === 0) return MISSING;
    return new V((typeUnder(a.type) as { elem: Type }).elem, elems[0]);
  };
  const input = ['{a:"a",b:"b"}', "{a:[]([null]),b:{c:1}}", "{a:[0],b:{c:1}}"];
  const out = run(input, [key("a", first), key("b", path("b", "c"))], []);
  assert.deepEqual(zsonOf(sortThis(out)), [
    '{a:error("missing"),b:error("missing")}',
    '{a:error("missing"),b:1}',
    "{a:0,b:1}",
  ]);
});

Deno.test("§8.3 / mixed-output-types.yaml: error keys group like values", () => {
  // network_of(addr) for the two inputs: a /8 for IPv4, an error for IPv6.
  const networkOf: Expr = (v) => {
    const ip = fieldOf(v, "addr")!.body as Uint8Array;
    if (ip.length !== 4) return errorValue("network_of: not an IPv4 address");
    return new V(TypeNet, new Uint8Array([ip[0], 0, 0, 0, 255, 0, 0, 0]));
  };
  const out = run(
    ["{addr:10.0.0.1}", "{addr:fe80::215:17ff:fe84:c13f}"],
    [key("x", networkOf)],
    [],
  );
  assert.deepEqual(zsonOf(sortThis(out)), [
    '{x:error("network_of: not an IPv4 address")}',
    "{x:10.0.0.0/8}",
  ]);
});

Deno.test("§8.3 / mixed-type-key.yaml: count() by id.orig_h:=quiet(id.orig_h) | sort id", () => {
  const input = [
    '{_path:"weird",id:{orig_h:10.47.1.152,orig_p:49562(port=uint16),resp_h:23.217.103.245,resp_p:80(port)}}',
    '{_path:"x509",id:"FYNFkU3KccxXgIuUg5"}',
    '{_path:"weird",id:{orig_h:10.47.5.155,orig_p:40712(port=uint16),resp_h:91.189.91.23,resp_p:80(port)}}',
  ];
  const orig = path("id", "orig_h");
  const quiet: Expr = (v) => {
    const x = orig(v);
    return isMissing(x) ? QUIET : x;
  };
  const out = run(input, [key("id.orig_h", quiet)], [agg("count", "count")]);
  assert.deepEqual(zsonOf(sortBy(out, path("id"))), [
    "{id:{orig_h:10.47.1.152},count:1(uint64)}",
    "{id:{orig_h:10.47.5.155},count:1(uint64)}",
  ]);
});

Deno.test("§8.3 / count-by-this.yaml: count() by val:=this | sort this", () => {
  const input = ['{x:1(int32),s:"foo"}', '{x:2(int32),s:"Bar"}', "{y:5}", "{y:5}", "{y:7}"];
  const out = run(input, [key("val", self)], [agg("count", "count")]);
  assert.deepEqual(zsonOf(sortThis(out)), [
    '{val:{x:1(int32),s:"foo"},count:1(uint64)}',
    '{val:{x:2(int32),s:"Bar"},count:1(uint64)}',
    "{val:{y:5},count:2(uint64)}",
    "{val:{y:7},count:1(uint64)}",
  ]);
});

Deno.test("count-by-this-err.yaml: count() by this cannot name a field", () => {
  assert.throws(
    () => new Summarize(new Collector(), [{ path: [], expr: self }], [agg("count", "count")]),
    { message: "cannot assign to 'this'" },
  );
});

Deno.test("dot.yaml: count() by typeof(this) | sort count", () => {
  const input = ['{x:1(int32),s:"foo"}', '{x:2(int32),s:"Bar"}', "{y:5}", "{y:5}", "{y:7}"];
  const typeOf: Expr = (v) => new V(TypeType, v.type);
  const out = run(input, [key("typeof", typeOf)], [agg("count", "count")]);
  assert.deepEqual(zsonOf(sortBy(out, path("count"))), [
    "{typeof:<{x:int32,s:string}>,count:2(uint64)}",
    "{typeof:<{y:int64}>,count:3(uint64)}",
  ]);
});

Deno.test("§9.2: count() by typeof(this) | sort this", () => {
  const typeOf: Expr = (v) => new V(TypeType, v.type);
  const out = run(["1", "2", '"foo"', "10.0.0.1", "<string>"], [key("typeof", typeOf)], [
    agg("count", "count"),
  ]);
  assert.deepEqual(zsonOf(sortThis(out)), [
    "{typeof:<int64>,count:2(uint64)}",
    "{typeof:<string>,count:1(uint64)}",
    "{typeof:<ip>,count:1(uint64)}",
    "{typeof:<type>,count:1(uint64)}",
  ]);
});

Deno.test("count.yaml / count-assign.yaml: c:=count() over ten records", () => {
  const input = Array.from({ length: 10 }, (_, i) => `{_path:"conn",foo:"${i + 1}"}`);
  assert.deepEqual(zsonOf(run(input, [], [agg("count", "count")])), ["{count:10(uint64)}"]);
  assert.deepEqual(zsonOf(run(input, [], [agg("count", "c")])), ["{c:10(uint64)}"]);
});

Deno.test("groupby.yaml: count() by ts | sort this (records compare by encoding)", () => {
  const ts = (s: number) => `{ts:1970-01-01T00:00:0${s}Z}`;
  const input = [ts(1), ts(1), ts(2), ts(3)];
  const out = run(input, [key("ts", path("ts"))], [agg("count", "count")]);
  assert.deepEqual(zsonOf(sortThis(out)), [
    "{ts:1970-01-01T00:00:02Z,count:1(uint64)}",
    "{ts:1970-01-01T00:00:01Z,count:2(uint64)}",
    "{ts:1970-01-01T00:00:03Z,count:1(uint64)}",
  ]);
  const withNull = run([...input, "{ts:null(time)}"], [key("ts", path("ts"))], [
    agg("count", "count"),
  ]);
  assert.deepEqual(zsonOf(sortThis(withNull)), [
    "{ts:null(time),count:1(uint64)}",
    "{ts:1970-01-01T00:00:02Z,count:1(uint64)}",
    "{ts:1970-01-01T00:00:01Z,count:2(uint64)}",
    "{ts:1970-01-01T00:00:03Z,count:1(uint64)}",
  ]);
});

Deno.test("groupby.yaml: record keys and nested keys", () => {
  const input = ['{foo:{a:"aaa"}}', '{foo:{a:"baa"}}', "{foo:{a:null(string)}}"];
  const byFoo = run(input, [key("foo", path("foo"))], [agg("count", "count")]);
  assert.deepEqual(zsonOf(sortThis(byFoo)), [
    "{foo:{a:null(string)},count:1(uint64)}",
    '{foo:{a:"aaa"},count:1(uint64)}',
    '{foo:{a:"baa"},count:1(uint64)}',
  ]);
  const byFooA = run(input.slice(0, 2), [key("foo.a", path("foo", "a"))], [agg("count", "count")]);
  assert.deepEqual(zsonOf(sortThis(byFooA)), [
    '{foo:{a:"aaa"},count:1(uint64)}',
    '{foo:{a:"baa"},count:1(uint64)}',
  ]);
});

Deno.test("groupby.yaml: reverse-sorted input", () => {
  const input = ["10", "08", "07", "06", "02", "01"].map((s) => `{ts:1970-01-01T00:00:${s}Z}`);
  const out = run([...input, "{ts:null(time)}"], [key("ts", path("ts"))], [agg("count", "count")]);
  assert.deepEqual(zsonOf(sortThis(out)), [
    "{ts:null(time),count:1(uint64)}",
    "{ts:1970-01-01T00:00:02Z,count:1(uint64)}",
    "{ts:1970-01-01T00:00:01Z,count:1(uint64)}",
    "{ts:1970-01-01T00:00:07Z,count:1(uint64)}",
    "{ts:1970-01-01T00:00:06Z,count:1(uint64)}",
    "{ts:1970-01-01T00:00:08Z,count:1(uint64)}",
    "{ts:1970-01-01T00:00:10Z,count:1(uint64)}",
  ]);
});

Deno.test("agg ztests fuse-simple.yaml and fuse(this) by b", () => {
  const out = run(["{a:1,r:{a:1}}", "{a:1,r:{a:2}}"], [key("a", path("a"))], [
    agg("fuse", "t", path("r")),
  ]);
  assert.deepEqual(zsonOf(out), ["{a:1,t:<{a:int64}>}"]);
  const byB = run(['{a:1,b:"bar"}', '{a:2.1,b:"foo"}', '{a:3,b:"bar"}'], [key("b", path("b"))], [
    agg("fuse", "fuse", self),
  ]);
  assert.deepEqual(zsonOf(sortThis(byB)), [
    '{b:"bar",fuse:<{a:int64,b:string}>}',
    '{b:"foo",fuse:<{a:float64,b:string}>}',
  ]);
});

// ---- the docs' SQL-comparison example ----------------------------------------------

Deno.test("§7.1 docs ztest: sum/max/and by srcip, dstip | sort srcip, dstip", () => {
  const input = [
    '{srcip:10.0.0.1,dstip:5.6.7.8,src_bytes:20,dst_bytes:40,status:"ok"}',
    "{srcip:10.0.0.1,dstip:5.6.7.8,src_bytes:20,dst_bytes:40,duration:10}",
    // (192.168.1.1 is dropped by the query's `not cidr_match(...)` filter)
    '{srcip:10.0.0.1,dstip:9.10.11.12,src_bytes:25,dst_bytes:45,status:"ok"}',
    '{srcip:10.0.0.1,dstip:9.10.11.12,src_bytes:20,dst_bytes:40,status:"failed"}',
    "{srcip:10.0.0.1,dstip:13.14.15.16,src_bytes:29,dst_bytes:49}",
    "{srcip:10.0.0.1,dstip:13.14.15.16,src_bytes:23,dst_bytes:43}",
    "{srcip:10.0.0.1,src_bytes:23,dst_bytes:43}",
    '{srcip:10.0.0.1,dstip:17.18.19.20,status:"ok"}',
    '{srcip:10.0.0.1,dstip:17.18.19.20,status:"ok"}',
  ];
  const src = path("src_bytes"), dst = path("dst_bytes");
  const bytes: Expr = (v) => {
    const a = src(v), b = dst(v);
    if (isMissing(a) || isMissing(b)) return MISSING;
    return new V(a.type, (a.body as number) + (b.body as number));
  };
  const out = run(input, [key("srcip", path("srcip")), key("dstip", path("dstip"))], [
    agg("sum", "bytes", bytes),
    agg("max", "maxdur", path("duration")),
    agg("and", "valid", eq(path("status"), "ok")),
  ]);
  assert.deepEqual(zsonOf(sortBy(out, path("srcip"), path("dstip"))), [
    "{srcip:10.0.0.1,dstip:5.6.7.8,bytes:120,maxdur:10,valid:true}",
    "{srcip:10.0.0.1,dstip:9.10.11.12,bytes:130,maxdur:null,valid:false}",
    "{srcip:10.0.0.1,dstip:13.14.15.16,bytes:144,maxdur:null,valid:null(bool)}",
    "{srcip:10.0.0.1,dstip:17.18.19.20,bytes:null,maxdur:null,valid:true}",
    '{srcip:10.0.0.1,dstip:error("missing"),bytes:66,maxdur:null,valid:null(bool)}',
  ]);
});

// ---- §8.4 output order, limit, batching --------------------------------------------

Deno.test("§8.4: empty input produces no output", () => {
  const out = new Collector();
  const op = new Summarize(out, [], [agg("count", "count")]);
  op.end();
  assert.ok(out.ended);
  assert.deepEqual(out.take(), []);
});

Deno.test("§8.4: without a limit, groups come out in first-seen order", () => {
  const out = run(['{k:"b"}', '{k:"a"}', '{k:"c"}', '{k:"a"}'], [key("k", path("k"))], [
    agg("count", "n"),
  ]);
  assert.deepEqual(zsonOf(out), [
    '{k:"b",n:1(uint64)}',
    '{k:"a",n:2(uint64)}',
    '{k:"c",n:1(uint64)}',
  ]);
});

const PARTIALS = [
  '{key:"a",x:1(int32)}',
  '{key:"a",x:-1(int32)}',
  '{key:"b",x:2(int32)}',
  '{key:"b",x:1(int32)}',
  '{key:"a",x:8(int32)}',
  '{key:"b",x:1(int32)}',
  '{key:"a"}',
  '{key:"a"}',
  '{key:"a"}',
];

Deno.test("§8.4 / container-partials.yaml: union(x), collect(x) by key with -limit 1", () => {
  const k = [key("key", path("key"))];
  assert.deepEqual(zsonOf(run(PARTIALS, k, [agg("union", "union", path("x"))], 1)), [
    '{key:"a",union:|[1(int32),-1(int32),8(int32)]|}',
    '{key:"b",union:|[1(int32),2(int32)]|}',
  ]);
  assert.deepEqual(zsonOf(run(PARTIALS, k, [agg("collect", "collect", path("x"))], 1)), [
    '{key:"a",collect:[1(int32),-1(int32),8(int32)]}',
    '{key:"b",collect:[2(int32),1(int32),1(int32)]}',
  ]);
});

Deno.test("§8.4: past the limit, output is sorted by the keys (missing last)", () => {
  const input = ['{k:"b"}', "{}", '{k:"c"}', '{k:"a"}', '{k:"b"}'];
  const out = run(input, [key("k", path("k"))], [agg("count", "n")], 2);
  assert.deepEqual(zsonOf(out), [
    '{k:"a",n:1(uint64)}',
    '{k:"b",n:2(uint64)}',
    '{k:"c",n:1(uint64)}',
    '{k:error("missing"),n:1(uint64)}',
  ]);
  // Within the limit the order stays first-seen.
  const within = zsonOf(run(input, [key("k", path("k"))], [agg("count", "n")], 4));
  assert.equal(within[0], '{k:"b",n:2(uint64)}');
});

Deno.test("math-partials.yaml: avg/count/min/max by key with -limit 1", () => {
  const input = [
    '{key:"a",n:0(int32)}',
    '{key:"a",n:5(int32)}',
    '{key:"b",n:10(int32)}',
    '{key:"a"}',
  ];
  const k = [key("key", path("key"))], n = path("n");
  assert.deepEqual(zsonOf(run(input, k, [agg("avg", "avg", n)], 1)), [
    '{key:"a",avg:2.5}',
    '{key:"b",avg:10.}',
  ]);
  assert.deepEqual(zsonOf(run(input, k, [agg("count", "count")], 1)), [
    '{key:"a",count:3(uint64)}',
    '{key:"b",count:1(uint64)}',
  ]);
  assert.deepEqual(zsonOf(run(input, k, [agg("min", "min", n)], 1)), [
    '{key:"a",min:0}',
    '{key:"b",min:10}',
  ]);
  assert.deepEqual(zsonOf(run(input, k, [agg("max", "max", n)], 1)), [
    '{key:"a",max:5}',
    '{key:"b",max:10}',
  ]);
});

Deno.test("logical-partials.yaml: or/and with where by key with -limit 1 | sort this", () => {
  const input = [
    '{key:"a",x:1(int32)}',
    '{key:"a",x:-1(int32)}',
    '{key:"b",x:2(int32)}',
    '{key:"b",x:1(int32)}',
    '{key:"a"}',
    '{key:"b",x:1(int32)}',
  ];
  const x = path("x");
  const out = run(input, [key("key", path("key"))], [
    agg("or", "t1", num(x, ">", 2)),
    agg("or", "t2", num(x, ">", 4)),
    agg("and", "t3", num(x, ">", 0)),
    agg("and", "t4", num(x, ">", 2)),
    agg("and", "t5", num(x, ">", 2), num(x, ">", 2)),
  ], 1);
  assert.deepEqual(zsonOf(sortThis(out)), [
    '{key:"a",t1:false,t2:false,t3:false,t4:false,t5:null(bool)}',
    '{key:"b",t1:false,t2:false,t3:true,t4:false,t5:null(bool)}',
  ]);
});

Deno.test("fuse-partials.yaml: fuse(this) by key with -limit 1", () => {
  const a = '{a:"hello",r:{x:1(int32),y:2(int32)},key:"K"}';
  const b = '{r:{y:4(int32),z:5(int32)},s:"world",r2:{x:6(int32)},key:"K"}';
  const input = [..."abc"].map((k) => a.replace("K", k)).concat(
    [..."abc"].map((k) => b.replace("K", k)),
  );
  const out = run(input, [key("key", path("key"))], [agg("fuse", "fuse", self)], 1);
  const t = "<{a:string,r:{x:int32,y:int32,z:int32},key:string,s:string,r2:{x:int32}}>";
  assert.deepEqual(zsonOf(out), [..."abc"].map((k) => `{key:"${k}",fuse:${t}}`));
});

Deno.test("results are emitted in batches of at most 1000", () => {
  const out = new Collector();
  const op = new Summarize(out, [key("k", self)], [agg("count", "n")]);
  const vals = parseAll(Array.from({ length: 2500 }, (_, i) => String(i)));
  op.push(vals);
  op.push(vals.slice(0, 10));
  op.end();
  const batches = out.take();
  assert.deepEqual(batches.map((b) => b.length), [1000, 1000, 500]);
  assert.equal(formatZson(batches[0][0].type, batches[0][0].body), "{k:0,n:2(uint64)}");
  assert.equal(formatZson(batches[2][499].type, batches[2][499].body), "{k:2499,n:1(uint64)}");
});

Deno.test("emitting stops when the downstream operator is done", () => {
  const out = new Collector();
  const op = new Summarize(out, [key("k", self)], []);
  op.push(parseAll(Array.from({ length: 2500 }, (_, i) => String(i))));
  const push = out.push.bind(out);
  out.push = (b) => {
    push(b);
    out.done = true;
  };
  op.end();
  assert.equal(out.take().length, 1);
  assert.ok(out.ended);
});
