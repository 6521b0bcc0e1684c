import assert from "node:assert/strict";
import { castValue, compileCast } from "../../lib/query/expr/cast.ts";
import { parseDate } from "../../lib/query/expr/dateparse.ts";
import { formatTime } from "../../lib/zed/time.ts";
import { each, field, fn, show, THIS, type, value } from "./functions_util.ts";

function cast(v: string, t: string): string {
  return show(castValue(value(v), type(t)));
}

function castAll(t: string, inputs: string[]): string[] {
  return inputs.map((v) => cast(v, t));
}

Deno.test("cast: int8 range and strings (§4.14)", () => {
  assert.deepEqual(castAll("int8", ["1", "200", '"123"', '"200"']), [
    "1(int8)",
    'error("cannot cast 200 to type int8")',
    "123(int8)",
    'error("cannot cast \\"200\\" to type int8")',
  ]);
  assert.equal(cast("-1.9", "int16"), "-1(int16)");
  assert.equal(cast("1e30", "int64"), "-9223372036854775808");
  assert.equal(cast('"1.5"', "int32"), 'error("cannot cast \\"1.5\\" to type int32")');
  assert.equal(cast("10.0.0.1", "int64"), 'error("cannot cast 10.0.0.1 to type int64")');
});

Deno.test("cast: unsigned", () => {
  assert.equal(cast("-1", "uint8"), 'error("cannot cast -1 to type uint8")');
  assert.equal(cast("255", "uint8"), "255(uint8)");
  assert.equal(cast("256", "uint8"), 'error("cannot cast 256 to type uint8")');
  assert.equal(cast('"18446744073709551615"', "uint64"), "18446744073709551615(uint64)");
  assert.equal(cast("2.9", "uint16"), "2(uint16)");
});

Deno.test("cast: floats", () => {
  assert.equal(cast('"1.5"', "float64"), "1.5");
  assert.equal(cast("1", "float32"), "1.(float32)");
  assert.equal(cast("0.1", "float32"), "0.1(float32)");
  assert.equal(cast('"x"', "float64"), 'error("cannot cast \\"x\\" to type float64")');
});

Deno.test("cast: time strings (§4.14)", () => {
  assert.deepEqual(castAll("time", ['"May 8, 2009 5:57:51 PM"', '"oct 7, 1970"']), [
    "2009-05-08T17:57:51Z",
    "1970-10-07T00:00:00Z",
  ]);
  // ztest cast-time.yaml
  assert.deepEqual(
    castAll("time", [
      "null",
      "1.521911720600843e+18",
      '"2018-03-24T17:15:20.600843Z"',
      '"2015-03-05T16:07:13.154566+0100"',
      '"2015-03-05T16:07:13.154566+01:00"',
      '"1/2/2020"',
      '"12 Feb 2006 19:17"',
    ]),
    [
      "null(time)",
      "2018-03-24T17:15:20.600843008Z",
      "2018-03-24T17:15:20.600843Z",
      "2015-03-05T15:07:13.154566Z",
      "2015-03-05T15:07:13.154566Z",
      "2020-01-02T00:00:00Z",
      "2006-02-12T19:17:00Z",
    ],
  );
  assert.equal(cast('"5/26/2020 3:27pm"', "time"), "2020-05-26T15:27:00Z");
  assert.equal(cast('"a"', "time"), 'error("cannot cast \\"a\\" to type time")');
});

Deno.test("cast: time and duration from numbers and numeric strings (ztest)", () => {
  for (const t of ['"1"', "1", "1."]) {
    assert.equal(cast(t, "time"), "1970-01-01T00:00:00.000000001Z");
    assert.equal(cast(t, "duration"), "1ns");
  }
  assert.equal(cast('"1h30m"', "duration"), "1h30m");
  assert.equal(cast("10d", "duration"), "10d");
  assert.equal(cast('"x"', "duration"), 'error("cannot cast \\"x\\" to type duration")');
  assert.equal(cast("true", "time"), 'error("cannot cast true to type time")');
});

Deno.test("cast: time to numbers (ztest cast-time-to-number)", () => {
  const t = "2022-02-12T15:48:36.761595Z";
  assert.equal(cast(t, "duration"), "52y55d15h48m36.761595s");
  assert.equal(cast(t, "int64"), "1644680916761595000");
  assert.equal(cast(t, "uint64"), "1644680916761595000(uint64)");
  assert.equal(cast(t, "float64"), "1644680916761594880.");
  assert.equal(cast(t, "time"), t);
});

Deno.test("cast: bool (ztest cast-bool)", () => {
  assert.deepEqual(castAll("bool", ["0", '"F"', "1.", "2", '"T"', "0.5", '"yes"']), [
    "false",
    "false",
    "true",
    "true",
    "true",
    "false",
    'error("cannot cast \\"yes\\" to bool")',
  ]);
});

Deno.test("cast: string", () => {
  assert.deepEqual(
    castAll("string", ["1.5", "1.", "10.0.0.1", "1h", "<int64>", "1(int32)", "0x303132"]),
    ['"1.5"', '"1."', '"10.0.0.1"', '"1h"', '"<int64>"', '"1(int32)"', '"012"'],
  );
  assert.equal(
    cast("0xc328", "string"),
    'error("non-UTF-8 bytes cannot be cast to type string")',
  );
  assert.equal(cast("%heads(enum(heads,tails))", "string"), '"heads"');
  assert.equal(cast('"a"(=foo)', "string"), '"a"');
  assert.equal(cast("80(port=uint16)", "string"), '"80(port=uint16)"');
});

Deno.test("cast: bytes, ip, net", () => {
  assert.equal(cast('"hi"', "bytes"), "0x6869");
  assert.equal(cast("1", "bytes"), "0x02");
  assert.equal(cast('"10.0.0.1"', "ip"), "10.0.0.1");
  assert.equal(cast('"::1"', "ip"), "::1");
  assert.equal(cast("1", "ip"), 'error("cannot cast 1 to type ip")');
  assert.equal(cast('"foo"', "ip"), 'error("cannot cast \\"foo\\" to type ip")');
  assert.equal(cast('"74.53.140.153/32"', "net"), "74.53.140.153/32");
  assert.equal(cast('"10.1.2.3/8"', "net"), "10.0.0.0/8");
  assert.equal(cast("10.0.0.0/8", "net"), "10.0.0.0/8");
  assert.equal(cast("1.1.1.1", "ip"), "1.1.1.1");
});

Deno.test("cast: nulls, errors, type and null targets", () => {
  assert.equal(cast("null", "string"), "null(string)");
  assert.equal(cast("null", "ip"), "null(ip)");
  assert.equal(cast('error("x")', "int64"), 'error("x")');
  assert.equal(cast("1", "type"), 'error("cast to type not implemented")');
  assert.equal(cast("1", "null"), 'error("cast to null not implemented")');
  assert.equal(cast("<int64>", "type"), "<int64>");
});

Deno.test("cast: complex inputs to primitives and primitives to complex are unchanged", () => {
  assert.equal(cast("{a:1}", "string"), "{a:1}");
  assert.equal(cast("[1,2]", "int64"), "[1,2]");
  assert.equal(cast('"foo"', "{a:int64}"), '"foo"');
  assert.equal(cast("1", "[int64]"), "1");
});

Deno.test("cast: named targets relabel (§4.14)", () => {
  const port = type("port=uint16");
  const e = compileCast(THIS, port);
  assert.equal(show(e(value("80"))), "80(port=uint16)");
  assert.equal(show(e(value("8080"))), "8080(port=uint16)");
  assert.equal(cast("80(port=uint16)", "uint16"), "80(uint16)");
});

Deno.test("cast: arrays and sets (§4.14, ztest cast-array)", () => {
  assert.equal(cast('["10.0.0.1","10.0.0.2"]', "[ip]"), "[10.0.0.1,10.0.0.2]");
  assert.deepEqual(
    castAll("[string]", ["null", "[null]", "|[null]|", '["1","2"]', "[1,2]", "|[1,2]|"]),
    ["null([string])", "[null(string)]", "[null(string)]", '["1","2"]', '["1","2"]', '["1","2"]'],
  );
});

Deno.test("cast: records (§4.14, §6 cast)", () => {
  const t = "{ts:time,r:{x:float64,y:float64}}";
  assert.equal(
    cast('{ts:"1/1/2022",r:{x:"1",y:"2"}}', t),
    "{ts:2022-01-01T00:00:00Z,r:{x:1.,y:2.}}",
  );
  assert.equal(cast('{ts:"1/2/2022",r:{x:3,y:4}}', t), "{ts:2022-01-02T00:00:00Z,r:{x:3.,y:4.}}");
  assert.deepEqual(castAll("{b:string}", ["{a:1,b:2}", "{a:3}", "{b:4}"]), [
    '{a:1,b:"2"}',
    "{a:3}",
    '{b:"4"}',
  ]);
  assert.equal(
    cast('{name:"steve",likes:"spicy",age:"52"}', "person={name:string,likes:string,age:int64}"),
    '{name:"steve",likes:"spicy",age:52}(=person)',
  );
});

Deno.test("cast: unions (ztest cast-union)", () => {
  assert.deepEqual(
    castAll("(int64,string)", [
      "null",
      "null(int64)",
      "null(string)",
      "null((int64,string))",
      "1((int64,string))",
      "1",
      '"a"((int64,string))',
      '"a"',
    ]),
    [
      "null((int64,string))",
      "null((int64,string))",
      "null((int64,string))",
      "null((int64,string))",
      "1((int64,string))",
      "1((int64,string))",
      '"a"((int64,string))',
      '"a"((int64,string))',
    ],
  );
});

Deno.test("cast: maps are unsupported", () => {
  assert.equal(
    cast("{a:1}", "|{string:int64}|"),
    'error("cannot yet use maps in shaping functions (issue #2894)")',
  );
});

Deno.test("cast: from unions (ztest shape-cast-from-union)", () => {
  const f = fn("cast", field("from"), field("to"));
  assert.deepEqual(
    each(f, [
      "{from:null((int64,string)),to:<string>}",
      "{from:null(int64)((int64,string)),to:<string>}",
      "{from:1((int64,string)),to:<string>}",
      "{from:1(int8)((int8,string)),to:<(int64,string)>}",
      "{from:1((int64,string)),to:<(int8,string)>}",
      '{from:"one"((int64,string)),to:<string>}',
      '{from:[1,"one"],to:<[string]>}',
      '{from:[1,"one"],to:<[(int8,string)]>}',
      '{from:[1,"one"],to:<[(int8,int16)]>}',
      '{from:{a:[1,"one"]},to:<{a:[string]}>}',
      '{from:{a:[1,"one"]},to:<{a:[(int8,string)]}>}',
    ]),
    [
      "null(string)",
      "null(string)",
      '"1"',
      'error("createStep: incompatible types (int8,string) and (int64,string)")',
      'error("createStep: incompatible types (int64,string) and (int8,string)")',
      '"one"',
      '["1","one"]',
      'error("createStep: incompatible types (int64,string) and (int8,string)")',
      'error("createStep: incompatible types (int64,string) and (int8,int16)")',
      '{a:["1","one"]}',
      'error("createStep: incompatible types (int64,string) and (int8,string)")',
    ],
  );
});

Deno.test("dateparse: layouts", () => {
  const cases: [string, string][] = [
    ["2014-04-26", "2014-04-26T00:00:00Z"],
    ["2014-04", "2014-04-01T00:00:00Z"],
    ["2014", "2014-01-01T00:00:00Z"],
    ["20140601", "2014-06-01T00:00:00Z"],
    ["1332151919", "2012-03-19T10:11:59Z"],
    ["1384216367189", "2013-11-12T00:32:47.189Z"],
    ["2009-08-12T22:15:09-07:00", "2009-08-13T05:15:09Z"],
    ["2019-05-29T08:41-04", "2019-05-29T12:41:00Z"],
    ["2014-05-11 08:20:13,787", "2014-05-11T08:20:13.787Z"],
    ["2012-08-03 18:31:59.257000000 +0000 UTC", "2012-08-03T18:31:59.257Z"],
    ["2020-07-20+08:00", "2020-07-19T16:00:00Z"],
    ["Mon Jan  2 15:04:05 2006", "2006-01-02T15:04:05Z"],
    ["Mon Jan 02 15:04:05 -0700 2006", "2006-01-02T22:04:05Z"],
    ["Monday, 02-Jan-06 15:04:05 MST", "2006-01-02T15:04:05Z"],
    ["Mon, 02 Jan 2006 15:04:05 MST", "2006-01-02T15:04:05Z"],
    ["Tue, 11 Jul 2017 16:28:13 +0200 (CEST)", "2017-07-11T14:28:13Z"],
    ["Fri Jul 03 2015 18:04:07 GMT+0100 (GMT Daylight Time)", "2015-07-03T17:04:07Z"],
    ["September 17, 2012 10:09am", "2012-09-17T10:09:00Z"],
    ["September 17, 2012 at 10:09am PST-08", "2012-09-17T18:09:00Z"],
    ["Mon 30 Sep 2018 09:09:09 PM UTC", "2018-09-30T21:09:09Z"],
    ["2017-07-19T03:21:51:897+0100", "2017-07-19T02:21:51.897Z"],
    ["171113 14:14:20", "2017-11-13T14:14:20Z"],
    ["2014年04月08日", "2014-04-08T00:00:00Z"],
    ["October 7th, 1970", "1970-10-07T00:00:00Z"],
    ["oct. 7, '70", "1970-10-07T00:00:00Z"],
    ["12 Feb 2006, 19:17", "2006-02-12T19:17:00Z"],
    ["7 oct 70", "1970-10-07T00:00:00Z"],
    ["2013-Feb-03", "2013-02-03T00:00:00Z"],
    ["06/Jan/2008:15:04:05 -0700", "2008-01-06T22:04:05Z"],
    ["8/8/1965 12:00:00 AM", "1965-08-08T00:00:00Z"],
    ["8/8/1965 01:00 PM", "1965-08-08T13:00:00Z"],
    ["08/21/71", "1971-08-21T00:00:00Z"],
    ["2014/4/8 22:05", "2014-04-08T22:05:00Z"],
    ["2012:03:19 10:11:59.3186369", "2012-03-19T10:11:59.3186369Z"],
    ["3.31.2014", "2014-03-31T00:00:00Z"],
    ["2014.03.30", "2014-03-30T00:00:00Z"],
    ["20140722105203", "2014-07-22T10:52:03Z"],
  ];
  for (const [text, want] of cases) {
    const ns = parseDate(text);
    assert.notEqual(ns, undefined, text);
    assert.equal(formatTime(ns!), want, text);
  }
  for (const bad of ["1", "1.5", "12345", "foo", "-1", "2014-13-01", "Feb 30, 2020", ""]) {
    assert.equal(parseDate(bad), undefined, bad);
  }
});
