// Property tests: random values of random types survive ZNG (in memory and
// through the streaming reader and writer, with and without compression) and
// ZSON unchanged.

import assert from "node:assert/strict";
import { ByteInput } from "../../lib/formats/io.ts";
import { decodeZng, ZngReader } from "../../lib/formats/zng/reader.ts";
import { encodeZng, ZngWriter } from "../../lib/formats/zng/writer.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { Value } from "../../lib/zed/value.ts";
import { zctx } from "../../lib/zed/context.ts";
import { concatBytes, rng } from "./zng_helpers.ts";
import { ValueGen } from "./zng_random.ts";

function randomValues(seed: number, n: number, zsonSafe: boolean): Value[] {
  const r = rng(seed);
  const gen = new ValueGen(r, { zsonSafe });
  const types = Array.from({ length: 12 }, () => gen.type());
  return Array.from({ length: n }, () => gen.value(types[Math.floor(r() * types.length)]));
}

/** Splits bytes into chunks of random sizes, as a network stream would. */
function chunked(b: Uint8Array, r: () => number): ByteInput {
  const it = (async function* () {
    for (let i = 0; i < b.length;) {
      const n = 1 + Math.floor(r() * 300);
      yield b.slice(i, i + n);
      i += n;
    }
  })();
  return new ByteInput(it, "test");
}

Deno.test("zng round trip: random values, in memory", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const values = randomValues(seed, 60, false);
    for (const compress of [true, false]) {
      const b = encodeZng(values, { compress, frameThreshold: 1 + seed * 50 });
      const back = decodeZng(b, { validate: true });
      assert.equal(back.length, values.length);
      for (let i = 0; i < values.length; i++) {
        assert.ok(back[i].type === values[i].type, `seed ${seed} value ${i}: type`);
        assert.deepStrictEqual(back[i].body, values[i].body, `seed ${seed} value ${i}`);
      }
    }
  }
});

Deno.test("zng round trip: streaming writer and chunked reader", async () => {
  for (let seed = 100; seed < 110; seed++) {
    const r = rng(seed);
    const values = randomValues(seed, 3000, false);
    const parts: Uint8Array[] = [];
    const w = new ZngWriter((c) => {
      parts.push(c);
      return Promise.resolve();
    }, { frameThreshold: 4096 });
    for (let i = 0; i < values.length; i += 700) {
      await w.write(values.slice(i, i + 700));
      if (i === 1400) await w.endStream();
    }
    await w.end();
    const bytes = concatBytes(parts);
    const reader = new ZngReader(chunked(bytes, r));
    const back: Value[] = [];
    for (let b = await reader.read(); b !== null; b = await reader.read()) {
      assert.ok(b.length > 0 && b.length <= 1000);
      back.push(...b);
    }
    assert.deepStrictEqual(back, values);
    // The same bytes as the one-shot encoder with the same stream boundaries.
    assert.deepStrictEqual(
      decodeZng(bytes),
      decodeZng(concatBytes([
        encodeZng(values.slice(0, 2100), { frameThreshold: 4096 }),
        encodeZng(values.slice(2100), { frameThreshold: 4096 }),
      ])),
    );
  }
});

Deno.test("zng round trip: random values through ZSON", () => {
  for (let seed = 1000; seed < 1040; seed++) {
    // Wrapped in a record: ZSON drops the type of a top-level empty container.
    const values = randomValues(seed, 40, true).map((v) =>
      new Value(zctx.lookupRecordOf(["v"], [v.type]), [v.body])
    );
    const back = decodeZng(encodeZng(values));
    for (let i = 0; i < values.length; i++) {
      const text = formatZson(back[i].type, back[i].body);
      const parsed = parseZsonValue(text);
      assert.ok(parsed.type === values[i].type, `seed ${seed}: type of ${text}`);
      assert.deepStrictEqual(parsed.body, values[i].body, `seed ${seed}: ${text}`);
    }
  }
});

Deno.test("zng: writer output is deterministic and byte-stable across a decode", () => {
  for (let seed = 2000; seed < 2010; seed++) {
    const values = randomValues(seed, 200, false);
    const a = encodeZng(values);
    const b = encodeZng(decodeZng(a));
    assert.deepStrictEqual(b, a);
  }
});
