// Integer bodies decode to the numbers they encode, across the range where a
// body is a JS number and where it is a bigint (times are 64-bit).
import { deepStrictEqual as assertEquals } from "node:assert";
import { decodeInt, decodeUint } from "../../lib/formats/zng/decoder.ts";
import { TypeInt64, TypeUint64 } from "../../lib/zed/types.ts";
import { encodeBody } from "../../lib/zed/zcode.ts";
import { intBody } from "../../lib/zed/value.ts";

const INTS = [
  0n,
  1n,
  -1n,
  255n,
  -256n,
  2n ** 31n,
  -(2n ** 32n),
  2n ** 52n,
  2n ** 53n - 1n,
  -(2n ** 53n - 1n),
  2n ** 53n,
  -(2n ** 53n),
  2n ** 53n + 1n,
  2n ** 62n + 12345n,
  1521911721123456789n,
  -1521911721123456789n,
  2n ** 63n - 1n,
  -(2n ** 63n),
];

Deno.test("zng ints: int64 bodies decode to their values, numbers where safe", () => {
  for (const v of INTS) {
    const body = encodeBody(TypeInt64, intBody(v));
    assertEquals(decodeInt(body, 0, body.length), intBody(v), `${v}`);
  }
});

Deno.test("zng ints: uint64 bodies decode to their values, numbers where safe", () => {
  for (const v of INTS) {
    if (v < 0n) continue;
    const body = encodeBody(TypeUint64, intBody(v));
    assertEquals(decodeUint(body, 0, body.length), intBody(v), `${v}`);
  }
  const max = encodeBody(TypeUint64, 2n ** 64n - 1n);
  assertEquals(decodeUint(max, 0, max.length), 2n ** 64n - 1n);
});

Deno.test("zng ints: a body longer than 8 bytes counts its low 8, a body at an offset reads there", () => {
  const body = encodeBody(TypeInt64, -1521911721123456789n);
  const long = new Uint8Array(body.length + 3);
  long.set(body);
  long[body.length + 2] = 0x7f; // above the low 8 bytes
  assertEquals(decodeInt(long, 0, long.length), -1521911721123456789n);
  const framed = new Uint8Array([9, 9, ...body, 9]);
  assertEquals(decodeInt(framed, 2, body.length), -1521911721123456789n);
});
