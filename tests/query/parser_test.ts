import assert from "node:assert/strict";
import { parseQuery } from "../../lib/query/parser/parse.ts";
import type { AnyNode } from "../../lib/query/ast.ts";

function ops(q: string): AnyNode[] {
  return parseQuery(q).ops as AnyNode[];
}

function parseErr(q: string): string {
  try {
    parseQuery(q);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`no error for ${q}`);
}

Deno.test("implied operators resolve as the reference does (language.md §2.2)", () => {
  assert.equal(ops("foo")[0].kind, "OpExpr");
  assert.equal(ops("foo")[0].expr.kind, "Term");
  assert.equal(ops("x==1")[0].expr.kind, "BinaryExpr");
  assert.equal(ops("count()")[0].kind, "OpExpr");
  assert.equal(ops("count() by x")[0].kind, "Summarize");
  assert.equal(ops("by x")[0].kind, "Summarize");
  assert.equal(ops("c:=count()")[0].kind, "OpAssignment");
  assert.equal(ops("a:=1,b:=2")[0].kind, "OpAssignment");
  assert.equal(ops("*")[0].expr.kind, "Primitive");
  assert.equal(ops("{a:1}")[0].expr.kind, "RecordExpr");
  assert.equal(ops("foo-bar")[0].expr.op, "-");
  assert.equal(ops("foo (bar or baz)")[0].expr.kind, "Call");
  assert.deepEqual(ops("sort -r -nulls first a, b")[0], {
    kind: "Sort",
    args: [{ kind: "ID", name: "a" }, { kind: "ID", name: "b" }],
    order: "desc",
    nullsfirst: true,
  });
});

Deno.test("expressions follow the precedence table (language.md §4.1)", () => {
  const e = ops("yield a + b * c == d and !e or f ? g : h")[0].exprs[0];
  assert.equal(e.kind, "Conditional");
  assert.equal(e.cond.op, "or");
  assert.equal(e.cond.lhs.op, "and");
  assert.equal(e.cond.lhs.lhs.op, "==");
  assert.equal(e.cond.lhs.lhs.lhs.rhs.op, "*");
  const d = ops("yield a.b[1:][0]")[0].exprs[0];
  assert.equal(d.op, "[");
  assert.equal(d.lhs.rhs.op, ":");
  assert.equal(d.lhs.lhs.op, ".");
  assert.equal(ops("yield -1")[0].exprs[0].kind, "Primitive");
  assert.equal(ops("yield -x")[0].exprs[0].kind, "UnaryExpr");
  const t = ops('yield "a ${x} b"')[0].exprs[0];
  assert.equal(t.op, "+");
  assert.equal(t.lhs.rhs.kind, "Cast");
});

Deno.test("literals of every kind", () => {
  const kinds = (q: string) => ops(`yield ${q}`)[0].exprs[0].type;
  assert.equal(kinds("10.0.0.1"), "ip");
  assert.equal(kinds("10.0.0.0/8"), "net");
  assert.equal(kinds("::1"), "ip");
  assert.equal(kinds("1h30m"), "duration");
  assert.equal(kinds("2020-01-01T00:00:00Z"), "time");
  assert.equal(kinds("1.5"), "float64");
  assert.equal(kinds("1"), "int64");
  assert.equal(kinds("0x01"), "bytes");
  assert.equal(kinds("true"), "bool");
  assert.equal(kinds("null"), "null");
  assert.equal(ops("yield <{a:int64}>")[0].exprs[0].kind, "TypeValue");
});

Deno.test("declarations, structural operators and sources", () => {
  const seq = parseQuery("const x = 1 type port=uint16 yield x");
  assert.deepEqual(seq.consts.map((c) => c.name), ["x", "port"]);
  assert.equal(ops("fork (=>pass =>pass) | merge this")[0].kind, "Parallel");
  assert.equal(ops("switch x ( case 1 => pass default => pass )")[0].cases.length, 2);
  const from = ops("from pool@main:objects")[0].trunks[0].source;
  assert.deepEqual(from.spec, {
    pool: { kind: "String", text: "pool" },
    commit: "main",
    meta: "objects",
  });
  assert.equal(ops("over a with x=b => ( yield x )")[0].kind, "Let");
  assert.equal(ops("sample x")[0].kind, "Sequential");
  assert.equal(ops("SELECT a FROM t ORDER BY a DESC LIMIT 3")[0].limit, 3);
});

Deno.test("syntax errors carry the reference's message and position", () => {
  assert.equal(
    parseErr("count() by ,x,y"),
    "error parsing Zed at column 12:\ncount() by ,x,y\n       === ^ ===",
  );
  assert.equal(
    parseErr("from test \\ count()"),
    "error parsing Zed at column 11:\nfrom test \\ count()\n      === ^ ===",
  );
  assert.equal(
    parseErr("from\ntest \\ count()"),
    "error parsing Zed at line 2, column 6:\ntest \\ count()\n === ^ ===",
  );
  assert.equal(parseErr("x=1"), "error parsing Zed at column 2:\nx=1\n ^ ===");
  assert.equal(parseErr("1e10"), "error parsing Zed at column 5:\n1e10\n=== ^ ===");
  assert.equal(parseErr("a*b==c"), "error parsing Zed at column 4:\na*b==c\n== ^ ===");
  assert.match(parseErr("sort -r -r"), /^1:5 \(4\): rule SortArgs: Duplicate argument -r\n/);
  // IPv6 networks stop the reference's parser.
  assert.match(parseErr("fe80::1/64"), /^error parsing Zed at column 11:/);
});

Deno.test("empty text means *", () => {
  assert.deepEqual(ops("")[0], {
    kind: "OpExpr",
    expr: { kind: "Primitive", type: "bool", text: "true" },
  });
});

Deno.test("a query parsed again is a fresh tree equal to the first", () => {
  const text = 'from p | x > 1 and y == "a" | count() by k | sort -r count';
  const first = parseQuery(text);
  const again = parseQuery(text);
  assert.deepEqual(again, first);
  assert.notEqual(again, first);
  assert.notEqual(again.ops[1], first.ops[1]);
  // One caller changing its tree (as compiling does) leaves the next one's alone.
  first.ops.splice(0, 1);
  (again.ops[1] as AnyNode).kind = "Changed";
  const third = parseQuery(text);
  assert.equal(third.ops.length, 4);
  assert.notEqual((third.ops[1] as AnyNode).kind, "Changed");
  assert.deepEqual(parseQuery(text).ops[0], third.ops[0]);
});
