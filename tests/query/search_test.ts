import assert from "node:assert/strict";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { Value } from "../../lib/zed/value.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { fieldOf, MISSING, TRUE } from "../../lib/query/runtime/values.ts";
import {
  compileGlobSearch,
  compileGrep,
  compileKeywordSearch,
  compileLiteralSearch,
  compileRegexpSearch,
} from "../../lib/query/expr/search.ts";
import { reglob } from "../../lib/query/expr/glob.ts";
import { fieldPaths } from "../../lib/query/expr/search-walk.ts";
import { parseZsonType } from "../../lib/formats/zson/reader.ts";
import { type RecordType, TypeString } from "../../lib/zed/types.ts";

const z = (s: string) => parseZsonValue(s);

/** The inputs (ZSON texts) a filter keeps, as ZSON. */
function filter(e: Expr, inputs: string[]): string[] {
  const out: string[] = [];
  for (const text of inputs) {
    const v = e(z(text));
    assert.equal(v.type.kind, 0, `boolean result for ${text}`);
    if (v === TRUE || v.body === true) out.push(formatZson(z(text).type, z(text).body));
  }
  return out;
}

function results(e: Expr, inputs: string[]): boolean[] {
  return inputs.map((t) => e(z(t)).body as boolean);
}

const field = (name: string): Expr => (v: Value) => fieldOf(v, name) ?? MISSING;

const lit = (text: string) => compileLiteralSearch(z(text), text);

Deno.test("regexp search (§5.3)", () => {
  const input = ['"foo"', '{s:"bar"}', '{s:"baz"}', "{foo:1}"];
  assert.deepEqual(filter(compileRegexpSearch("(foo|bar)"), input), [
    '"foo"',
    '{s:"bar"}',
    "{foo:1}",
  ]);
});

Deno.test("glob searches (§5.3)", () => {
  const input = ['"foo"', '{s:"bar"}', '{s:"baz"}', "{foo:1}"];
  assert.deepEqual(filter(compileGlobSearch("b*"), input), ['{s:"bar"}', '{s:"baz"}']);
  assert.deepEqual(filter(compileGlobSearch("*z"), input), ['{s:"baz"}']);
  assert.deepEqual(
    filter(compileGlobSearch("*a*"), ['"foo"', '{s:"bar"}', '{s:"baz"}', "{a:1}"]),
    ['{s:"bar"}', '{s:"baz"}', "{a:1}"],
  );
  assert.deepEqual(
    filter(compileGlobSearch("foo*"), [
      '{a:"hello",b:"there"}',
      '{a:"foox",b:"there"}',
      '{a:"hello",b:"foox"}',
      '{a:"",b:"foo"}',
    ]),
    ['{a:"foox",b:"there"}', '{a:"hello",b:"foox"}', '{a:"",b:"foo"}'],
  );
  assert.deepEqual(filter(compileGlobSearch("*1"), ['"1"', '"a1"', '"1a"']), ['"1"', '"a1"']);
});

Deno.test("keyword search is a case-insensitive substring search", () => {
  const input = [
    '{text:"... the word widget ..."}',
    '{text:"this search for WiDgEt is case insensitive"}',
    '{text:"... superwidgetythings will match"}',
    '{text:"whereas stuff without the word surely will not"}',
  ];
  assert.deepEqual(filter(compileKeywordSearch("widget"), input), input.slice(0, 3));
  assert.deepEqual(filter(compileKeywordSearch("WIDGET"), input), input.slice(0, 3));
  assert.deepEqual(filter(compileKeywordSearch("foo"), ['"foo"', '"bar"', '"foo"']), [
    '"foo"',
    '"foo"',
  ]);
  assert.deepEqual(
    filter(compileKeywordSearch("inaction"), ['{x:1,text:"inaction"}', '{x:1,text:"action"}']),
    ['{x:1,text:"inaction"}'],
  );
});

Deno.test("keyword search: escaped keywords and quoted strings (§5.3)", () => {
  const input = ['{s:"A=B"}', '{s:"A=*"}', "{s:null(string)}", '{s:""}'];
  assert.deepEqual(filter(compileKeywordSearch("A=B"), input), ['{s:"A=B"}']);
  assert.deepEqual(filter(compileKeywordSearch("A=*"), input), ['{s:"A=*"}']);
  assert.deepEqual(filter(compileGlobSearch("A=*"), input), ['{s:"A=B"}', '{s:"A=*"}']);
  assert.deepEqual(
    filter(compileKeywordSearch('foo"bar'), [
      '{s:"foo\\"bar"}',
      '{s:"foobar"}',
      '{s:"\\"foobar\\""}',
    ]),
    ['{s:"foo\\"bar"}'],
  );
  assert.deepEqual(filter(compileKeywordSearch('"foo'), ['{s:"foo"}', '{s:"\\"foo"}']), [
    '{s:"\\"foo"}',
  ]);
  assert.deepEqual(
    filter(compileKeywordSearch("bar"), [
      '{s1:"foo",s2:"bar"}',
      '{s1:"foo",s2:null(string)}',
      '{s1:null(string),s2:"bar"}',
    ]),
    ['{s1:"foo",s2:"bar"}', '{s1:null(string),s2:"bar"}'],
  );
});

Deno.test("keyword case folding beyond ASCII", () => {
  // Values are built directly: ZSON input would NFC-normalize the Kelvin sign to K.
  const k = (term: string, text: string) =>
    compileKeywordSearch(term)(new Value(TypeString, text)).body as boolean;
  assert.equal(k("école", "ÉCOLE normale"), true);
  assert.equal(k("ΣΊΣΥΦΟΣ", "σίσυφος"), true);
  assert.equal(k("σ", "ς"), true); // one simple-folding orbit
  assert.equal(k("straße", "STRASSE"), false); // ß does not simple-fold to SS
  assert.equal(k("ß", "ẞ"), false); // same orbit, but 2 vs 3 UTF-8 bytes
  assert.equal(k("k", "\u212a"), false); // Kelvin sign: 3 bytes vs 1
  assert.equal(k("s", "\u017f"), false); // long s: 2 bytes vs 1
  assert.equal(k("kſſ", "x\u212assx"), true); // 5 bytes each way
  assert.equal(k("k", "xK\u212ak"), true);
  assert.equal(k("ı", "I"), false); // dotless i has no simple folding
  assert.equal(k("e\u0301cole", "école"), true); // the term is NFC-normalized
  assert.equal(k("10.0", "version 10.0.1"), true); // no cased characters
  assert.equal(k("", "anything"), true);
});

Deno.test("keyword search matches field-name paths", () => {
  const input = ['{a:[{b:"foo"}]}', '{a:[{c:"foo"}]}', '{a:[{c:"foo"},{b:1}]}'];
  assert.deepEqual(filter(compileKeywordSearch("b"), input), [input[0], input[2]]);
  assert.deepEqual(
    filter(compileGlobSearch("*ar"), ['{a:[{bar:"foo"}]}', '{a:[{car:"foo"}]}', input[2]]),
    ['{a:[{bar:"foo"}]}', '{a:[{car:"foo"}]}'],
  );
  // Dotted leaf paths; only the element types of present elements are visited.
  assert.deepEqual(
    results(compileKeywordSearch("A.B"), ["{a:{b:1}}", "{a:{c:1}}", "{x:{a:{b:1}}}"]),
    [true, false, true],
  );
  const onlyB = compileRegexpSearch("^b$");
  assert.deepEqual(
    results(onlyB, [
      "{a:{b:1}}",
      "{a:null({b:int64})}",
      "{x:null({a:{b:int64}})}",
      "{a:[]([{b:int64}])}",
      "{a:[null({b:int64})]}",
      "{b:{}}",
      "{a:{}}",
      "{}",
    ]),
    [true, true, false, false, true, true, false, false],
  );
  assert.deepEqual(
    fieldPaths(parseZsonType("{a:{b:int64,c:{d:string}},e:{},f:[{g:int64}]}") as RecordType),
    ["a.b", "a.c.d", "e", "f"],
  );
});

Deno.test("search walks maps, sets, unions, errors and named types", () => {
  const foo = compileKeywordSearch("foo");
  assert.deepEqual(
    results(foo, [
      '{m:|{"FOO":1}|}',
      '{m:|{1:"xfoo"}|}',
      "{m:|{1:{foo:2}}|}",
      "{m:|{1:2}|}",
      '{s:|["a","foo"]|}',
      '{u:"foo"((int64,string))}',
      "{u:1((int64,string))}",
      '{e:error("foo")}',
      'error("foo")',
      '{n:"foo"(=myname)}',
      "{n:{foo:1}(=rec)}",
      "{n:1(=foo)}",
      "<{foo:int64}>",
    ]),
    [true, true, true, false, true, true, false, true, false, true, true, false, false],
  );
});

Deno.test("keyword searches treat null strings as empty", () => {
  const empty = compileKeywordSearch("");
  assert.deepEqual(results(empty, ["{s:null(string)}", "{x:1}", "1", "{}"]), [
    true,
    true,
    false,
    false,
  ]);
  const re = compileRegexpSearch("^$");
  assert.deepEqual(results(re, ["{s:null(string)}", '{s:"a"}', "{x:1}"]), [true, false, false]);
});

Deno.test("non-string literal searches (§5.2)", () => {
  const one = lit("1");
  assert.deepEqual(
    results(one, [
      "1",
      "1.",
      "1(uint8)",
      "{a:[2,1(int32)]}",
      "{t:1970-01-01T00:00:00.000000001Z}",
      "{d:1ns}",
      '{s:"a1b"}',
      "{x:2}",
      '{s:"2"}',
      "{f:1.5}",
      "{b:true}",
    ]),
    [true, true, true, true, true, true, true, false, false, false, false],
  );
  const nul = lit("null");
  assert.deepEqual(
    results(nul, [
      "null",
      "{a:null(int64)}",
      "{a:null({b:int64})}",
      "{s:null(string)}",
      "{a:1}",
      '{s:"null"}',
      "{a:[1,null]}",
    ]),
    [true, true, true, false, false, true, true],
  );
  const t = lit("true");
  assert.deepEqual(results(t, ["{b:true}", "{b:false}", '{s:"TRUE story"}', "{b:1}"]), [
    true,
    false,
    true,
    false,
  ]);
  const dur = lit("1h");
  assert.deepEqual(results(dur, ["{d:1h}", "{d:3600000000000}", "{d:2h}", '{s:"1H"}']), [
    true,
    true,
    false,
    true,
  ]);
  const ip = lit("10.0.0.1");
  assert.deepEqual(results(ip, ["{a:10.0.0.1}", "{a:10.0.0.2}", '{s:"host 10.0.0.1"}']), [
    true,
    false,
    true,
  ]);
  assert.deepEqual(results(lit("0x"), ["{a:0x}", "{a:0x0e00}"]), [true, false]);
  const long = "0x0e00924c694c98b6c11ef56f025f3255904f4e45";
  assert.deepEqual(results(lit(long), ["{a:0x}", `{a:${long}}`]), [false, true]);
  const ty = lit("<{x:int64}>");
  assert.deepEqual(results(ty, ["<int64>", "<string>", "<{x:int64}>"]), [false, false, true]);
  // Field names are not checked for literal terms.
  assert.deepEqual(results(lit("1.5"), ["{f:1.5}", '{"1.5":1}', "{f:1.5(float32)}"]), [
    true,
    false,
    true,
  ]);
});

Deno.test("literal search errors and edge cases", () => {
  assert.throws(
    () => compileLiteralSearch(z("1(uint64)"), "1"),
    { message: 'literal comparison of type "uint64" unsupported' },
  );
  // A string literal is a keyword search.
  assert.equal(compileLiteralSearch(z('"foo"'), '"foo"')(z("{FOO:1}")).body, true);
  // As in the reference, a null number reads as 0 and a null bool as false.
  assert.deepEqual(results(lit("0"), ["{a:null(int64)}", "{a:null(float64)}", "{a:1}"]), [
    true,
    true,
    false,
  ]);
  assert.deepEqual(results(lit("false"), ["{b:null(bool)}", "{b:true}"]), [true, false]);
  // Top-level errors never match a literal search.
  assert.equal(lit("1")(z("error(1)")).body, false);
});

Deno.test("net literal searches (§5.3)", () => {
  const net = lit("192.168.2.0/24");
  const input = [
    "{a:192.168.1.1}",
    "{a:192.168.1.1,list:[192.168.1.2,192.168.2.1]}",
    "{a:192.168.2.3}",
    "{n:192.168.1.0/24}",
    "{n:192.168.2.0/24}",
    "{nets:[192.168.1.0/24,192.168.2.0/24]}",
    "{nets:[192.168.3.0/24,192.168.4.0/24]}",
  ];
  assert.deepEqual(filter(net, input), [input[1], input[2], input[4], input[5]]);
  const ten = lit("10.0.0.0/8");
  assert.deepEqual(
    filter(ten, ["{a:10.1.2.3}", "11.1.2.3", "10.1.2.3", "{b:128.12.1.1}"]),
    ["{a:10.1.2.3}", "10.1.2.3"],
  );
  // No string matching; IPv6 addresses are not in IPv4 networks; errors are walked.
  assert.deepEqual(
    results(ten, [
      '{s:"10.0.0.0/8"}',
      "{a:0:0:0:0:0:ffff:a01:203}",
      "error(10.1.2.3)",
      "{a:null(ip)}",
    ]),
    [false, false, true, false],
  );
  const six = lit("fe80::/16");
  assert.deepEqual(results(six, ["fe80::1", "fe81::1", "10.0.0.1"]), [true, false, false]);
});

Deno.test("grep(pattern[, e]) (§6)", () => {
  const input = ["{foo:10}", '{bar:{s:"baz"}}'];
  assert.deepEqual(filter(compileGrep({ kind: "string", text: "baz" }), input), [input[1]]);
  assert.deepEqual(filter(compileGrep({ kind: "string", text: "10" }), input), []);
  assert.deepEqual(filter(compileGrep({ kind: "string", text: "foo" }), input), [input[0]]);
  assert.deepEqual(filter(compileGrep({ kind: "regexp", text: "foo|baz" }), input), input);
  assert.deepEqual(
    filter(compileGrep({ kind: "glob", text: "b*" }, field("s")), [
      '{s:"bar"}',
      '{s:"foo"}',
      '{s:"baz"}',
      '{t:"baz"}',
    ]),
    ['{s:"bar"}', '{s:"baz"}'],
  );
  assert.deepEqual(
    results(compileGrep({ kind: "glob", text: "*foo*" }), ['"foo"', "1", '{s:"xfooy"}', "true"]),
    [true, false, true, false],
  );
  assert.deepEqual(
    results(compileGrep({ kind: "regexp", text: "^ba.*" }, field("s")), [
      '"foo"',
      '{s:"bar"}',
      '{s:"baz"}',
      "{foo:1}",
    ]),
    [false, true, true, false],
  );
  assert.deepEqual(
    filter(compileGrep({ kind: "glob", text: "a*b" }, field("s")), [
      '{s:"axb"}',
      "{s:7(int32),a:2(int32),b:3(int32)}",
    ]),
    ['{s:"axb"}'],
  );
  // Globs and regexps are case-sensitive; strings are not.
  assert.deepEqual(results(compileGrep({ kind: "glob", text: "B*" }), ['"bar"', '"Bar"']), [
    false,
    true,
  ]);
  assert.deepEqual(results(compileGrep({ kind: "string", text: "B" }), ['"bar"', '"Bar"']), [
    true,
    true,
  ]);
  // grep("a") grep("b"): both must hold.
  const a = compileGrep({ kind: "string", text: "a" }),
    b = compileGrep({ kind: "string", text: "b" });
  assert.deepEqual(
    ['{s:"ab"}', '{s:"a"}', '{a:"b"}'].map((t) => a(z(t)).body && b(z(t)).body),
    [true, false, true],
  );
  // An error target is simply false.
  assert.equal(compileGrep({ kind: "string", text: "" }, () => MISSING)(z("{}")).body, false);
  assert.equal(compileKeywordSearch("missing")(MISSING).body, false);
});

Deno.test("glob conversion (reglob)", () => {
  assert.equal(reglob("b*"), "^b.*$");
  assert.equal(reglob("*z"), "^.*z$");
  assert.equal(reglob("foo*baz*.com"), "^foo.*baz.*\\.com$");
  assert.equal(reglob("A=*"), "^A\\=.*$");
  assert.equal(reglob("a\\*b*"), "^a\\*b.*$"); // the parser leaves an escaped star as \*
  assert.equal(reglob("**x***"), "^.*x.*$");
  assert.equal(reglob("a?[b]{c}*"), "^abc.*$");
  assert.equal(reglob("/$^+.()=!|,*"), "^\\/\\$\\^\\+\\.\\(\\)\\=\\!\\|\\,.*$");
  assert.equal(reglob("a-b:c%d#e@f~g_*"), "^a-b:c%d#e@f~g_.*$");
  // Non-ASCII text goes through byte by byte, as in the reference.
  assert.equal(reglob("é*"), "^\u00c3\u00a9.*$");
  const star = compileGlobSearch("a\\*b*");
  assert.deepEqual(results(star, ['"a*bc"', '"axbc"']), [true, false]);
  assert.deepEqual(results(compileGlobSearch("é*"), ['"école"', '"é"']), [false, false]);
});
