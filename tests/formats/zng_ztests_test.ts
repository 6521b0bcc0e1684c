// The reference's ZNG ztests (zio/zngio/ztests, zio/anyio/ztests) and the
// detection examples of formats.md §8.

import assert from "node:assert/strict";
import { ByteInput } from "../../lib/formats/io.ts";
import { decodeZng, detectZng, ZngReader } from "../../lib/formats/zng/reader.ts";
import { encodeZng } from "../../lib/formats/zng/writer.ts";
import { zctx } from "../../lib/zed/context.ts";
import { TypeString } from "../../lib/zed/types.ts";
import { type Body, Value } from "../../lib/zed/value.ts";
import { encodeUtf8 } from "../../lib/zed/utf8.ts";
import { concatBytes, toZson, unbase64, zsonLines } from "./zng_helpers.ts";

async function gunzip(b: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([b as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** `zq - | zq -z -`: ZSON lines to ZNG and back. */
const roundTrips: Record<string, string> = {
  "complex-named": '["hello"(=bar),"world"(bar)]\n{a:["hello"(=bar),"world"(bar)]}\n',
  "null-vals": "null(int64)\nnull\nnull({s:string})\nnull([uint8])\nnull({})\nnull(bytes)\n",
  "outer-named": "0(=typ)\n{x:0}(=typ)\n",
  "primitive": '1\n"hello"\nerror("foo")\n',
  "string-set": [
    "{f:null(|[string]|)}",
    "{f:|[]|(|[string]|)}",
    "{f:|[null(string)]|}",
    '{f:|["dup"]|}',
    '{f:|["a","z"]|}',
    '{f:|["a","z"]|}',
    '{f:|[null(string),"a","z","dup"]|}',
  ].join("\n") + "\n",
  "union-array": '{a:["asdfasdf",null,100]}\n{a:null([(int64,string)])}\n',
  "union-nested": [
    '{a:"\\"hello\\""((string,[int64],[string],(int64,string)))}',
    "{a:[1,2]((string,[int64],[string],(int64,string)))}",
    '{a:["\\"a\\"","\\"b\\""]((string,[int64],[string],(int64,string)))}',
    "{a:123((int64,string))((string,[int64],[string],(int64,string)))}",
  ].join("\n") + "\n",
  "union-simple":
    '{a:"asdfasdf"((int64,string))}\n{a:1((int64,string))}\n{a:null((int64,string))}\n',
  "esc-typeid": Array.from({ length: 227 }, (_, i) => `{f${i}:${i}}\n`).join(""),
};

for (const [name, zson] of Object.entries(roundTrips)) {
  Deno.test(`zngio ztest ${name}`, () => {
    for (const compress of [true, false]) {
      const b = encodeZng(zsonLines(zson), { compress });
      assert.equal(toZson(decodeZng(b)), zson);
    }
  });
}

const SSL = '{_path:"ssl",ts:2017-03-24T19:59:23.053424Z,uid:"CfEBop2hbfJYpjG5Hd",' +
  "id:{orig_h:10.10.7.90,orig_p:51913(port=uint16),resp_h:54.230.87.24,resp_p:443(port)}," +
  'version:"TLSv12",cipher:"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",curve:null(string),' +
  'server_name:"choices.truste.com",resumed:true,last_alert:null(string),' +
  'next_protocol:"http/1.1",established:true,cert_chain_fuids:null([string]),' +
  "client_cert_chain_fuids:null([string]),subject:null(string),issuer:null(string)," +
  "client_subject:null(string),client_issuer:null(string),validation_status:null(string)}\n";

Deno.test("anyio ztest zng-gz: gzipped, LZ4-compressed stream", async () => {
  const gz = unbase64(
    "H4sIAGv26WEAAy1OwUrDQBTcpE3TprRYemi3h1YvgpdKCi1eaw2NogimWBRkSTdbsyXNLrubIngWBP/C3/AL9OoPePIs4k1EF/Vd5s17w8wcV8GN+W7aec6EMkC+wAS9RHGrCO55uyCI5L/k65q3DQjqFuKhiqGpZCWX0QiaNOrYKyIkZSksYMpjIqCFM7EisCyJBoHScEmgra2yJYkaThJKhcKECAUrKblSiAumGGYJLBOpwllCZax1a1grEI5DmqK5jpLrDZxQkioEwYdjy2y2IFjBApUy05nV/2cT1CtrAHTAm62vtVWY0ChUuh3S3iqTsFXcuDXyUiYl8Hn6cvd8sVUfzb1dxnvxbH5wxhfjvh/VLMexz3OPT9bgddrMPRj25DBYub1NDcgb7fkeOgmGaLo/8dHQC5Db20Hj0REK/GGvPwB1HDOKiewqkUlFupgtTQOUYqX4ttt19f433z8QM5onfgEAAA==",
  );
  const b = await gunzip(gz);
  assert.equal(b.length, 382);
  // A compressed types frame of 239 bytes holding 261, then a plain values frame.
  assert.deepEqual(Array.from(b.subarray(0, 5)), [0x4f, 0x0e, 0x00, 0x85, 0x02]);
  assert.equal(detectZng("", true, b).ok, true);
  assert.equal(toZson(decodeZng(b)), SSL);
});

Deno.test("anyio ztest zng-rdwr-comp: compressed and plain round trips", () => {
  const values = zsonLines(SSL);
  const comp = encodeZng(values);
  const plain = encodeZng(values, { compress: false });
  assert.ok(comp.length < plain.length);
  assert.equal(comp[0] & 0x40, 0x40);
  assert.equal(toZson(decodeZng(plain)), SSL);
  assert.equal(toZson(decodeZng(comp)), SSL);
});

Deno.test("anyio ztest fake-zng: malformed zng record", async () => {
  const b = unbase64("BQAAAQF4CRQAHhACAv8=");
  assert.throws(() => decodeZng(b), { message: "malformed zng record" });
  const r = new ZngReader(ByteInput.fromBytes(b));
  await assert.rejects(() => r.read(), { message: "malformed zng record" });
  assert.deepEqual(detectZng("", true, b), { ok: false, error: "malformed zng record" });
});

Deno.test("zngio ztest issue-4082: a ZST file read as ZNG", () => {
  const b = unbase64(
    "AgQCAgIEAQUFAAIGT2Zmc2V0CQZMZW5ndGgIBwdTZWdtZW50HgEfAAIEVHlwZRwGU2VnbWFwIAcJUHJpbWl0aXZlIQACB0xlbmd0aHMgBlZhbHVlcyIHBUFycmF5IxcBIAYFAgwCAiQPBQQBAgQJAgkGBQIEAgj/SAYAaPQKAQkAAgtza2V3X3RocmVzaAkOc2VnbWVudBAA8DgHDHpzdC5GaWxlTWV0YR8ABQVtYWdpYxkEdHlwZRkHdmVyc2lvbgkIc2VjdGlvbnMeBG1ldGEgBw16bmdpby5UcmFpbGVyIRMCIiIMWk5HIFRyYWlsZXIEenN0AgYFAg4C4goFAAAgAwQAAKD/",
  );
  assert.throws(() => decodeZng(b), { message: "primitive type ID 4 not implemented" });
});

Deno.test("zngio ztest big-value: frame length over -readmax", () => {
  // collect(s) over 4^7 copies of {s:"big data"},{s:"too big"}, written uncompressed.
  const strings: Body[] = [];
  for (let i = 0; i < 16384; i++) strings.push("big data", "too big");
  const t = zctx.lookupRecordOf(["collect"], [zctx.lookupArray(TypeString)]);
  const b = encodeZng([new Value(t, [strings])], { compress: false });
  assert.throws(
    () => decodeZng(b, { max: 10000 }),
    { message: "zngio: frame length (278535) exceeds maximum allowed (10000)" },
  );
  assert.equal(decodeZng(b).length, 1);
});

Deno.test("zngio ztest zctx-reset / zctx-named-reset: types restart per stream", () => {
  const a = encodeZng(zsonLines('{a:"hello"}\n{b:10}\n'));
  assert.equal(toZson(decodeZng(concatBytes([a, a]))), '{a:"hello"}\n{b:10}\n'.repeat(2));
  const t1 = encodeZng(zsonLines("{ts:2015-03-05T14:25:12.963801Z}"));
  const two = '{ts:2015-03-05T14:25:14.419939Z,proto:"udp"(=zenum)}\n'.repeat(2);
  const t2 = encodeZng(zsonLines(two));
  assert.equal(
    toZson(decodeZng(concatBytes([t1, t2]))),
    "{ts:2015-03-05T14:25:12.963801Z}\n" + two,
  );
});

Deno.test("zng detection: garbage text is a malformed zng record (load-garbage.yaml)", () => {
  for (const text of ["This file contains no records.\n", "This is not a detectable format.\n"]) {
    const b = encodeUtf8(text);
    assert.deepEqual(detectZng(text, true, b), { ok: false, error: "malformed zng record" });
  }
});

Deno.test("zng detection: prefixes, EOF and other formats", () => {
  const b = encodeZng(zsonLines("{a:1}\n{a:2}\n"));
  assert.deepEqual(detectZng("", true, b), { ok: true });
  assert.deepEqual(detectZng("", false, b), { ok: true });
  // Mid-frame prefixes need more input unless they are the whole input.
  assert.deepEqual(detectZng("", false, b.subarray(0, 3)), { ok: "more" });
  assert.deepEqual(detectZng("", false, b.subarray(0, 12)), { ok: "more" });
  assert.deepEqual(detectZng("", true, b.subarray(0, 12)), { ok: false, error: "truncated input" });
  // The reference ends quietly when the input stops right after a frame code.
  assert.deepEqual(detectZng("", true, b.subarray(0, 1)), { ok: true });
  const json = encodeUtf8('{"a":1}');
  assert.deepEqual(detectZng("", true, json), {
    ok: false,
    error: "unknown ZNG message frame type: 3",
  });
  // Validation is on: an unsorted set fails detection but not a plain read.
  const unsorted = new Uint8Array([
    0x02,
    0x00,
    0x02,
    0x09,
    0x16,
    0x00,
    0x1e,
    0x05,
    0x02,
    0x04,
    0x02,
    0x02,
    0xff,
  ]);
  assert.deepEqual(detectZng("", true, unsorted), {
    ok: false,
    error: "invalid ZNG: set elements not sorted",
  });
  assert.equal(toZson(decodeZng(unsorted)), "|[2,1]|\n");
});
