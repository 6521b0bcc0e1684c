// The worked byte examples of formats.md §4.9 and §4.10, both directions.

import assert from "node:assert/strict";
import { decodeZng, ZngDecoder } from "../../lib/formats/zng/reader.ts";
import { ZngControl } from "../../lib/formats/zng/scanner.ts";
import { CONTROL_ZSON, encodeZng, ZngEncoder } from "../../lib/formats/zng/writer.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { hex, toZson, unhex, zsonLines } from "./zng_helpers.ts";

const examples: [string, string][] = [
  ['{a:1,b:"x"}', "08 00 00 02 01 61 09 01 62 19 16 00 1e 05 02 02 02 78 ff"],
  ["1", "13 00 09 02 02 ff"],
  ["0", "12 00 09 01 ff"],
  ["-1", "13 00 09 02 03 ff"],
  ['"x"', "13 00 19 02 78 ff"],
  ["null", "12 00 1d 00 ff"],
  ["null(int64)", "12 00 09 00 ff"],
  ["1.5", "1a 00 10 09 00 00 00 00 00 00 f8 3f ff"],
  ["1.5(float32)", "16 00 0f 05 00 00 c0 3f ff"],
  ["1s", "16 00 0c 05 00 94 35 77 ff"],
  ["1970-01-01T00:00:01Z", "16 00 0d 05 00 94 35 77 ff"],
  ["10.0.0.1", "16 00 1a 05 0a 00 00 01 ff"],
  ["10.0.0.0/8", "1a 00 1b 09 0a 00 00 00 ff 00 00 00 ff"],
  ["::1", "12 01 1a 11" + " 00".repeat(15) + " 01 ff"],
  ["0x0102", "14 00 18 03 01 02 ff"],
  ["<{a:int64}>", "17 00 1c 06 1e 01 01 61 09 ff"],
  ["[1,2]", "02 00 01 09  16 00 1e 05 02 02 02 04 ff"],
  ["[]", "02 00 01 1d  12 00 1e 01 ff"],
  ["|[3,1,2]|", "02 00 02 09  18 00 1e 07 02 02 02 04 02 06 ff"],
  ['|{"b":1,"a":2}|', "03 00 03 19 09  1a 00 1e 09 02 61 02 04 02 62 02 02 ff"],
  ["1((int64,string))", "04 00 04 02 09 19  15 00 1e 04 01 02 02 ff"],
  ['"a"((int64,string))', "04 00 04 02 09 19  16 00 1e 05 02 02 02 61 ff"],
  ["null((int64,string))", "04 00 04 02 09 19  12 00 1e 00 ff"],
  ["%b(enum(a,b))", "06 00 05 02 01 61 01 62  13 00 1e 02 01 ff"],
  ['error("x")', "02 00 06 19  13 00 1e 02 78 ff"],
  ["1(=foo)", "06 00 07 03 66 6f 6f 09  13 00 1e 02 02 ff"],
  ["{}", "02 00 00 00  12 00 1e 01 ff"],
  ["{a:{b:1}}", "0a 00 00 01 01 62 09 00 01 01 61 1e  15 00 1f 04 03 02 02 ff"],
  [
    '{a:1}\n{b:"x"}\n{a:2}',
    "0a 00 00 01 01 61 09 00 01 01 62 19  1c 00 1e 03 02 02 1f 03 02 78 1e 03 02 04 ff",
  ],
  // The docs' hexdump (docs/commands/zq.md): `zq -f zng 'yield 1,[1,2,3]'`.
  ["1\n[1,2,3]", "02 00 01 09 1b 00 09 02 02 1e 07 02 02 02 04 02 06 ff"],
  // §1.6: a non-null union holding a null member.
  ["null(string)((int64,string))", "04 00 04 02 09 19  15 00 1e 04 02 02 00 ff"],
];

for (const [zson, bytes] of examples) {
  Deno.test(`zng example ${JSON.stringify(zson)}: writer bytes`, () => {
    const values = zsonLines(zson);
    assert.equal(hex(encodeZng(values)), hex(unhex(bytes)));
    assert.equal(hex(encodeZng(values, { compress: false })), hex(unhex(bytes)));
  });
  Deno.test(`zng example ${JSON.stringify(zson)}: reader values`, () => {
    const values = decodeZng(unhex(bytes));
    assert.equal(toZson(values), toZson(zsonLines(zson)));
    assert.deepEqual(values, zsonLines(zson));
  });
}

Deno.test("zng: empty output is zero bytes", () => {
  assert.equal(encodeZng([]).length, 0);
  const e = new ZngEncoder();
  e.endStream();
  e.endStream();
  assert.equal(e.take().length, 0);
  assert.deepEqual(decodeZng(new Uint8Array(0)), []);
});

function fiftyRecords() {
  const out = [];
  for (let i = 0; i < 50; i++) out.push(parseZsonValue(`{a:${i},s:"hello world hello world"}`));
  return out;
}

Deno.test("zng: the compressed frame example (§4.9)", () => {
  const values = fiftyRecords();
  const b = encodeZng(values);
  // Uncompressed types frame, then a compressed values frame of length 295
  // holding 1399 bytes: 1 format byte + uvarint(1399) + 292 LZ4 bytes.
  assert.equal(hex(b.subarray(0, 15)), "08 00 00 02 01 61 09 01 73 19 57 12 00 f7 0a");
  assert.equal(b.length, 10 + 5 + 292 + 1);
  assert.equal(b[b.length - 1], 0xff);
  assert.deepEqual(decodeZng(b), values);
  // Without compression the values frame is 1399 bytes.
  const plain = encodeZng(values, { compress: false });
  assert.equal(hex(plain.subarray(10, 13)), "17 57 1e");
  assert.equal(plain.length, 10 + 2 + 1399 + 1);
  assert.deepEqual(decodeZng(plain), values);
});

Deno.test("zng: frame threshold splits frames and keeps type ids", () => {
  const values = fiftyRecords();
  const b = encodeZng(values, { compress: false, frameThreshold: 100 });
  // Each flush writes the pending typedefs (only the first time) and values.
  assert.equal(b[0], 0x08);
  let frames = 0;
  let p = 0;
  while (b[p] !== 0xff) {
    const size = b[p] & 0xf | (b[p + 1] << 4);
    assert.ok(b[p + 1] < 0x80);
    p += 2 + size;
    frames++;
  }
  assert.equal(p, b.length - 1);
  assert.ok(frames > 10);
  assert.deepEqual(decodeZng(b), values);
});

Deno.test("zng: multiple.yaml (two concatenated streams)", () => {
  const b = unhex(
    "05 00 00 01 01 61 09 14 00 1e 03 02 02 ff 05 00 00 01 01 61 09 14 00 1e 03 02 02 ff",
  );
  assert.equal(toZson(decodeZng(b)), "{a:1}\n{a:1}\n");
  // The writer produces the same bytes with an end of stream in between.
  const e = new ZngEncoder();
  e.write(parseZsonValue("{a:1}"));
  e.endStream();
  e.write(parseZsonValue("{a:1}"));
  e.endStream();
  assert.equal(hex(e.take()), hex(b));
});

Deno.test("zng: rename.yaml and mixed-primitive-alias.yaml inputs", () => {
  const a = Uint8Array.from(atob("BQAAAQFzGRwAHgMCYR4DAmIeAwJh/w=="), (c) => c.charCodeAt(0));
  assert.equal(toZson(decodeZng(a)), '{s:"a"}\n{s:"b"}\n{s:"a"}\n');
  const b = Uint8Array.from(
    atob("AwEHBHBvcnQBAAEIc3JjX3BvcnQeFAAfAwJR/w=="),
    (c) => c.charCodeAt(0),
  );
  assert.equal(toZson(decodeZng(b)), "{src_port:81(port=uint16)}\n");
});

Deno.test("zng: control frames (§4.10)", () => {
  const body = "{channel_id:0}(=QueryChannelSet)\n";
  const e = new ZngEncoder();
  e.writeControl(body, CONTROL_ZSON);
  const b = e.take();
  assert.equal(hex(b.subarray(0, 4)), "22 02 02 7b");
  assert.equal(b.length, 2 + 34);
  const d = new ZngDecoder(b);
  const c = d.next();
  assert.ok(c instanceof ZngControl);
  assert.equal(c.format, 2);
  assert.equal(c.text, body);
  assert.equal(d.next(), null);
  // The plain decoder skips it.
  assert.deepEqual(decodeZng(b), []);
});

Deno.test("zng: control frames stay in order with values", () => {
  const e = new ZngEncoder();
  e.write(parseZsonValue("1"));
  e.writeControl("x", 3);
  e.write(parseZsonValue("2"));
  e.endStream();
  const b = e.take();
  assert.equal(hex(b), "13 00 09 02 02  22 00 03 78  13 00 09 02 04 ff".replace(/ +/g, " "));
  const d = new ZngDecoder(b);
  const got: string[] = [];
  for (let r = d.next(); r !== null; r = d.next()) {
    if (r instanceof ZngControl) got.push(`control ${r.format} ${r.text}`);
    else if (r !== undefined) got.push(toZson(r).trim());
  }
  assert.deepEqual(got, ["1", "control 3 x", "2"]);
});
