// dcount's sketch (lib/query/aggregates/hll.ts, metro.ts): the reference's
// hash and HyperLogLog, so estimates equal Zed's. The expected estimates
// below are what zq v1.3.0 answers for the same values.

import assert from "node:assert/strict";
import "../../lib/query/aggregates/mod.ts";
import { lookupAggregate } from "../../lib/query/aggregates/registry.ts";
import { hashed, metroHash64 } from "../../lib/query/aggregates/metro.ts";
import { Sketch } from "../../lib/query/aggregates/hll.ts";
import { TypeFloat64, TypeInt64, TypeIP, TypeString } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";

function hex(b: string): Uint8Array {
  return Uint8Array.from(b.match(/../g) ?? [], (h) => parseInt(h, 16));
}

function metro(b: Uint8Array, seed: number): bigint {
  metroHash64(b, b.length, seed);
  return (BigInt(hashed.hi) << 32n) | BigInt(hashed.lo);
}

Deno.test("MetroHash64: the reference implementation's test vectors", () => {
  const key63 = new TextEncoder().encode(
    "012345678901234567890123456789012345678901234567890123456789012",
  );
  assert.equal(metro(key63, 0), 0xad4b7006ae3d756bn);
  assert.equal(metro(key63, 1), 0xdfb8b9f41c480d3bn);
  const vectors: [number, string, bigint][] = [
    [6, "7a94903c1a96", 0x4b62e5d8e45fbd6an],
    [7, "d08f53e0b821bf", 0x2f7b0705fa884c2fn],
    [8, "0f38027ac054237b", 0xddc11ce069d8e011n],
    [13, "7205d867c272df76c4cf4f72a9", 0x4d4da3016a7cc73dn],
    [16, "9ad4e49d31dcf6de7a50a85d721ee42d", 0x428548e9d23de9f9n],
    [17, "582e23f758c4ebb008d9a81d759f303250", 0x58cc3d404a3c56c9n],
    [31, "a20db862729e04f058a7dc4d7d460b3c6e9470cdb5a60c4a19c97eda386fe4", 0x310e675240b0b380n],
    [
      48,
      "9dd88fa8941ea79bc3191f384b61a3962fec658be019466a33d04b50a2f99661931345f30ddd8cf6dba63e5a02f43929",
      0xc1d6022a09188026n,
    ],
    [
      64,
      "efe1775ead1dfc2db8c98fb6b65e36c7f16f0977d19207ac296853b997c873966e07bc53202672ee1ec75a73590964bc34b2d885ca4ac5b2c9778d4b0373abef",
      0x2b0acc8bb8a83c75n,
    ],
  ];
  for (const [seed, input, want] of vectors) {
    assert.equal(metro(hex(input), seed), want, `${input.length / 2} bytes`);
  }
  // Only the first len bytes count.
  const padded = new Uint8Array(80);
  padded.set(key63);
  metroHash64(padded, 63, 1);
  assert.equal((BigInt(hashed.hi) << 32n) | BigInt(hashed.lo), 0xdfb8b9f41c480d3bn);
});

/** dcount of values made by make(0..n-1), summarized or after each value (running). */
function dcount(n: number, make: (i: number) => Value, running = false): number {
  const a = lookupAggregate("dcount")!.make();
  for (let i = 0; i < n; i++) {
    a.consume(make(i));
    if (running) a.result();
  }
  return Number(a.result().body);
}

const int = (i: number) => new Value(TypeInt64, i);
const str = (i: number) => new Value(TypeString, "s" + i);
const float = (i: number) => new Value(TypeFloat64, i + 0.5);
const ip = (i: number) =>
  new Value(TypeIP, Uint8Array.of(0, (i >> 16) & 255, (i >> 8) & 255, i & 255));

Deno.test("dcount: the reference's estimates, exact while the sketch is sparse", () => {
  const want: [number, number, number, number, number][] = [
    // n, then int64 0..n-1, "s0".., 0.5.., 0.0.0.0..
    [100, 100, 100, 100, 100],
    [1000, 1000, 1000, 1000, 1000],
    [5000, 4990, 4999, 4984, 5037],
    [20000, 19958, 20165, 19942, 20028],
    [100000, 100789, 100487, 100956, 100321],
  ];
  for (const [n, i, s, f, a] of want) {
    assert.deepEqual(
      [dcount(n, int), dcount(n, str), dcount(n, float), dcount(n, ip)],
      [i, s, f, a],
      `n=${n}`,
    );
  }
  // Repeated values, and a running dcount (an estimate after every value).
  assert.equal(dcount(20000, (i) => int(i % 7000)), 6966);
  assert.equal(dcount(5000, int, true), 5000);
  assert.equal(dcount(20000, int, true), 20001);
});

Deno.test("dcount: a saved sketch restores exactly, and stays small", () => {
  for (const cut of [10, 3000, 30000]) {
    const whole = lookupAggregate("dcount")!.make();
    const first = lookupAggregate("dcount")!.make();
    for (let i = 0; i < cut; i++) {
      whole.consume(str(i));
      first.consume(str(i));
    }
    const saved: Value[] = [];
    first.save!(saved);
    const second = lookupAggregate("dcount")!.make();
    second.restore!(saved);
    for (let i = cut; i < 40000; i++) {
      whole.consume(str(i));
      second.consume(str(i));
    }
    assert.equal(String(second.result().body), String(whole.result().body), `cut ${cut}`);
  }
  const sk = new Sketch();
  const b = new Uint8Array(4);
  for (let i = 0; i < 200000; i++) {
    new DataView(b.buffer).setUint32(0, i);
    sk.insert(b, 4);
  }
  assert.ok(sk.size() < 16384, `size ${sk.size()}`);
  assert.ok(Math.abs(sk.estimate() - 200000) < 200000 * 0.03);
});
