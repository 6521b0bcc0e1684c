import assert from "node:assert/strict";
import { call, each, field, fn, THIS } from "./functions_util.ts";

Deno.test("fields (§6, ztest fields.yaml)", () => {
  assert.equal(fn("fields", THIS)("{a:1,b:2,c:{d:3,e:4}}"), '[["a"],["b"],["c","d"],["c","e"]]');
  assert.equal(fn("fields", THIS)("1"), 'error("missing")');
  assert.equal(fn("fields", THIS)("<{x:{y:int64},z:string}>"), '[["x","y"],["z"]]');
  assert.equal(
    fn("fields", THIS)('{r:{a:1(int8),b:2(int8)},s:"a"}'),
    '[["r","a"],["r","b"],["s"]]',
  );
  assert.equal(fn("fields", field("r"))('{r:{a:1(int8),b:2(int8)},s:"a"}'), '[["a"],["b"]]');
  // nested records are descended even when null
  assert.equal(fn("fields", THIS)("{a:null({b:int64})}"), '[["a","b"]]');
  // an array of arrays does not cast to strings: the value is unchanged
  assert.equal(
    fn("cast", call("fields", THIS), "<[string]>")("{a:1,b:{c:2}}"),
    '[["a"],["b","c"]]',
  );
});

Deno.test("flatten (ztest flatten.yaml)", () => {
  assert.deepEqual(
    each(fn("flatten", THIS), [
      "127.0.0.1",
      "{a:1,b:null}",
      '{a:1,b:{c:"foo",d:[1,2,3]}}',
      "{a:1,b:{c:2,d:{e:4,f:5}}}",
      "{foo:null({bar:int32})}",
      "{foo:{bar:2(int32)}}",
    ]),
    [
      "127.0.0.1",
      '[{key:["a"],value:1},{key:["b"],value:null}]',
      '[{key:["a"],value:1},{key:["b","c"],value:"foo"},{key:["b","d"],value:[1,2,3]}]',
      '[{key:["a"],value:1},{key:["b","c"],value:2},{key:["b","d","e"],value:4},{key:["b","d","f"],value:5}]',
      '[{key:["foo"],value:null({bar:int32})}]',
      '[{key:["foo","bar"],value:2(int32)}]',
    ],
  );
});

Deno.test("unflatten (ztest unflatten.yaml)", () => {
  assert.deepEqual(
    each(fn("unflatten", THIS), [
      '[{key:["a","a"],value:1},{key:["a","b"],value:2},{key:["a","x","z"],value:"foo"},{key:["b"],value:2},{key:["c"],value:3}]',
      '[{key:["b","b1"],value:4},{key:["b","b2"],value:5},{key:["b","b3","c"],value:[6,7,8]},{key:["b","b4"],value:["one","two","three"]}]',
      '[{key:"s",value:1}]',
      '[{key:["a","b"],value:1},{key:["a","c"],value:2},{key:"a",value:3}]',
      '[{key:"a",value:1},{key:"a",value:2}]',
      '[{key:["a","b"],value:1},{key:["a","b","c"],value:2}]',
      "[{key:1,value:1}]",
      '[{key:"a",value:1},{key:"b",value:2},{key:"a",value:2}]',
      '[{key:"a",value:1},{key:["b"],value:2}]',
      '[{key:"a",value:1},{x:1,y:2},{key:"b"}]',
      "1",
    ]),
    [
      '{a:{a:1,b:2,x:{z:"foo"}},b:2,c:3}',
      '{b:{b1:4,b2:5,b3:{c:[6,7,8]},b4:["one","two","three"]}}',
      "{s:1}",
      "{a:3}",
      "{a:2}",
      "{a:{b:{c:2}}}",
      'error({message:"invalid key type int64: expected either string or [string]",on:{key:1,value:1}})',
      'error({message:"duplicate field: \\"a\\"",on:[{key:"a",value:1},{key:"b",value:2},{key:"a",value:2}]})',
      "{a:1,b:2}",
      "{a:1}",
      "1",
    ],
  );
  // flatten and unflatten are inverses
  const input = '{a:1,b:{c:"x",d:{e:[1]}},f:null}';
  assert.equal(fn("unflatten", call("flatten", THIS))(input), input);
});

Deno.test("nest_dotted", () => {
  const n = fn("nest_dotted");
  assert.equal(n('{"a.b.c":"foo"}'), '{a:{b:{c:"foo"}}}');
  assert.equal(n('{a:1,"b.a":2,"b.b":3,"b.c.a":4,c:5}'), "{a:1,b:{a:2,b:3,c:{a:4}},c:5}");
  assert.equal(n("{a:1,b:2}"), "{a:1,b:2}");
  assert.equal(n("1"), "1");
  assert.equal(
    n('{"a.b":1,c:2,"a.c":3}'),
    'error("unflatten: fields in record a must be adjacent")',
  );
  // like the reference, the argument is ignored: `this` is nested
  assert.equal(fn("nest_dotted", field("x"))('{x:{"p.q":1},"a.b":2}'), '{x:{"p.q":1},a:{b:2}}');
});

Deno.test("parse_uri (ztest parse-uri.yaml)", () => {
  const p = fn("parse_uri", THIS);
  const none =
    "scheme:null(string),opaque:null(string),user:null(string),password:null(string),host:null(string),port:null(uint16),path:null(string),query:null(|{string:[string]}|),fragment:null(string)";
  assert.equal(p('""'), `{${none}}`);
  assert.equal(
    p('"scheme://user:password@host:12345/path?a=1&a=2&b=3&c=#fragment"'),
    '{scheme:"scheme",opaque:null(string),user:"user",password:"password",host:"host",port:12345(uint16),path:"/path",query:|{"a":["1","2"],"b":["3"],"c":[""]}|,fragment:"fragment"}',
  );
  assert.equal(
    p('"scheme:opaque"'),
    '{scheme:"scheme",opaque:"opaque",user:null(string),password:null(string),host:null(string),port:null(uint16),path:null(string),query:null(|{string:[string]}|),fragment:null(string)}',
  );
  assert.equal(p("1"), 'error("parse_uri: non-empty string arg required")');
  assert.equal(p("null(string)"), 'error("parse_uri: non-empty string arg required")');
  assert.equal(
    p('":no-scheme"'),
    'error("parse_uri: parse \\":no-scheme\\": missing protocol scheme (\\":no-scheme\\")")',
  );
  assert.equal(
    p('"scheme://bad-port:1234567"'),
    'error("parse_uri: invalid port: 1234567 (\\"scheme://bad-port:1234567\\")")',
  );
  assert.equal(
    p('"http://[::1]:80/a%20b?q=x+y#f%21"'),
    '{scheme:"http",opaque:null(string),user:null(string),password:null(string),host:"::1",port:80(uint16),path:"/a b",query:|{"q":["x y"]}|,fragment:"f!"}',
  );
  assert.equal(
    p('"http://h:x/"'),
    'error("parse_uri: parse \\"http://h:x/\\": invalid port \\":x\\" after host (\\"http://h:x/\\")")',
  );
});

Deno.test("parse_zson", () => {
  assert.equal(fn("parse_zson", field("foo"))('{foo:"{a:\\"1\\",b:2}"}'), '{a:"1",b:2}');
  assert.equal(fn("parse_zson", '"{a:\\"1\\",b:2}"')(), '{a:"1",b:2}');
  assert.equal(fn("parse_zson", "null(string)")(), "null");
  assert.equal(fn("parse_zson", '""')(), "null");
  assert.equal(fn("parse_zson", "1")(), 'error("parse_zson: string arg required")');
  assert.match(
    fn("parse_zson", '"{a:"')(),
    /^error\("parse_zson: parse error: .*\(\\"\{a:\\"\)"\)$/,
  );
  assert.equal(fn("parse_zson", '"1(=pzfoo)"')(), "1(=pzfoo)");
  assert.equal(fn("parse_zson", '"2(pzfoo)"')(), "2(=pzfoo)");
});

Deno.test("regexp (§6, ztest regexp.yaml)", () => {
  const r = fn("regexp", field("re"), field("in"));
  assert.deepEqual(
    each(r, [
      '{re:"abc|ced",in: "abcdef"}',
      '{re:"foo(.?) (\\\\w+) fr.*",in: "seafood fool friend"}',
      '{re:"foo(.?",in: "seafood fool"}',
      '{re:"doesnotmatch",in:"hello"}',
    ]),
    [
      '["abc"]',
      '["food fool friend","d","fool"]',
      'error("regexp: error parsing regexp: missing closing ): `foo(.?`")',
      "null([string])",
    ],
  );
  assert.equal(fn("regexp", '"bar"', '"foo"')(), "null([string])");
  assert.equal(fn("regexp", '"(a)|(b)"', '"b"')(), '["b",null(string),"b"]');
  assert.equal(fn("regexp", "1", '"foo"')(), 'error("regexp: string required for first arg")');
  assert.equal(fn("regexp", '"x"', "1")(), 'error("regexp: string required for second arg")');
  const last = fn("regexp", '"(.)$"', field("s"));
  assert.deepEqual(each(last, ['{s:"bar"}', '{s:"baz"}', "{foo:1}"]), [
    '["r","r"]',
    '["z","z"]',
    'error("regexp: string required for second arg")',
  ]);
});
