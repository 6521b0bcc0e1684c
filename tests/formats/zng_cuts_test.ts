// Where a ZNG stream may be cut (lib/formats/zng/cuts.ts): at every frame
// start, in any chunking, a part made of the types before the cut and the
// stream from there reads as the rest of the stream does.

import assert from "node:assert/strict";
import { ZngCuts } from "../../lib/formats/zng/cuts.ts";
import { decodeZng } from "../../lib/formats/zng/reader.ts";
import { encodeZng } from "../../lib/formats/zng/writer.ts";
import { zctx } from "../../lib/zed/context.ts";
import { Field, TypeInt64, TypeString } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import { concatBytes, toZson } from "./zng_helpers.ts";

/** Two streams (the second with types of its own), types coming and going, compressed and plain. */
function stream(): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, compress] of [["f", true], ["g", false]] as const) {
    const values: Value[] = [];
    for (let i = 0; i < 600; i++) {
      const t = zctx.lookupRecord([
        new Field("i", TypeInt64),
        new Field(`${name}${Math.floor(i / 50) % 5}`, TypeString),
      ]);
      values.push(new Value(t, [i, `value ${i}`]));
    }
    parts.push(encodeZng(values, { compress, frameThreshold: 700 }));
  }
  return concatBytes(parts);
}

/** Every frame start ZngCuts finds in bytes fed in chunks of the given size, with its prefix. */
function starts(bytes: Uint8Array, size: number, cuts = new ZngCuts()): [number, Uint8Array][] {
  const out: [number, Uint8Array][] = [];
  for (let at = 0; at < bytes.length; at += size) {
    const chunk = bytes.slice(at, at + size);
    cuts.follow(chunk, at);
    for (let from = at; from < at + chunk.length;) {
      const s = cuts.at(from);
      if (s < 0) break;
      out.push([s, cuts.prefix(s)]);
      from = s + 1;
    }
  }
  return out;
}

Deno.test("ZNG cuts: a part from any frame start reads as the rest of the stream, in any chunking", () => {
  const bytes = stream();
  const all = decodeZng(bytes).map((v) => toZson([v]));
  let found: number[] | null = null;
  for (const size of [1, 7, 4096, bytes.length]) {
    const got = starts(bytes, size);
    const at = got.map(([s]) => s);
    // The same frame starts however the bytes come.
    if (found === null) found = at;
    else assert.deepEqual(at, found, `chunks of ${size}`);
    let last = Infinity;
    for (const [s, prefix] of got) {
      const rest = decodeZng(concatBytes([prefix, bytes.subarray(s)])).map((v) => toZson([v]));
      assert.ok(rest.length <= last, `at ${s}`);
      last = rest.length;
      assert.deepEqual(rest, all.slice(all.length - rest.length), `at ${s} in chunks of ${size}`);
    }
  }
  assert.ok(found!.length > 20, `${found!.length} frame starts`);
});

Deno.test("ZNG cuts: none after a header that is not one, or past the types it may keep", () => {
  const bytes = stream();
  const broken = bytes.slice();
  const first = starts(bytes, 4096);
  // A wrong version bit where the tenth frame starts: cuts before it only.
  const at = first[10][0];
  broken[at] |= 0x80;
  const got = starts(broken, 4096).map(([s]) => s);
  assert.deepEqual(got, first.slice(0, 11).map(([s]) => s));
  // Types kept to begin parts with are bounded: past the bound, no more cuts.
  assert.equal(starts(bytes, 4096, new ZngCuts(40)).length < first.length, true);
});
