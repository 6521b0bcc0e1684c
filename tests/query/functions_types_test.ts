import assert from "node:assert/strict";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { errorValue } from "../../lib/query/runtime/values.ts";
import { call, each, field, fn, THIS, value } from "./functions_util.ts";

const divZero: Expr = () => errorValue("divide by zero");

Deno.test("typeof, typeunder, nameof", () => {
  assert.deepEqual(
    each(fn("typeof", THIS), [
      "1",
      '"foo"',
      "10.0.0.1",
      "[1,2,3]",
      '{s:"foo"}',
      "null",
      'error("missing")',
      "<int64>",
    ]),
    [
      "<int64>",
      "<string>",
      "<ip>",
      "<[int64]>",
      "<{s:string}>",
      "<null>",
      "<error(string)>",
      "<type>",
    ],
  );
  assert.deepEqual(each(fn("typeunder", THIS), ["{}", "{x:1}", "{x:1}(=foo)"]), [
    "<{}>",
    "<{x:int64}>",
    "<{x:int64}>",
  ]);
  assert.equal(fn("typeof", THIS)("{x:1}(=foo)"), "<foo={x:int64}>");
  assert.equal(
    fn("typeunder", THIS)('{which:"chocolate"}(=flavor)'),
    "<{which:string}>",
  );
  assert.deepEqual(each(fn("nameof", THIS), ["80(port=int16)", "80"]), [
    '"port"',
    'error("missing")',
  ]);
  const quietName = fn("quiet", call("nameof", THIS));
  assert.deepEqual(each(quietName, ["80(port=int16)", "80"]), ['"port"', 'error("quiet")']);
});

Deno.test("typename", () => {
  value("80(port=int16)");
  assert.equal(fn("typename", '"port"')(), "<port=int16>");
  assert.equal(fn("typename", '"nosuchtypename"')(), 'error("missing")');
  assert.equal(fn("typename", "1")(), 'error("typename: first argument not a string")');
  assert.equal(fn("typename", '"x"', "<int64>")(), "<int64>");
  assert.equal(
    fn("typename", '"x"', "1")(),
    'error("typename: second argument not a type value")',
  );
  // the latest binding of a name wins
  value('"x"(port=string)');
  assert.equal(fn("typename", '"port"')(), "<port=string>");
});

Deno.test("kind (ztest kind.yaml)", () => {
  assert.deepEqual(
    each(fn("kind", THIS), [
      "null",
      "null(bytes)",
      "0x1234",
      "error(null)",
      'error("foo")',
      "{}",
      "[1,2,3]",
      "[1,2,3](array=[int8])",
      "80(port=uint16)",
      '"foo"((int64,string))',
      "1((int64,string))",
      "<int64>",
      "<{s:string}>",
      "|[1,2,3]|",
      "|{1:1,2:2}|",
      "%heads(enum(heads,tails))",
    ]),
    [
      '"primitive"',
      '"primitive"',
      '"primitive"',
      '"error"',
      '"error"',
      '"record"',
      '"array"',
      '"array"',
      '"primitive"',
      '"union"',
      '"union"',
      '"primitive"',
      '"record"',
      '"set"',
      '"map"',
      '"enum"',
    ],
  );
  assert.equal(fn("kind", divZero)(), '"error"');
});

Deno.test("is", () => {
  const yes = fn("is", "<float64>"), no = fn("is", "<int64>");
  assert.equal(yes("1."), "true");
  assert.equal(no("1."), "false");
  assert.equal(fn("is", "<{s:string}>")('{s:"hello"}(=foo)'), "false");
  assert.equal(fn("is", "<foo>")('{s:"hello"}(=foo)'), "true");
  assert.equal(fn("is", field("a"), '"string"')('{a:"x"}'), "true");
  assert.equal(fn("is", '"{a:int32,b:string}"')('{a:1(int32),b:"x"}'), "true");
  assert.equal(fn("is", '"foo"')('{s:"hello"}(=foo)'), "true");
  assert.equal(fn("is", '"{bad"')("1"), "false");
  assert.equal(fn("is", "1")("1"), "false");
});

Deno.test("under (ztest under.yaml)", () => {
  assert.deepEqual(
    each(fn("under", THIS), [
      "null",
      "null(bytes)",
      "0x1234",
      "error(null)",
      'error("foo")',
      "{}",
      "[1,2,3]",
      "[1,2,3](array=[int8])",
      "80(port=uint16)",
      '"foo"((int64,string))',
      "1((int64,string))",
      '{err:"message"}',
      "<port=uint16>",
    ]),
    [
      "null",
      "null(bytes)",
      "0x1234",
      "null",
      '"foo"',
      "{}",
      "[1,2,3]",
      "[1(int8),2(int8),3(int8)]",
      "80(uint16)",
      '"foo"',
      "1",
      '{err:"message"}',
      "<uint16>",
    ],
  );
  assert.equal(fn("under", THIS)('error({err:"message"})'), '{err:"message"}');
});

Deno.test("error, is_error, has_error", () => {
  assert.deepEqual(each(fn("error", THIS), ["0", '"foo"', "10.0.0.1"]), [
    "error(0)",
    'error("foo")',
    "error(10.0.0.1)",
  ]);
  assert.equal(
    fn("error", THIS)('{message:"bad value",value:{foo:"foo"}}'),
    'error({message:"bad value",value:{foo:"foo"}})',
  );
  assert.deepEqual(
    each(fn("is_error", THIS), ['"not an error"', 'error("an error")', 'error("missing")']),
    [
      "false",
      "true",
      "true",
    ],
  );
  assert.deepEqual(
    each(fn("has_error", THIS), [
      "null",
      "error(0)",
      '{f1:127.0.0.1,f2:error("error")}',
      "[1,2]([(int64,error(string))])",
      '|{"key":error(0)((int64,error(int64)))}|',
      '{a:{b:"foo"}}',
      '{a:{b:"foo",x:error("missing")}}',
      "null(error(string))",
    ]),
    ["false", "true", "true", "false", "true", "false", "true", "true"],
  );
});

Deno.test("quiet, has, missing, coalesce", () => {
  assert.equal(fn("quiet", field("x"))("{}"), 'error("quiet")');
  assert.equal(fn("quiet", field("x"))("{x:1}"), "1");
  assert.equal(fn("quiet", divZero)(), 'error("divide by zero")');
  assert.equal(fn("has", field("foo"))("{foo:10}"), "true");
  assert.equal(fn("has", field("bar"))("{foo:10}"), "false");
  assert.equal(fn("has", field("bar"))("1"), "false");
  assert.equal(fn("has", field("x"))('{x:error("missing")}'), "false");
  assert.equal(fn("has", field("a"), divZero)("{a:1}"), 'error("divide by zero")');
  assert.equal(fn("has", field("a"), field("b"))("{a:1,b:2}"), "true");
  assert.equal(fn("missing", field("bar"))("{foo:10}"), "true");
  assert.equal(fn("missing", field("foo"))("{foo:10}"), "false");
  assert.equal(fn("missing", field("bar"))("1"), "true");
  assert.equal(fn("missing", divZero)("1"), 'error("divide by zero")');
  assert.equal(fn("coalesce", "null", 'error("missing")', 'error("quiet")', "1")(), "1");
  assert.equal(fn("coalesce", "null", 'error("missing")', 'error("quiet")')(), "null");
  assert.equal(fn("coalesce", "null(string)", 'error("x")')(), 'error("x")');
  const c = fn("coalesce", field("x"), "0");
  assert.deepEqual(each(c, ["{x:1}", "{y:2}"]), ["1", "0"]);
  assert.throws(() => fn("has"), /has\(\): too few arguments/);
});

Deno.test("len (ztest len.yaml)", () => {
  const cases: [string, string][] = [
    ["null", "0"],
    ["null(bytes)", "0"],
    ["0x", "0"],
    ["0x0123", "2"],
    ["null(string)", "0"],
    ['""', "0"],
    ['"string"', "6"],
    ["null(ip)", "0"],
    ["1.0.0.0", "4"],
    ["1::", "16"],
    ["null(net)", "0"],
    ["1.0.0.0/8", "8"],
    ["1::/8", "32"],
    ["error(null)", 'error({message:"len()",on:null(error(null))})'],
    ['error("")', 'error({message:"len()",on:error("")})'],
    ["null({})", "0"],
    ["{}", "0"],
    ["{x:1}", "1"],
    ['{x:1,s:"hello"}', "2"],
    ["{x:{a:1,b:2}}", "1"],
    ["null([int64])", "0"],
    ["[]([int64])", "0"],
    ["[1,2]", "2"],
    ["|[1,2]|", "2"],
    ["null(|{int64:int64}|)", "0"],
    ["|{1:1,2:2}|", "2"],
    ["<int64>", "1"],
    ["<type>", "1"],
    ["<{x:int64,y:int64}>", "2"],
    ["<(int64,string)>", "2"],
    ["<[int64]>", "1"],
    ["<[(int64,string)]>", "2"],
    ["<any=(int64,string)>", "2"],
    ["1", 'error("len: bad type: int64")'],
    ['"😎"', "4"],
    ["null({a:int64,b:int64})", "2"],
  ];
  const len = fn("len", THIS);
  for (const [input, want] of cases) assert.equal(len(input), want, input);
  assert.throws(() => fn("len", THIS, THIS), /len\(\): too many arguments/);
  assert.throws(() => fn("nosuch", THIS), /nosuch\(\): no such function/);
});
