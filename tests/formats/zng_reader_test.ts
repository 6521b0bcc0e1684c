// The streaming reader: batching, control messages, errors between frames,
// projection, and large frames arriving in small chunks.

import assert from "node:assert/strict";
import { BATCH_SIZE, ByteInput } from "../../lib/formats/io.ts";
import { decodeZng, ZngDecoder, ZngReader } from "../../lib/formats/zng/reader.ts";
import { ZNG_BATCH, ZngControl } from "../../lib/formats/zng/scanner.ts";
import { encodeZng, ZngEncoder } from "../../lib/formats/zng/writer.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { encodeBody } from "../../lib/zed/zcode.ts";
import type { Value } from "../../lib/zed/value.ts";
import { concatBytes, toZson, unhex } from "./zng_helpers.ts";

function chunks(b: Uint8Array, size: number): ByteInput {
  const it = (async function* () {
    for (let i = 0; i < b.length; i += size) yield b.slice(i, i + size);
  })();
  return new ByteInput(it, "test");
}

function records(n: number, from = 0): Value[] {
  return Array.from({ length: n }, (_, i) => parseZsonValue(`{a:${from + i},s:"v${from + i}"}`));
}

Deno.test("zng reader: batches of ZNG_BATCH to BATCH_SIZE values gathered across frames", async () => {
  const values = records(2500);
  const b = encodeZng(values, { frameThreshold: 3000 });
  const reader = new ZngReader(chunks(b, 1 << 20));
  const sizes: number[] = [];
  const got: Value[] = [];
  for (let batch = await reader.read(); batch !== null; batch = await reader.read()) {
    sizes.push(batch.length);
    got.push(...batch);
  }
  assert.deepEqual(got, values);
  // Frames of a few dozen values each, gathered into batches.
  for (const n of sizes.slice(0, -1)) assert.ok(n >= ZNG_BATCH && n <= BATCH_SIZE, `${n}`);
  assert.ok(sizes.length < 2500 / ZNG_BATCH + 1, `${sizes}`);
});

Deno.test("zng reader: control messages in order, by readPayload and onControl", async () => {
  const e = new ZngEncoder();
  for (const v of records(3)) e.write(v);
  e.writeControl("{channel_id:0}(=QueryChannelSet)\n", 2);
  for (const v of records(2, 3)) e.write(v);
  e.writeControl(new Uint8Array([1, 2, 3]), 4);
  e.endStream();
  const b = e.take();
  const seen: string[] = [];
  const r1 = new ZngReader(chunks(b, 5));
  for (let p = await r1.readPayload(); p !== null; p = await r1.readPayload()) {
    seen.push(p instanceof ZngControl ? `control ${p.format}` : `${p.length} values`);
  }
  // Small chunks may split a frame's values across batches, never reorder them.
  assert.deepEqual(seen.filter((s) => s.startsWith("control")), ["control 2", "control 4"]);
  assert.equal(seen.indexOf("control 2") > 0, true);
  const controls: ZngControl[] = [];
  const r2 = new ZngReader(chunks(b, 1000), { onControl: (c) => controls.push(c) });
  const got: Value[] = [];
  for (let batch = await r2.read(); batch !== null; batch = await r2.read()) got.push(...batch);
  assert.equal(got.length, 5);
  assert.deepEqual(controls.map((c) => [c.format, Array.from(c.bytes)]), [
    [2, Array.from(new TextEncoder().encode("{channel_id:0}(=QueryChannelSet)\n"))],
    [4, [1, 2, 3]],
  ]);
});

Deno.test("zng reader: values before a bad frame are delivered, then the error", async () => {
  const good = encodeZng(records(3), { compress: false });
  // Type 30 is defined in the first stream only; the second stream forgets it.
  const bad = unhex("13 00 1e 02 02");
  const reader = new ZngReader(chunks(concatBytes([good, bad]), 4));
  const got: Value[] = [];
  await assert.rejects(async () => {
    for (let b = await reader.read(); b !== null; b = await reader.read()) got.push(...b);
  }, { message: "zngio: type ID 30 not in context" });
  assert.equal(got.length, 3);
  // A bad value fails its whole frame, as in the reference.
  const frame = unhex("08 00 00 02 01 61 09 01 73 19  17 00 1e 05 02 02 02 78 1e 05");
  assert.throws(() => decodeZng(frame), { message: "malformed zng record" });
});

Deno.test("zng reader: a large frame arriving in small chunks", async () => {
  const values = records(20000);
  const b = encodeZng(values, { compress: true, frameThreshold: 1 << 22 });
  const reader = new ZngReader(chunks(b, 977));
  const got: Value[] = [];
  for (let batch = await reader.read(); batch !== null; batch = await reader.read()) {
    got.push(...batch);
  }
  assert.deepEqual(got, values);
});

Deno.test("zng reader: validation option and projection", () => {
  const unsorted = unhex("02 00 02 09 16 00 1e 05 02 04 02 02 ff");
  assert.throws(() => decodeZng(unsorted, { validate: true }), {
    message: "invalid ZNG: set elements not sorted",
  });
  const values = [parseZsonValue('{a:1,b:"x",c:[1,2]}'), parseZsonValue("{z:1}")];
  const b = encodeZng(values);
  const projected = decodeZng(b, {
    project: (t) => t === values[0].type ? new Set([1]) : undefined,
  });
  assert.equal(toZson(projected), '{a:null(int64),b:"x",c:null([int64])}\n{z:1}\n');
  assert.ok(projected[0].type === values[0].type);
});

Deno.test("zng decoder: incremental feeding reports the bytes it needs", () => {
  const b = encodeZng(records(100), { compress: false });
  const d = new ZngDecoder();
  let fed = 0;
  const got: Value[] = [];
  for (;;) {
    const r = d.next();
    if (r === null) break;
    if (r === undefined) {
      const n = Math.min(d.needed, b.length - fed);
      d.feed(b.subarray(fed, fed + n), fed + n === b.length);
      fed += n;
      continue;
    }
    if (Array.isArray(r)) got.push(...r);
  }
  assert.equal(got.length, 100);
  // Exactly the stream's bytes were needed.
  assert.equal(fed, b.length);
});

Deno.test("zng reader: select decodes the chosen values and skips the others, nulls among them", () => {
  // Nulls (no body) between values, at the start and at the end.
  const values = [
    parseZsonValue("null({a:int64,s:string})"),
    ...records(40),
    parseZsonValue("null({a:int64,s:string})"),
    parseZsonValue('"str"'),
    parseZsonValue("null(string)"),
    ...records(20, 40),
    parseZsonValue("null({a:int64})"),
  ];
  const b = encodeZng(values, { frameThreshold: 300 });
  for (let pick = 1; pick <= 5; pick++) {
    const rows = new Uint8Array(values.length);
    for (let i = 0; i < values.length; i += pick) rows[i] = 1;
    const dec = new ZngDecoder(undefined, { select: { rows, first: 0 } });
    dec.feed(b, true);
    let got = "";
    for (let r = dec.next(); r !== null && r !== undefined; r = dec.next()) {
      if (Array.isArray(r)) got += toZson(r);
    }
    const want = toZson(values.filter((_, i) => rows[i] === 1));
    assert.deepEqual(got, want, `every ${pick}`);
  }
});

Deno.test("zng reader: raws keeps each value's encoded body, projected or not, compressed or not", () => {
  const values = [
    ...records(300),
    parseZsonValue('{a:1,s:null(string),l:["p","q"]}'),
    parseZsonValue("null({a:int64})"),
  ];
  for (const compress of [true, false]) {
    // Frames small enough that a batch spans several, and chunks that split frames.
    const b = encodeZng(values, { compress, frameThreshold: 1000 });
    const dec = new ZngDecoder(undefined, { raws: true, project: () => new Set([1]) });
    const raws: Uint8Array[] = [];
    for (let i = 0; i < b.length; i += 777) {
      dec.feed(b.subarray(i, i + 777), i + 777 >= b.length);
      for (let r = dec.next(); r !== null && r !== undefined; r = dec.next()) {
        // Kept as given: they must stay valid after later input.
        if (Array.isArray(r)) raws.push(...dec.raws);
      }
    }
    assert.equal(raws.length, values.length);
    values.forEach((v, i) =>
      assert.deepEqual(raws[i], encodeBody(v.type, v.body), `value ${i}, compress ${compress}`)
    );
  }
});

Deno.test("zng decoder: a big compressed frame is decoded a batch at a time, sizes and raws with it", () => {
  const values = records(1000);
  const b = encodeZng(values, { compress: true, frameThreshold: 1 << 20 });
  const dec = new ZngDecoder(undefined, { raws: true, sizes: true });
  dec.feed(b, true);
  const lengths: number[] = [];
  const got: Value[] = [];
  for (let r = dec.next(); r !== null && r !== undefined; r = dec.next()) {
    if (!Array.isArray(r)) continue;
    lengths.push(r.length);
    assert.equal(dec.raws.length, r.length);
    assert.equal(dec.sizes.length, r.length);
    r.forEach((v, i) => {
      assert.deepEqual(dec.raws[i], encodeBody(v.type, v.body));
      assert.equal(dec.sizes[i], dec.raws[i].length);
    });
    got.push(...r);
  }
  // One frame of 1000 values, handed out 256 at a time: a reader that
  // needs only the first few values decodes no more than that.
  assert.deepEqual(lengths, [256, 256, 256, 232]);
  assert.equal(toZson(got), toZson(values));
});
