import assert from "node:assert/strict";
import {
  goJsonString,
  goJsonSyntaxError,
  goMarshal,
  parseGoJson,
} from "../../lib/formats/zjson/gojson.ts";
import { JsonSyntaxError, parseJson } from "../../lib/formats/zjson/jsonparse.ts";

Deno.test("json.Marshal string escaping", () => {
  assert.equal(
    goJsonString('a"b\\c\n\r\t\b\f\u007f/'),
    '"a\\"b\\\\c\\n\\r\\t\\u0008\\u000c\u007f/"',
  );
  assert.equal(goJsonString("<>&\u2028\u2029"), '"\\u003c\\u003e\\u0026\\u2028\\u2029"');
  assert.equal(goJsonString("x\udc00y\ud800"), '"x\\ufffdy\\ufffd"');
});

Deno.test("json.Marshal of plain values", () => {
  assert.equal(
    goMarshal({ b: [1, 1.5, 1e21, -0, null, true], a: "<", c: { y: 1, x: 2 } }),
    '{"b":[1,1.5,1e+21,-0,null,true],"a":"\\u003c","c":{"y":1,"x":2}}',
  );
  assert.equal(goMarshal({ b: 1, a: { d: 1, c: 2 } }, true), '{"a":{"c":2,"d":1},"b":1}');
  assert.equal(goMarshal(12345678901234567890n), "12345678901234567890");
});

Deno.test("Go JSON syntax error texts", () => {
  const cases: [string, string | undefined][] = [
    ['{"a":1}', undefined],
    ["", "unexpected end of JSON input"],
    ['{"a":', "unexpected end of JSON input"],
    ["TRUE", "invalid character 'T' looking for beginning of value"],
    ["tru", "unexpected end of JSON input"],
    ["trux", "invalid character 'x' in literal true (expecting 'e')"],
    ["nul1", "invalid character '1' in literal null (expecting 'l')"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b"}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["1 2", "invalid character '2' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ["-x", "invalid character 'x' in numeric literal"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["1ex", "invalid character 'x' in exponent of numeric literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ["\u0001", "invalid character '\\x01' looking for beginning of value"],
    ["é", "invalid character 'Ã' looking for beginning of value"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
  ];
  for (const [text, want] of cases) assert.equal(goJsonSyntaxError(text), want, text);
});

Deno.test("the in-place JSON parser agrees with JSON.parse", () => {
  const seeds = [
    '{"type":{"kind":"ref","id":31},"value":["1",null,[true,false],{"a":-1.5e+3}]}',
    ' [ "a\\u00e9\\n\\"" , 0 , -0.0e-1 ] ',
    '{"__proto__":1,"b":{}}',
  ];
  const alphabet = ' \t\r\n{}[]":,\\0123456789-+.eEtrufalsn/ux\u0001é';
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let k = 0; k < 20000; k++) {
    let s = seeds[rnd(seeds.length)];
    const p = rnd(s.length + 1);
    const ch = alphabet[rnd(alphabet.length)];
    s = rnd(2) === 0 ? s.slice(0, p) + ch + s.slice(p) : s.slice(0, p) + s.slice(p + 1);
    let want: unknown = undefined;
    try {
      want = JSON.parse(s);
    } catch {
      // malformed
    }
    let got: unknown = undefined;
    try {
      // Parsed in place: the surrounding text must not leak in.
      got = parseJson("0" + s + "1", 1, s.length + 1);
    } catch (e) {
      assert.ok(e instanceof JsonSyntaxError, s);
    }
    assert.deepEqual(got, want, s);
    assert.equal(goJsonSyntaxError(s) === undefined, want !== undefined, s);
  }
  assert.equal(Object.getPrototypeOf(parseJson('{"__proto__":{"x":1}}')), Object.prototype);
});

Deno.test("Go's nesting limit is 10000", () => {
  const nest = (n: number) => "[".repeat(n) + "]".repeat(n);
  assert.equal(goJsonSyntaxError(nest(10000)), undefined);
  assert.equal(goJsonSyntaxError(nest(10001)), "invalid character '[' exceeded max depth");
  assert.throws(() => parseGoJson(nest(10001)), {
    message: "invalid character '[' exceeded max depth",
  });
  assert.ok(Array.isArray(parseGoJson(nest(10000))));
});
