// The legacy zng21 reader: the reference's own test stream, hand-made streams
// whose output and errors were checked against the reference's zq
// (`zq -z -i zng21 -` and auto-detection), random streams written by the
// small encoder below, and corrupted streams (values or LochErrors, never
// another exception or a hang).

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { openReader } from "../../lib/formats/detect.ts";
import { compressBlock } from "../../lib/formats/zng/lz4.ts";
import { detectZng21, Zng21Reader } from "../../lib/formats/zng21/reader.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import type { Value } from "../../lib/zed/value.ts";
import { concatBytes, rng, unbase64, unhex } from "./zng_helpers.ts";

// --- a small zng21 encoder -------------------------------------------------

/** Old types: primitives by old ID (0–22 but 10 and 13). */
export type T21 =
  | { k: "prim"; id: number }
  | { k: "record"; cols: [string, T21][] }
  | { k: "array" | "set"; elem: T21 }
  | { k: "map"; key: T21; val: T21 }
  | { k: "union"; types: T21[] }
  | { k: "enum"; syms: string[] }
  | { k: "named"; name: string; inner: T21 };

const utf8 = new TextEncoder();

export function uvarint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** An old tagged child: 0 for null, else (len+1)<<1 for primitives, len<<1|1 for containers. */
export function tagged(body: Uint8Array | null, container: boolean): number[] {
  if (body === null) return [0];
  const tag = container ? body.length * 2 + 1 : (body.length + 1) * 2;
  return [...uvarint(tag), ...body];
}

/** A counted (sign-magnitude) varint body, as both layouts encode ints. */
export function countedInt(n: bigint): Uint8Array {
  let u = n >= 0n ? n << 1n : ((-n) << 1n) | 1n;
  const out: number[] = [];
  while (u !== 0n) {
    out.push(Number(u & 0xffn));
    u >>= 8n;
  }
  return Uint8Array.from(out);
}

export function countedUint(u: bigint): Uint8Array {
  const out: number[] = [];
  while (u !== 0n) {
    out.push(Number(u & 0xffn));
    u >>= 8n;
  }
  return Uint8Array.from(out);
}

export function isContainer(t: T21): boolean {
  if (t.k === "named") return isContainer(t.inner);
  return t.k === "record" || t.k === "array" || t.k === "set" || t.k === "map" ||
    t.k === "union";
}

/** Writes a zng21 stream: typedefs are emitted on first use. */
export class Zng21Writer {
  out: number[] = [];
  private ids = new Map<string, number>();
  private nextId = 23;

  typeId(t: T21): number {
    if (t.k === "prim") return t.id;
    const key = JSON.stringify(t);
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const o = this.out;
    switch (t.k) {
      case "record": {
        const ids = t.cols.map(([, ct]) => this.typeId(ct));
        o.push(0xf6, ...uvarint(t.cols.length));
        t.cols.forEach(([name], i) => o.push(...this.name(name), ...uvarint(ids[i])));
        break;
      }
      case "array":
      case "set": {
        const id = this.typeId(t.elem);
        o.push(t.k === "array" ? 0xf7 : 0xf8, ...uvarint(id));
        break;
      }
      case "union": {
        const ids = t.types.map((m) => this.typeId(m));
        o.push(0xf9, ...uvarint(ids.length), ...ids.flatMap(uvarint));
        break;
      }
      case "enum":
        o.push(0xfa, ...uvarint(t.syms.length), ...t.syms.flatMap((s) => this.name(s)));
        break;
      case "map": {
        const k = this.typeId(t.key), v = this.typeId(t.val);
        o.push(0xfb, ...uvarint(k), ...uvarint(v));
        break;
      }
      case "named": {
        const id = this.typeId(t.inner);
        o.push(0xfc, ...this.name(t.name), ...uvarint(id));
        break;
      }
    }
    this.ids.set(key, this.nextId);
    return this.nextId++;
  }

  private name(s: string): number[] {
    const b = utf8.encode(s);
    return [...uvarint(b.length), ...b];
  }

  value(t: T21, body: Uint8Array): this {
    const id = this.typeId(t);
    if (id < 0xf5) this.out.push(id);
    else this.out.push(0xf5, ...uvarint(id - 0xf5));
    this.out.push(...uvarint(body.length), ...body);
    return this;
  }

  eos(): this {
    this.out.push(0xff);
    this.ids.clear();
    this.nextId = 23;
    return this;
  }

  app(bytes: number[]): this {
    this.out.push(0xfe, 2, ...uvarint(bytes.length), ...bytes);
    return this;
  }

  /** Replaces what was written since `from` with an LZ4 block of it. */
  compress(from: number): this {
    const raw = Uint8Array.from(this.out.slice(from));
    const dst = new Uint8Array(raw.length + raw.length / 255 + 16);
    const n = compressBlock(raw, dst);
    this.out.length = from;
    this.out.push(0xfd, 0, ...uvarint(raw.length), ...uvarint(n), ...dst.subarray(0, n));
    return this;
  }

  bytes(): Uint8Array {
    return Uint8Array.from(this.out);
  }
}

// --- random types and values -------------------------------------------------

const prims = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22];
const fieldNames = ["a", "b", "ts", "_x", "a b", "ünï", "1x", "x.y"];
const typeNames = ["port", "foo", "x.y", "n1", "my_type"];

export class Gen {
  constructor(private r: () => number) {}

  private int(n: number): number {
    return Math.floor(this.r() * n);
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }

  type(depth = 0): T21 {
    const k = depth >= 3 ? 0 : this.int(10);
    switch (k) {
      case 1:
      case 2: {
        const names = fieldNames.filter(() => this.r() < 0.4);
        return { k: "record", cols: names.map((n) => [n, this.type(depth + 1)]) };
      }
      case 3:
        return { k: "array", elem: this.type(depth + 1) };
      case 4:
        return { k: "set", elem: this.type(depth + 1) };
      case 5:
        return { k: "map", key: this.type(depth + 1), val: this.type(depth + 1) };
      case 6:
        return { k: "union", types: this.unionMembers(depth) };
      case 7:
        return { k: "enum", syms: ["x", "y", "zz"].slice(0, 1 + this.int(3)) };
      case 8:
        return { k: "named", name: this.pick(typeNames), inner: this.type(depth + 1) };
      default:
        return { k: "prim", id: this.pick(prims) };
    }
  }

  /**
   * Union members in the order the current type system sorts them (distinct
   * primitives by ID, then at most one complex type), so that the reference's
   * unchanged selectors pick the same member.
   */
  private unionMembers(depth: number): T21[] {
    const ids = prims.filter((id) => id !== 3 && id !== 17 && id !== 21 && this.r() < 0.15);
    const members: T21[] = ids.map((id) => ({ k: "prim", id }));
    if (members.length === 0 || this.r() < 0.3) {
      const t = this.type(depth + 1);
      if (t.k !== "prim" && t.k !== "named" && t.k !== "union") members.push(t);
    }
    return members.length > 0 ? members : [{ k: "prim", id: 7 }];
  }

  /** An old body of type t; null sometimes when `nullable`. */
  body(t: T21, nullable: boolean): Uint8Array | null {
    if (nullable && this.r() < 0.1) return null;
    const kids = (parts: (Uint8Array | null)[], types: T21[]) =>
      Uint8Array.from(parts.flatMap((p, i) => tagged(p, isContainer(types[i]))));
    switch (t.k) {
      case "prim":
        return this.primitive(t.id);
      case "named":
        return this.body(t.inner, false);
      case "record":
        return kids(t.cols.map(([, ct]) => this.body(ct, true)), t.cols.map(([, ct]) => ct));
      case "array":
      case "set": {
        const n = this.int(4);
        const ts = Array(n).fill(t.elem);
        return kids(ts.map((et) => this.body(et, true)), ts);
      }
      case "map": {
        const ts = Array(this.int(3)).fill(0).flatMap(() => [t.key, t.val]);
        return kids(ts.map((et) => this.body(et, true)), ts);
      }
      case "union": {
        const sel = this.int(t.types.length);
        const inner = t.types[sel];
        return Uint8Array.from([
          ...tagged(countedInt(BigInt(sel)), false),
          ...tagged(this.body(inner, true), isContainer(inner)),
        ]);
      }
      case "enum":
        return Uint8Array.from(tagged(countedUint(BigInt(this.int(t.syms.length))), false));
    }
  }

  private primitive(id: number): Uint8Array {
    const r = this.r;
    const big = () => BigInt(Math.floor(r() * 2 ** 32)) << BigInt(this.int(33));
    if (id <= 3) return countedUint(big());
    if (id <= 9) return countedInt(r() < 0.5 ? -big() : big());
    switch (id) {
      case 11:
        return new Uint8Array(new Float32Array([(r() - 0.5) * 1000]).buffer);
      case 12:
        return new Uint8Array(new Float64Array([(r() - 0.5) * 2 ** this.int(60)]).buffer);
      case 14:
        return Uint8Array.of(this.int(2));
      case 15:
        return Uint8Array.from({ length: this.int(5) }, () => this.int(256));
      case 16:
      case 21:
        return utf8.encode(this.pick(["", "hello", "a\tb", 'q"u', "ünï", "\u0000x", "\\"]));
      case 17:
        return this.r() < 0.5
          ? utf8.encode(this.pick(["plain", "tab\t", "\u0085nel"]))
          : Uint8Array.from({ length: 1 + this.int(6) }, () => this.int(256));
      case 18:
        return Uint8Array.from({ length: r() < 0.5 ? 4 : 16 }, () => this.int(256));
      case 19:
        return Uint8Array.of(10, 1, 0, 0, 255, 255, 0, 0);
      case 20:
        return Uint8Array.from(this.typeValue(this.type(1)));
      default:
        return new Uint8Array(0);
    }
  }

  /**
   * The old encoding of a type as the old writer made it: a name bound to
   * the same type earlier in the value is written by name. Enums are written
   * as empty records: the reference mangles enum type values.
   */
  typeValue(t: T21, names = new Map<string, string>()): number[] {
    const name = (s: string) => {
      const b = utf8.encode(s);
      return [...uvarint(b.length), ...b];
    };
    switch (t.k) {
      case "prim":
        return [t.id];
      case "record":
        return [
          25,
          ...uvarint(t.cols.length),
          ...t.cols.flatMap(([n, ct]) => [
            ...name(n),
            ...this.typeValue(ct, names),
          ]),
        ];
      case "array":
        return [26, ...this.typeValue(t.elem, names)];
      case "set":
        return [27, ...this.typeValue(t.elem, names)];
      case "map":
        return [30, ...this.typeValue(t.key, names), ...this.typeValue(t.val, names)];
      case "union":
        return [
          28,
          ...uvarint(t.types.length),
          ...t.types.flatMap((m) => this.typeValue(m, names)),
        ];
      case "enum":
        return [25, 0];
      case "named": {
        const inner = JSON.stringify(t.inner);
        if (names.get(t.name) === inner) return [24, ...name(t.name)];
        names.set(t.name, inner);
        return [23, ...name(t.name), ...this.typeValue(t.inner, names)];
      }
    }
  }

  /** A stream of random values of a few types, with EOS, app messages and LZ4 blocks. */
  stream(): Uint8Array {
    const w = new Zng21Writer();
    for (let part = 0; part < 3; part++) {
      const start = w.out.length;
      const types = Array.from({ length: 3 }, () => this.type());
      for (let i = 0; i < 8; i++) {
        const t = types[this.int(types.length)];
        w.value(t, this.body(t, false) as Uint8Array);
        if (this.r() < 0.05) w.app([1, 2, 3]);
      }
      if (this.r() < 0.4) w.compress(start);
      if (this.r() < 0.5) w.eos();
    }
    return w.bytes();
  }
}

// --- helpers -----------------------------------------------------------------

/** Chunks of b of the given size (all of b in one when size is 0). */
function chunked(b: Uint8Array, size: number, name = "stdio:stdin"): ByteInput {
  if (size === 0) return ByteInput.fromBytes(b, name);
  const it = (async function* () {
    for (let i = 0; i < b.length; i += size) yield b.slice(i, i + size);
  })();
  return new ByteInput(it, name);
}

/** What `zq -z` prints for the values, or the read error (the values before it are dropped, as zq does). */
async function zsonOf(reader: { read(): Promise<Value[] | null> }): Promise<string> {
  const values: Value[] = [];
  try {
    for (let b = await reader.read(); b !== null; b = await reader.read()) values.push(...b);
  } catch (e) {
    if (!(e instanceof LochError)) throw e;
    return `error: ${e.message}`;
  }
  let out = "";
  const w = new ZsonWriter((c) => {
    out += new TextDecoder().decode(c);
    return Promise.resolve();
  });
  try {
    await w.write(values);
    await w.end();
  } catch (e) {
    // zq fails the same way on values it cannot print (an enum index out of range).
    if (!(e instanceof LochError)) throw e;
    return `error: ${e.message}`;
  }
  return out;
}

const decode = (b: Uint8Array, chunk = 0) => zsonOf(new Zng21Reader(chunked(b, chunk)));

// --- the reference's test stream (zio/zng21io/ztests/test.yaml) ----------------

const refStream = unbase64(`
9gEBYQf8BHBvcnQH9gIBYRIBcBj5AgcQ9wf4B/sHEPca9gECdHYU9gEBYQD2AQFhAfYBAWEC9gEBYQP2AQFhBPYBAW
EF9gEBYQb2AQFhCPYBAWEJ9gEBYQv2AQFhDPYBAWEO9gEBYQ/2AQFhEPYBAWER9gEBYRL2AQFhE/YBAWEU9gEBYRX2
AQFhFvYA9gEBYTT2AQFhG/YBAWEc9gEBYRr7Bwf2AQFhOQABAQEBAQIBAQMBAQQBAgUBAgYBAgcBAhAFaGVsbG8RBX
dvcmxkEQtiaW5hcnkAanVuaxUEYmFuZxcCBAIZBwqAIAEBBKAaAwIE9hoIBAIMaGVsbG8bBgQCBAQEBhwGBAIEBAQG
HQwEAghmb28EBAhiYXIeDQcCBPYRBAIMaGVsbG8fAgQEHwgQFwRwb3J0ASABACEBACIBACMBACQBACUBACYBABcBAC
cBACgBACkBACoBACsBACwBAC0BAC4BAC8BADABADEBADIBADMBADUBADYBADcBADgBADoBAP8=`);

const refOutput = `1(uint8)
1(uint16)
1(uint32)
1(uint64)
1(int8)
1(int16)
1(int32)
1
"hello"
"world"
"binary\\u0000junk"
error("bang")
{a:1}
{a:128.32.1.1,p:80(=port)}
123((int64,string))
"hello"((int64,string))
[1,2,3]
|[1,2,3]|
|{1:"foo",2:"bar"}|
[123,"hello"]
{tv:<int8>}
{tv:<port=uint16>}
${
  "uint8 uint16 uint32 uint64 int8 int16 int32 int64 duration time float32 float64 bool bytes string"
    .split(" ").concat("string ip net type error(string)".split(" "))
    .map((t) => `{a:null(${t})}\n`).join("")
}{a:null}
{a:null({})}
{a:null([int64])}
{a:null(|[int64]|)}
{a:null((int64,string))}
{a:null(|{int64:int64}|)}
`;

Deno.test("zng21: the reference's test stream reads as its ztest expects", async () => {
  assert.equal(await decode(refStream), refOutput);
  // In small chunks, through `-i zng21`, and auto-detected.
  assert.equal(await decode(refStream, 1), refOutput);
  assert.equal(await decode(refStream, 7), refOutput);
  assert.equal(await zsonOf(await openReader(chunked(refStream, 5), "zng21")), refOutput);
  assert.equal(await zsonOf(await openReader(chunked(refStream, 0))), refOutput);
  assert.deepEqual(detectZng21("", true, refStream), { ok: true });
});

// --- hand-made streams, outputs and errors as zq v1.3.0 gives them ----------------

/** what | input in hex | zq's output or `error: ...`, as the contents of a JSON string. */
const cases = String.raw`
record typedef and value | f6 01 01 61 07  17 02 04 02 | {a:1}
a zero-length value | 07 00 | 0
zero-length and past-the-end values at the end are null | f6010161 07 17 02 | null({a:int64})
a length past the end of the input | 07 80 80 80 08 | null(int64)
two values | 07 01 02 07 01 04 | 1\n2
defining a type again reuses its ID | f6010161 07 1702 0402 f6010162 07 18020404 1702 0402 | {a:1}\n{b:2}\n{a:1}
an app message is skipped | fe 02 03 010203 07 01 02 | 1
a named type | fc 04 706f7274 01 17 01 50 fc 04 706f7274 01 17 01 51 | 80(port=uint16)\n81(port=uint16)
an enum | fa 02 0161 0162 17 02 04 01 | %b(enum(a,b))
the union selector is kept as is | f9 02 10 07 17 04 02 02 04 02 | 0((int64,string))
a uint64 type value becomes uint8 | 14 01 03 | <uint8>
an error type value | 14 01 15 | <error(string)>
a bstring that is not UTF-8 is hex-escaped | 11 03 61 ff 62 | "a\\\\xffb"
a UTF-8 bstring is kept | 11 04 61 c2 85 62 | "a\u0085b"
an LZ4 block | fd 00 03 04 30 07 01 02 07 01 04 | 1\n2
a value may continue past a block | fd 00 02 03 20 07 02 02 04 | 513
a truncated block header is skipped | fd |
EOS starts a new type context | f6010161 07 1702 0402 ff 1702 0402 | error: zng type ID out of range
an unknown type ID | 30 01 02 | error: zng type ID out of range
the float16 ID has no type | 0a 01 02 | error: zng type ID out of range
a truncated value | 07 | error: malformed zng record
a truncated body | 07 05 02 | error: malformed zng record
a truncated escaped ID | f5 80 | error: EOF
a truncated app message | fe 00 05 61 | error: truncated input
an app message at the end | fe 00 05 | error: EOF
a huge value | f5 12 ffffffffffffffff01 | error: large value of 144115188075855871 bytes exceeds maximum read buffer
a union of no types | f9 00 | error: type union: zero columns not allowed
duplicate fields | f6 02 0161 07 0161 07 | error: duplicate fields: a
an undefined type ID | f6 01 0161 40 | error: type id (64) not in type context (size 23)
a negative type ID | f6 01 0161 80808080808080808001 | error: type id (-9223372036854775808) cannot be negative
a primitive type name | fc 06 737472696e67 07 17 02 02 04 | error: bad type name "string": primitive type name
a type name that is not UTF-8 | fc 01 ff 07 17 01 02 | error: bad type name "\\xff": invalid UTF-8
a short record | f6010161 07 17 00 ff | error: zng21 short record value
a map without a value | fb 07 07 17 02 04 02 | error: zng21 conversion encountered bad map
an empty union value | f9 01 07 17 00 ff | error: zng21 conversion encountered bad union
a union selector out of range | f9 01 07 17 02 04 04 | error: union selector out of bounds
an empty enum value | fa 01 0161 17 00 ff | error: zng21 conversion encountered bad enum
an enum index out of range (zq fails to print it) | fa 00 17 02 04 01 | error: enum index out of range
an empty type value | 14 00 ff | error: truncated type value convert zng21 to zng
an unknown type value code | 14 01 1f | error: unknown type value converting zng21 to zng: 31
a bad LZ4 block | fd 00 03 03 02 0e 03 02 02 | error: zngio: lz4: invalid source or destination buffer too short
an unknown compression format | fd 05 03 02 0e 03 | error: zngio: unknown compression format 0x5
a block shorter than it says | fd 00 05 04 30 07 01 02 | error: zngio: got 3 uncompressed bytes, expected 5
compression inside compression | fd 00 02 03 20 fd 00 | error: zngio: cannot have zng compression inside of compression
`.trim().split("\n").map((line) => {
  const [what, hex, want] = line.split("|").map((f) => f.trim());
  assert.ok(hex !== undefined && want !== undefined, line);
  const out = JSON.parse(`"${want.replaceAll('"', '\\"')}"`);
  return [what, hex, out === "" || out.startsWith("error:") ? out : out + "\n"];
});

Deno.test("zng21: hand-made streams give zq's output and errors", async () => {
  for (const [what, hex, want] of cases) {
    const b = unhex(hex);
    assert.equal(await decode(b), want, what);
    assert.equal(await decode(b, 1), want, `${what} (1-byte chunks)`);
  }
});

Deno.test("zng21: values before an error are returned first", async () => {
  const r = new Zng21Reader(ByteInput.fromBytes(unhex("07 01 02 07 01 04 30 01 02")));
  const batch = await r.read();
  assert.deepEqual(batch?.map((v) => v.body), [1, 2]);
  await assert.rejects(() => r.read(), /zng type ID out of range/);
  await assert.rejects(() => r.read(), /zng type ID out of range/);
});

// --- detection ---------------------------------------------------------------------

Deno.test("zng21 detection: garbage, truncated input and prefixes", async () => {
  const text = (s: string) => new TextEncoder().encode(s);
  const detect = (b: Uint8Array, eof = true) => detectZng21("", eof, b);
  // Texts as the reference's detector sees them.
  assert.deepEqual(detect(text("This is not a detectable format.")), {
    ok: false,
    error: "malformed zng record",
  });
  assert.deepEqual(detect(text("a\n")), { ok: false, error: "zng type ID out of range" });
  assert.deepEqual(detect(text("\n")), { ok: false, error: "malformed zng record" });
  assert.deepEqual(detect(new Uint8Array(0)), { ok: true });
  assert.deepEqual(detect(unhex("f5")), { ok: false, error: "EOF" });
  assert.deepEqual(detect(unhex("f900")), {
    ok: false,
    error: "type union: zero columns not allowed",
  });
  // A prefix that ends mid-message needs more input unless it is all of it.
  const b = unhex("f6 01 01 61 07 17 02 04 02");
  for (let n = 1; n < b.length; n++) {
    assert.deepEqual(detect(b.subarray(0, n), false), { ok: "more" }, `prefix ${n}`);
  }
  assert.deepEqual(detect(b, false), { ok: true });
  // The reference replays at most 8 MiB while detecting: a longer first value is malformed.
  const big = new Uint8Array(9 * 1024 * 1024 + 5);
  big.set(unhex("0f 80 80 c0 04"));
  assert.deepEqual(detect(big.subarray(0, 8 * 1024 * 1024), false), {
    ok: false,
    error: "malformed zng record",
  });
  assert.deepEqual(detect(big.subarray(0, 4 * 1024 * 1024), false), { ok: "more" });
  assert.equal(
    (await decode(big)).slice(0, 12),
    "0x0000000000",
    "read in full when the format is given",
  );
});

Deno.test("zng21 detection: the reference's full listing for undetectable input", async () => {
  const input = ByteInput.fromBytes(
    new TextEncoder().encode("This is not a detectable format.\n"),
    "stdio:stdin",
  );
  await assert.rejects(
    () => openReader(input),
    (e: Error) => {
      assert.equal(
        e.message,
        "format detection error\n\tzeek: line 1: bad types/fields definition in zeek header\n" +
          "\tzjson: line 1: invalid character 'T' looking for beginning of value\n" +
          "\tzson: ZSON syntax error\n\tzng: malformed zng record\n\tzng21: malformed zng record\n" +
          "\tcsv: line 1: no comma found\n" +
          "\tjson: invalid character 'T' looking for beginning of value\n" +
          "\tparquet: auto-detection not supported\n\tzst: auto-detection not supported\n" +
          "\tline: auto-detection not supported",
      );
      return true;
    },
  );
});

// --- random and corrupted streams ---------------------------------------------------

Deno.test("zng21: random streams read whole, in any chunking", async () => {
  for (let seed = 1; seed <= 40; seed++) {
    const gen = new Gen(rng(seed));
    const b = gen.stream();
    const whole = await decode(b);
    assert.ok(!whole.startsWith("error:"), `seed ${seed}: ${whole}`);
    assert.equal(whole.split("\n").length - 1, 24, `seed ${seed}: 24 values`);
    assert.equal(await decode(b, 1 + (seed % 13)), whole, `seed ${seed} chunked`);
  }
});

function mutate(b: Uint8Array, r: () => number): Uint8Array {
  const m = b.slice();
  const at = Math.floor(r() * m.length);
  switch (Math.floor(r() * 4)) {
    case 0:
      for (let i = 0, n = 1 + Math.floor(r() * 3); i < n; i++) {
        m[Math.floor(r() * m.length)] ^= 1 + Math.floor(r() * 255);
      }
      return m;
    case 1:
      return m.subarray(0, at);
    case 2: {
      const junk = Uint8Array.from(
        { length: 1 + Math.floor(r() * 8) },
        () => Math.floor(r() * 256),
      );
      return concatBytes([m.subarray(0, at), junk, m.subarray(at)]);
    }
    default:
      return concatBytes([m.subarray(0, at), m.subarray(at + 1 + Math.floor(r() * 16))]);
  }
}

Deno.test("zng21 fuzz: corrupted streams give values or LochErrors", async () => {
  const r = rng(4242);
  let errors = 0;
  const started = Date.now();
  for (let i = 0; i < 400; i++) {
    const b = mutate(new Gen(rng(1000 + (i % 50))).stream(), r);
    // decode() rethrows anything that is not a LochError.
    const out = await decode(b);
    if (out.startsWith("error:")) errors++;
    const d = detectZng21("", true, b);
    assert.ok(d.ok === true || (d.ok === false && typeof d.error === "string"));
    const garbage = Uint8Array.from({ length: Math.floor(r() * 64) }, () => Math.floor(r() * 256));
    await decode(garbage);
    detectZng21("", false, garbage);
  }
  assert.ok(errors > 50, `some corruptions are errors (${errors})`);
  assert.ok(Date.now() - started < 60_000, "no hangs");
});
