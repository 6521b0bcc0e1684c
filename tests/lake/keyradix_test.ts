import assert from "node:assert/strict";
import { MAX_RADIX_KEY, radixOrder } from "../../lib/lake/keyradix.ts";

/** Keys laid out as a sort buffer holds them: in chunks, each at an offset with a length. */
function layout(keys: Uint8Array[], chunkSize: number) {
  const bufs: Uint8Array[] = [];
  const chunkOf: number[] = [], at: number[] = [], len: number[] = [];
  let cur = new Uint8Array(chunkSize), pos = 0;
  bufs.push(cur);
  for (const k of keys) {
    if (pos + k.length + 3 > cur.length) {
      cur = new Uint8Array(Math.max(chunkSize, k.length + 3));
      bufs.push(cur);
      pos = 0;
    }
    pos += 3; // bytes of a value around its key
    cur.set(k, pos);
    chunkOf.push(bufs.length - 1);
    at.push(pos);
    len.push(k.length);
    pos += k.length;
  }
  return { bufs, chunkOf, at, len };
}

/** Byte order, a prefix first; equal keys by index (a stable sort). */
function reference(keys: Uint8Array[]): number[] {
  return [...keys.keys()].sort((i, j) => {
    const a = keys[i], b = keys[j];
    const m = Math.min(a.length, b.length);
    for (let k = 0; k < m; k++) if (a[k] !== b[k]) return a[k] - b[k];
    return a.length - b.length || i - j;
  });
}

function equalKeys(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, k) => x === b[k]);
}

Deno.test("radixOrder: byte order of keys of any lengths, NULs and ties, stably, with ties marked", () => {
  let x = 17;
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const enc = new TextEncoder();
  const shapes: Record<string, () => Uint8Array> = {
    // Zeek-like times, sharing a prefix, differing in their last digits.
    times: () =>
      enc.encode(
        `2018-03-2${Math.floor(rand() * 3)}T17:1${Math.floor(rand() * 10)}:20.86${
          String(Math.floor(rand() * 10000)).padStart(4, "0")
        }Z`,
      ),
    // Lengths that differ, prefixes of each other, NULs (zeros past a key's end tie with them).
    ragged: () => {
      const n = Math.floor(rand() * 6);
      return Uint8Array.from({ length: n }, () => [0, 0, 1, 97, 98, 255][Math.floor(rand() * 6)]);
    },
    // Odd lengths: the last byte of a key starts a digit of its own.
    odd: () =>
      enc.encode("k".repeat(1 + 2 * Math.floor(rand() * 3)) + String(rand() < 0.5 ? 1 : 2)),
    // Few distinct keys: long runs of ties.
    few: () => enc.encode(["a", "b", "ab", ""][Math.floor(rand() * 4)]),
  };
  for (const [shape, make] of Object.entries(shapes)) {
    for (const n of [0, 1, 2, 3, 100, 5000]) {
      const keys = Array.from({ length: n }, make);
      const { bufs, chunkOf, at, len } = layout(keys, 4096);
      const got = radixOrder(n, bufs, chunkOf, at, len);
      assert.ok(got !== null);
      assert.deepEqual([...got.order], reference(keys), `${shape} of ${n}`);
      for (let k = 1; k < n; k++) {
        const same = equalKeys(keys[got.order[k - 1]], keys[got.order[k]]);
        assert.equal(got.same[k], same ? 1 : 0, `${shape} of ${n}: tie at ${k}`);
      }
    }
  }
});

Deno.test("radixOrder: keys longer than it sorts are left to the caller", () => {
  const keys = [new Uint8Array(MAX_RADIX_KEY), new Uint8Array(MAX_RADIX_KEY + 1)];
  const { bufs, chunkOf, at, len } = layout(keys, 4096);
  assert.equal(radixOrder(2, bufs, chunkOf, at, len), null);
  assert.notEqual(radixOrder(1, bufs, chunkOf, at, len), null);
});
