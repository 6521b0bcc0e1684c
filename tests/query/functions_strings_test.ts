import assert from "node:assert/strict";
import { call, each, field, fn, THIS } from "./functions_util.ts";

Deno.test("lower, upper, trim", () => {
  assert.equal(fn("lower", THIS)('"Zed"'), '"zed"');
  assert.equal(fn("upper", THIS)('"Zed"'), '"ZED"');
  assert.equal(fn("trim", THIS)('" = Zed = "'), '"= Zed ="');
  assert.equal(fn("trim", THIS)('"\\u00a0\\tx\\n\\u0085"'), '"x"');
  assert.equal(fn("trim", THIS)('"\\ufeffx"'), '"\ufeffx"');
  for (const name of ["lower", "upper", "trim"]) {
    assert.equal(fn(name, THIS)("null(string)"), "null(string)");
    assert.equal(fn(name, THIS)("1"), `error("${name}: string arg required")`);
    assert.equal(fn(name, field("x"))("{}"), `error("${name}: string arg required")`);
  }
  // Go's simple case mappings: no final sigma, ß unchanged, İ to i.
  assert.equal(fn("lower", THIS)('"ΟΔΟΣ"'), '"οδοσ"');
  assert.equal(fn("upper", THIS)('"straße"'), '"STRAßE"');
  assert.equal(fn("lower", THIS)('"İ"'), '"i"');
  assert.equal(fn("lower", THIS)('"a"(=name)'), '"a"');
});

Deno.test("replace", () => {
  assert.equal(fn("replace", '"oink oink oink"', '"oink"', '"moo"')(), '"moo moo moo"');
  assert.equal(fn("replace", '"abc"', '""', '"-"')(), '"-a-b-c-"');
  assert.equal(fn("replace", "null(string)", '"a"', '"b"')(), "null");
  assert.equal(
    fn("replace", '"a"', "null(string)", '"b"')(),
    'error("replace: an input arg is null")',
  );
  assert.equal(fn("replace", '"a"', "1", '"b"')(), 'error("replace: string arg required")');
});

Deno.test("split (ztests split.yaml, split-multi.yaml)", () => {
  assert.equal(
    fn("split", '"apple;banana;pear;peach"', '";"')(),
    '["apple","banana","pear","peach"]',
  );
  const s = fn("split", field("s"), '"."');
  assert.deepEqual(each(s, ['{s:"foo.bar.com"}', '{s:"foo"}', "{s:null(string)}", '{s:""}']), [
    '["foo","bar","com"]',
    '["foo"]',
    "null([string])",
    '[""]',
  ]);
  assert.equal(fn("split", '"foo.bar.com"', '"oo"')(), '["f",".bar.com"]');
  assert.equal(fn("split", '"a😎"', '""')(), '["a","😎"]');
  assert.equal(fn("split", "1", '"."')(), 'error("split: string args required")');
  assert.equal(
    fn("cast", call("split", THIS, '","'), "<[ip]>")('"10.0.0.1,10.0.0.2,10.0.0.3"'),
    "[10.0.0.1,10.0.0.2,10.0.0.3]",
  );
});

Deno.test("join", () => {
  assert.equal(fn("join", THIS, '","')('["a","b","c"]'), '"a,b,c"');
  assert.equal(fn("join", THIS)('["a","b","c"]'), '"abc"');
  const j = fn("join", call("cast", THIS, "<[string]>"), '"..."');
  assert.deepEqual(each(j, ["[1,2,3]", "[10.0.0.1,10.0.0.2]"]), [
    '"1...2...3"',
    '"10.0.0.1...10.0.0.2"',
  ]);
  assert.equal(fn("join", THIS)("null([string])"), '""');
  assert.equal(fn("join", THIS)("[1,2]"), 'error("join: array of string args required")');
  assert.equal(fn("join", THIS)('|["a"]|'), 'error("join: array of string args required")');
  assert.equal(fn("join", THIS, "1")('["a"]'), 'error("join: separator must be string")');
});

Deno.test("rune_len and levenshtein (ztest levenshtein.yaml)", () => {
  assert.deepEqual(each(fn("rune_len", THIS), ['"hello"', '"😎"', "null(string)"]), [
    "5",
    "1",
    "0",
  ]);
  assert.equal(fn("rune_len", THIS)("1"), 'error("rune_len: string arg required")');
  assert.equal(fn("len", call("cast", THIS, "<bytes>"))('"😎"'), "4");
  const l = fn("levenshtein", field("a"), field("b"));
  assert.deepEqual(
    each(l, [
      '{a: "kitten", b: "sitting"}',
      '{a: "kitten", b: ""}',
      '{a: "kitten", b: null(string)}',
      '{a: "kitten", b: null}',
      '{a: 1, b: "kitten"}',
    ]),
    [
      "3",
      "6",
      "6",
      'error({message:"levenshtein: string args required",on:null})',
      'error({message:"levenshtein: string args required",on:1})',
    ],
  );
});
