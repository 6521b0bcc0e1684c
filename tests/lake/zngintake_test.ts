// A ZNG load copies its values' bodies into the sort buffer as they are
// (ZngReader.readEncoded, lake/load.ts): the objects, values, warnings and
// errors must be exactly those of decoding every value and adding it. (Of a
// corrupt stream, bodies that decode but are not as a writer encodes them —
// a string that is not UTF-8, an int in more bytes than it needs — are kept
// as they came, as the reference keeps them, where decoding makes them anew:
// the same values, other bytes.)

import assert from "node:assert/strict";
import { encodeZng } from "../../lib/formats/zng/writer.ts";
import { zctx } from "../../lib/zed/context.ts";
import {
  Field,
  type Type,
  TypeBool,
  TypeFloat32,
  TypeFloat64,
  TypeInt64,
  TypeIP,
  TypeNet,
  TypeString,
  TypeTime,
  TypeType,
} from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import { mutate, rng } from "../formats/zng_helpers.ts";
import { ValueGen } from "../formats/zng_random.ts";

import { assertSameOutcome, keyedPool, loadInto, type Outcome, withLake } from "./helpers.ts";
import type { Lake } from "../../lib/lake/lake.ts";

/** Loads bytes both ways (bodies copied, and every value decoded); fails unless they agree. */
async function agree(
  lake: Lake,
  name: string,
  bytes: Uint8Array,
  sizes: number[],
  threshold?: number,
  order: "asc" | "desc" = "asc",
  exact = true,
  format = "auto",
): Promise<Outcome> {
  const pool = (p: string) => keyedPool(lake, p, "ts", order, { threshold });
  const fast = await loadInto(lake, pool(`${name}f`), bytes, sizes, true, format);
  const slow = await loadInto(lake, pool(`${name}s`), bytes, sizes, false, format);
  assertSameOutcome(fast, slow, name, exact);
  return fast;
}

/** Streams of random types and values (every kind: unions, maps, sets, enums, errors, named, type values). */
function randomStreams(seed: number): Uint8Array[] {
  const r = rng(seed);
  const gen = new ValueGen(r, { zsonSafe: false });
  const out: Uint8Array[] = [];
  for (let k = 0; k < 4; k++) {
    const types = Array.from({ length: 4 }, () => gen.type());
    const values = Array.from({ length: 40 }, (_, i) => gen.value(types[i % 4]));
    out.push(encodeZng(values, { compress: k % 2 === 0, frameThreshold: 150 + k * 400 }));
  }
  return out;
}

/** Log records with a ts (a time, or now and then a string or missing), some nested. */
function logStream(n: number, compress: boolean): Uint8Array {
  const r = rng(n);
  const inner = zctx.lookupRecord([new Field("x", TypeString), new Field("y", TypeTime)]);
  const rec = zctx.lookupRecord([
    new Field("ts", TypeTime),
    new Field("s", TypeString),
    new Field("n", inner),
  ]);
  const other = zctx.lookupRecord([new Field("ts", TypeString), new Field("s", TypeString)]);
  const values: Value[] = [];
  for (let i = 0; i < n; i++) {
    const ts = BigInt(Math.floor(r() * 1e6)) * 1000n;
    if (i % 17 === 5) values.push(new Value(other, [`2020-01-0${i % 9 + 1}`, "str ts"]));
    else if (i % 23 === 7) values.push(new Value(inner, ["no ts", ts]));
    else values.push(new Value(rec, [i % 5 === 0 ? null : ts, "é".repeat(i % 4), ["a", ts]]));
  }
  return encodeZng(values, { compress, frameThreshold: 300 });
}

Deno.test("ZNG loaded with its bodies copied gives the objects and values decoding gives, in any chunking", async () => {
  await withLake(async (lake) => {
    let k = 0;
    for (let seed = 1; seed <= 4; seed++) {
      for (const bytes of randomStreams(seed)) {
        for (const sizes of [[1 << 20], [1, 7, 300]]) {
          const got = await agree(lake, `r${k++}`, bytes, sizes);
          assert.equal(got.error, null);
        }
      }
    }
    for (const compress of [true, false]) {
      const bytes = logStream(400, compress);
      // Small thresholds: objects end mid-frame and mid-batch.
      for (const threshold of [undefined, 700, 2000]) {
        for (const order of ["asc", "desc"] as const) {
          const got = await agree(lake, `l${k++}`, bytes, [1 << 20, 5], threshold, order);
          assert.equal(got.error, null);
          assert.equal(got.zson.length, 400);
          if (threshold !== undefined) assert.ok(got.objects.length > 3, `${got.objects.length}`);
        }
      }
    }
  });
});

Deno.test("corrupt ZNG fails, warns and keeps values where decoding does", async () => {
  await withLake(async (lake) => {
    const r = rng(4242);
    let k = 0, failed = 0;
    for (let seed = 5; seed <= 7; seed++) {
      for (const good of [...randomStreams(seed), logStream(120, seed % 2 === 0)]) {
        for (let i = 0; i < 12; i++) {
          const bad = mutate(good, r);
          const got = await agree(lake, `m${k++}`, bad, [1 << 20, 64], 1500, "asc", false);
          if (got.error !== null || got.warnings.length > 0) failed++;
        }
      }
    }
    // Most mutations break the stream somewhere.
    assert.ok(failed > k / 2, `${failed} of ${k} failed`);
  });
});

/** A uvarint's bytes. */
function uvarint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/**
 * A stream whose values of type t have the given bodies (null: a null), in
 * one values frame after the typedefs our writer makes for t.
 */
function streamOf(t: Type, bodies: (number[] | null)[]): Uint8Array {
  // The typedefs: those of a null of type t, up to its values frame.
  const head = encodeZng([new Value(t, null)], { compress: false });
  let p = 0;
  for (;;) {
    const code = head[p];
    if (((code >> 4) & 3) === 1) break;
    let hi = 0, scale = 1, q = p + 1;
    for (;;) {
      const c = head[q++];
      hi += (c & 0x7f) * scale;
      if (c < 0x80) break;
      scale *= 128;
    }
    p = q + hi * 16 + (code & 0xf);
  }
  // The values frame's first byte after its header is the null's type id.
  const id = head[p + 2];
  const payload: number[] = [];
  for (const b of bodies) {
    payload.push(id);
    if (b === null) payload.push(0);
    else payload.push(...uvarint(b.length + 1), ...b);
  }
  const frame = [0x10 | (payload.length & 0xf), ...uvarint(payload.length >> 4), ...payload];
  return Uint8Array.from([...head.subarray(0, p), ...frame, 0xff]);
}

Deno.test("a ZNG body decoding refuses is refused with its error, its frame's values with it", async () => {
  const rec = (t: Type) => zctx.lookupRecord([new Field("a", t)]);
  const cases: [string, Type, number[][]][] = [
    ["record with bytes after its fields", rec(TypeInt64), [[2, 2, 9]]],
    ["field longer than its record", rec(TypeInt64), [[5, 2]]],
    [
      "record short of a field",
      zctx.lookupRecord([new Field("a", TypeInt64), new Field("b", TypeInt64)]),
      [[2, 2]],
    ],
    ["float64 of 7 bytes", rec(TypeFloat64), [[8, 1, 2, 3, 4, 5, 6, 7]]],
    ["float32 of 3 bytes", rec(TypeFloat32), [[4, 1, 2, 3]]],
    ["empty bool", rec(TypeBool), [[1]]],
    ["ip of 5 bytes", rec(TypeIP), [[6, 1, 2, 3, 4, 5]]],
    ["net of 9 bytes", rec(TypeNet), [[10, 1, 2, 3, 4, 5, 6, 7, 8, 9]]],
    ["bad type value", rec(TypeType), [[3, 0xee, 0xee]]],
    ["array element past its end", zctx.lookupArray(TypeInt64), [[2, 2, 9]]],
    ["map with a key and no value", zctx.lookupMap(TypeString, TypeInt64), [[2, 97]]],
    ["union selector out of range", zctx.lookupUnion([TypeInt64, TypeString]), [[2, 8, 2, 2]]],
    ["union with bytes after its value", zctx.lookupUnion([TypeInt64, TypeString]), [[
      2,
      0,
      2,
      2,
      7,
    ]]],
  ];
  await withLake(async (lake) => {
    let k = 0;
    for (const [what, t, bodies] of cases) {
      // A null before the bad value, in the same frame: the frame fails whole.
      const bytes = streamOf(t, [null, ...bodies]);
      const got = await agree(lake, `b${k++}`, bytes, [1 << 20], undefined, "asc", true, "zng");
      const said = got.error ?? got.warnings.join();
      assert.ok(said !== "", `${what}: accepted`);
      assert.equal(got.zson.length, 0, `${what}: ${got.zson.join(" ")}`);
    }
    // A well-formed stream made this way loads (the helper makes what it says).
    const bytes = streamOf(rec(TypeInt64), [[2, 2], null]);
    const ok = await agree(lake, `b${k++}`, bytes, [1 << 20], undefined, "asc", true, "zng");
    assert.equal(ok.error, null);
    assert.deepEqual(ok.zson, ["null({a:int64})", "{a:1}"]);
  });
});
