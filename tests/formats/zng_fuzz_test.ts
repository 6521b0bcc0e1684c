// Corrupted and truncated ZNG: every outcome is values or a LochError, never
// another exception or a hang; plus the reference's error texts for the
// frame-level failures.

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { decodeZng, detectZng, ZngReader } from "../../lib/formats/zng/reader.ts";
import { encodeZng } from "../../lib/formats/zng/writer.ts";
import { mutate, rng, unhex } from "./zng_helpers.ts";
import { ValueGen } from "./zng_random.ts";

function streams(seed: number): Uint8Array[] {
  const r = rng(seed);
  const gen = new ValueGen(r, { zsonSafe: false });
  const out: Uint8Array[] = [];
  for (let k = 0; k < 6; k++) {
    const types = Array.from({ length: 4 }, () => gen.type());
    const values = Array.from({ length: 30 }, () => gen.value(types[k % 4]));
    out.push(encodeZng(values, { compress: k % 2 === 0, frameThreshold: 200 + k * 300 }));
  }
  return out;
}

function onlyLochErrors(f: () => unknown, what: string): void {
  try {
    f();
  } catch (e) {
    if (!(e instanceof LochError)) throw new Error(`${what}: ${e}`, { cause: e });
  }
}

Deno.test("zng fuzz: mutated streams give values or LochErrors", () => {
  const r = rng(31337);
  let errors = 0, runs = 0;
  for (let seed = 1; seed <= 8; seed++) {
    for (const good of streams(seed)) {
      for (let k = 0; k < 150; k++) {
        const bad = mutate(good, r);
        runs++;
        for (const validate of [false, true]) {
          try {
            decodeZng(bad, { validate });
          } catch (e) {
            if (!(e instanceof LochError)) throw new Error(`seed ${seed} run ${k}: ${e}`);
            errors++;
          }
        }
        onlyLochErrors(() => {
          const d = detectZng("", r() < 0.5, bad);
          assert.ok(d.ok === true || d.ok === false || d.ok === "more");
        }, "detect");
      }
    }
  }
  assert.ok(errors > runs / 4, `only ${errors} errors in ${runs} runs`);
});

Deno.test("zng fuzz: random garbage", () => {
  const r = rng(777);
  for (let k = 0; k < 3000; k++) {
    const b = Uint8Array.from({ length: Math.floor(r() * 64) }, () => Math.floor(r() * 256));
    onlyLochErrors(() => decodeZng(b, { validate: true }), "garbage");
    onlyLochErrors(() => detectZng("", true, b), "garbage detect");
  }
});

Deno.test("zng fuzz: the streaming reader fails cleanly on mutated chunked input", async () => {
  const r = rng(4711);
  for (const good of streams(99)) {
    for (let k = 0; k < 40; k++) {
      const bad = mutate(good, r);
      const it = (async function* () {
        for (let i = 0; i < bad.length; i += 7) yield bad.slice(i, i + 7);
      })();
      const reader = new ZngReader(new ByteInput(it, "fuzz"));
      try {
        while (await reader.read() !== null) { /* drain */ }
      } catch (e) {
        if (!(e instanceof LochError)) throw e;
        // A failed reader keeps failing the same way.
        await assert.rejects(() => reader.read(), { message: e.message });
      }
    }
  }
});

const frameErrors: [string, string][] = [
  ["80", "zngio: encountered wrong version bit in framing"],
  ["30 00", "unknown ZNG message frame type: 3"],
  ["08 00 09 02 01 61 09 01 62 19", "unknown zng typedef code: 9"],
  ["02 00 01 40", "type id (64) not in type context (size 30)"],
  ["02 00 01 05", "primitive type ID 5 not implemented"],
  ["02 00 04 00", "type union: zero columns not allowed"],
  ["08 00 00 02 01 61 09 01 61 09", 'duplicate field: "a"'],
  ["08 00 07 05 69 6e 74 36 34 09", 'bad type name "int64": primitive type name'],
  ["05 00 07 02 61 ff 09", 'bad type name "a\\xff": invalid UTF-8'],
  ["13 00 1e 02 02", "zngio: type ID 30 not in context"],
  ["13 00 04 02 02", "zngio: type ID 4 not in context"],
  ["20 00", "malformed zng record"],
  ["13 00 09 05 00", "malformed zng record"],
  ["13 00 09 02 02 03 00 00", "truncated input"],
  ["13 80", "unexpected EOF"],
  ["43 00 07 01 00 00", "zngio: unknown compression format 0x7"],
  ["44 00 00 03", "zngio: got 0 uncompressed bytes, expected 3"],
  ["44 00 00 03 30 00 01", "zngio: lz4: invalid source or destination buffer too short"],
  ["13 80 80 80 80 80 80 80 80 80 02", "binary: varint overflows a 64-bit integer"],
  [
    "10 80 80 80 80 80 80 80 80 01",
    "zngio: frame length (1152921504606846976) exceeds maximum allowed (1073741824)",
  ],
  ["04 00 05 01 01 61 13 00 1e 02 05", "enum selector out of range"],
  ["02 00 02 09 16 00 1e 05 02 02 02 02", "invalid ZNG: duplicate set element"],
  ["04 00 04 02 09 19 16 00 1e 05 02 04 02 02", "invalid union tag"],
];

for (const [bytes, message] of frameErrors) {
  Deno.test(`zng error: ${message}`, () => {
    assert.throws(() => decodeZng(unhex(bytes), { validate: true }), (e: unknown) => {
      assert.ok(e instanceof LochError);
      assert.equal(e.message, message);
      return true;
    });
  });
}

Deno.test("zng: the reference's quiet ends and null bodies at the end of input", () => {
  // A frame code, or a frame header, with nothing after it ends the input.
  assert.deepEqual(decodeZng(unhex("13 00 09 02 02 13")), decodeZng(unhex("13 00 09 02 02")));
  assert.equal(decodeZng(unhex("13 00 09 02 02 13 00")).length, 1);
  assert.equal(decodeZng(unhex("13 00 09 02 02 53 00")).length, 1);
  // A value whose body is missing at the very end of its frame is null.
  const v = decodeZng(unhex("12 00 09 05"));
  assert.equal(v.length, 1);
  assert.equal(v[0].body, null);
});
