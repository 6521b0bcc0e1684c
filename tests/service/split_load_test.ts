// A long JSON load is split across the workers (lib/service/workers/split.ts)
// and answers as one worker or the server's own thread reading it whole:
// the same records, the same warning where the body breaks, and no object
// files left behind from parts that were dropped.

import assert from "node:assert/strict";
import { lookupPool } from "../../lib/lake/pools.ts";
import { encodeZng } from "../../lib/formats/zng/writer.ts";
import { zctx } from "../../lib/zed/context.ts";
import { Field, TypeInt64, TypeString } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import {
  PART_MAX,
  PART_MIN,
  partSize,
  STREAM_PART,
  ZNG_DENSITY,
} from "../../lib/service/workers/split.ts";
import { call, createPool, jsonOf, post, query, type TestServer, withServer } from "./helpers.ts";

/** NDJSON of n records, ts shuffled, with bad inserted before record `at` (if given). */
function body(n: number, bad?: { at: number; text: string }): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    if (bad !== undefined && i === bad.at) lines.push(bad.text);
    const ts = (i * 7919) % n;
    lines.push(`{"ts":${ts},"s":"record ${i} of the body}{","n":{"a":${i % 13},"b":[${i},2]}}`);
  }
  return new TextEncoder().encode(lines.join("\n") + "\n");
}

interface Loaded {
  status: number;
  warnings: string[];
  count: string;
  records: string;
  objects: number;
  files: number;
}

/** bytes as a stream of 64 KiB chunks: sent without a length (chunked), as `curl -T -` sends one. */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + (64 << 10)));
      at += 64 << 10;
    },
  });
}

async function loadInto(s: TestServer, bytes: Uint8Array, streamed = false): Promise<Loaded> {
  await createPool(s, "p", { order: "asc", keys: [["ts"]] });
  const path = "/pool/p/branch/main";
  const headers = { Accept: "application/json" };
  const r = streamed
    ? await call(s, "POST", path, { body: streamOf(bytes), headers })
    : await post(s, path, bytes, headers);
  const out = jsonOf(r, r.status) as { warnings?: string[]; error?: string };
  const count = (await query(s, "from p | count()", "application/json")).text;
  const records = (await query(s, "from p | yield this", "application/json")).text;
  const objects = Number(
    /\d+/.exec((await query(s, "from p@main:objects | count()", "application/json")).text)?.[0] ??
      0,
  );
  const pool = lookupPool(s.lake.catalog, "p");
  let files = 0;
  for await (const e of Deno.readDir(`${s.lake.poolDir(pool.id)}/data`)) {
    if (e.name.endsWith(".zng")) files++;
  }
  return {
    status: r.status,
    warnings: out.warnings ?? [out.error ?? ""],
    count,
    records,
    objects,
    files,
  };
}

/**
 * What a load of bytes gives on a server of `workers` workers, all started
 * first; streamed: sent without a length, cut into parts from streamPart.
 */
async function loadOn(
  workers: number,
  bytes: Uint8Array,
  opts: { streamed?: boolean; streamPart?: number } = {},
): Promise<Loaded> {
  let got: Loaded | undefined;
  await withServer(async (s) => {
    const pool = s.server.service.pool;
    await pool?.start();
    if (pool && opts.streamPart !== undefined) pool.streamPart = opts.streamPart;
    got = await loadInto(s, bytes, opts.streamed);
  }, { workers });
  return got!;
}

// Long enough for two parts of at least PART_MIN.
const N = Math.ceil((2.2 * PART_MIN) / 60);

Deno.test("split load: a long JSON body goes to two workers and gives the records of one", async () => {
  const bytes = body(N);
  assert.ok(bytes.length >= 2 * PART_MIN);
  const split = await loadOn(2, bytes);
  const whole = await loadOn(0, bytes);
  assert.equal(split.status, 200);
  assert.equal(split.count, `[{"count":${N}}]\n`);
  assert.ok(split.objects >= 2, `${split.objects} objects: the body was not split`);
  assert.equal(whole.objects, 1);
  assert.equal(split.records, whole.records);
  assert.deepEqual(split.warnings, []);
  assert.equal(split.files, split.objects);
});

Deno.test("split load: a body that breaks in either part warns and keeps what came before, as one reader does", async () => {
  for (const at of [Math.floor(N * 0.25), Math.floor(N * 0.75)]) {
    for (const text of ['{"ts":1,"s":"x"', '{"ts":1,"s":"x"}}', '{"s":"a}\n{"}']) {
      const bytes = body(N, { at, text });
      const split = await loadOn(2, bytes);
      const whole = await loadOn(0, bytes);
      assert.equal(split.status, whole.status);
      assert.deepEqual(split.warnings, whole.warnings);
      assert.ok(split.warnings.length === 1 && split.warnings[0] !== "", text);
      assert.equal(split.count, whole.count);
      assert.equal(split.records, whole.records);
      // Objects of the parts dropped are removed.
      assert.equal(split.files, split.objects, `at ${at}: ${text}`);
    }
  }
});

Deno.test("split load: gzip and other formats are loaded whole", async () => {
  // Random text, so that it is still long enough to split once compressed.
  const lines: string[] = [];
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const n = Math.ceil((3 * PART_MIN) / 110);
  const bytes = crypto.getRandomValues(new Uint8Array(96));
  for (let i = 0; i < n; i++) {
    let r = "";
    crypto.getRandomValues(bytes);
    for (let k = 0; k < 96; k++) r += letters[bytes[k] % letters.length];
    lines.push(`{"ts":${i},"r":"${r}"}`);
  }
  const json = new TextEncoder().encode(lines.join("\n") + "\n");
  const gz = new Uint8Array(
    await new Response(new Blob([json]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  assert.ok(gz.length >= 2 * PART_MIN, `${gz.length} bytes compressed`);
  const zson = new TextEncoder().encode(
    lines.join("\n").replaceAll('{"ts":', "{ts:").replaceAll(',"r":', ",r:"),
  );
  for (const bytes of [gz, zson]) {
    const got = await loadOn(2, bytes);
    assert.equal(got.status, 200);
    assert.equal(got.count, `[{"count":${n}}]\n`);
    assert.equal(got.objects, 1);
  }
});

// Parts of a streamed body, small for the tests: 256, 256, 512, 512 KiB, then 1 MiB.
const STREAM = 256 << 10;

Deno.test("split load: parts of a body of unknown length start at STREAM_PART, with two workers or more", () => {
  assert.equal(partSize(null, 2), STREAM_PART);
  assert.equal(partSize(null, 4, STREAM), STREAM);
  assert.equal(partSize(null, 1), 0);
  // With a length: one part per worker, none under PART_MIN.
  assert.equal(partSize(3 * PART_MIN, 2), 1.5 * PART_MIN);
  assert.equal(partSize(2 * PART_MIN - 1, 2), 0);
  // ZNG's parts are ZNG_DENSITY times shorter: as many records a part as JSON's.
  assert.equal(partSize(null, 2, STREAM_PART, ZNG_DENSITY), STREAM_PART / ZNG_DENSITY);
  assert.equal(
    partSize(2 * PART_MIN / ZNG_DENSITY, 2, STREAM_PART, ZNG_DENSITY),
    PART_MIN / ZNG_DENSITY,
  );
  assert.equal(partSize(2 * PART_MIN / ZNG_DENSITY - 1, 2, STREAM_PART, ZNG_DENSITY), 0);
  assert.equal(partSize(64 * PART_MAX, 2, STREAM_PART, ZNG_DENSITY), PART_MAX / ZNG_DENSITY);
});

Deno.test("split load: a JSON body sent without a length is cut as it arrives and gives the records of one", async () => {
  const n = Math.ceil((2.5 * (1 << 20)) / 60);
  const bytes = body(n);
  const split = await loadOn(2, bytes, { streamed: true, streamPart: STREAM });
  const whole = await loadOn(0, bytes, { streamed: true });
  assert.equal(split.status, 200);
  assert.equal(split.count, `[{"count":${n}}]\n`);
  assert.equal(whole.objects, 1);
  // 2.5 MiB in parts that double each round of two: 5 or 6 parts (cuts fall
  // at the line after each part's size), not the ten of parts that stay small.
  assert.ok(split.objects >= 5 && split.objects <= 6, `${split.objects} objects`);
  assert.equal(split.records, whole.records);
  assert.deepEqual(split.warnings, []);
  assert.equal(split.files, split.objects);
  // Shorter than its first part: one part, one object.
  const short = await loadOn(2, body(Math.floor(STREAM / 80)), {
    streamed: true,
    streamPart: STREAM,
  });
  assert.equal(short.status, 200);
  assert.equal(short.objects, 1);
});

Deno.test("split load: a streamed body that breaks in a later part warns and keeps what came before", async () => {
  const n = Math.ceil((1.5 * (1 << 20)) / 60);
  const bytes = body(n, { at: Math.floor(n * 0.8), text: '{"ts":1,"s":"x"' });
  const split = await loadOn(2, bytes, { streamed: true, streamPart: STREAM });
  const whole = await loadOn(0, bytes, { streamed: true });
  assert.equal(split.status, whole.status);
  assert.deepEqual(split.warnings, whole.warnings);
  assert.ok(split.warnings.length === 1 && split.warnings[0] !== "");
  assert.equal(split.count, whole.count);
  assert.equal(split.records, whole.records);
  assert.ok(split.objects >= 3, `${split.objects} objects: the body was not split`);
  assert.equal(split.files, split.objects);
});

/**
 * ZNG of n records whose types come and go: a new type every so often (so
 * types frames come between values frames), two streams one after the
 * other (an end of stream in the middle, then types of its own), compressed
 * frames and plain.
 */
function zngBody(n: number): Uint8Array {
  const streams: Uint8Array[] = [];
  for (const [from, to, compress] of [[0, n >> 1, true], [n >> 1, n, false]] as const) {
    const values: Value[] = [];
    for (let i = from; i < to; i++) {
      // The second stream's types are its own: its ids start again.
      const extra = `${compress ? "f" : "g"}${Math.floor(i / 500) % 7}`;
      const t = zctx.lookupRecord([
        new Field("ts", TypeInt64),
        new Field("s", TypeString),
        new Field(extra, TypeInt64),
      ]);
      values.push(new Value(t, [(i * 7919) % n, `record ${i} of the body`, i]));
    }
    streams.push(encodeZng(values, { compress, frameThreshold: 16 << 10 }));
  }
  const out = new Uint8Array(streams[0].length + streams[1].length);
  out.set(streams[0]);
  out.set(streams[1], streams[0].length);
  return out;
}

Deno.test("split load: a ZNG body is cut at frames, each part with the types before its cut", async () => {
  const n = 60_000;
  const bytes = zngBody(n);
  assert.ok(bytes.length > 4 * STREAM, `${bytes.length} bytes`);
  const split = await loadOn(2, bytes, { streamed: true, streamPart: STREAM });
  const whole = await loadOn(0, bytes, { streamed: true });
  assert.equal(split.status, 200, split.warnings.join());
  assert.equal(split.count, `[{"count":${n}}]\n`);
  assert.equal(whole.objects, 1);
  assert.ok(split.objects >= 3, `${split.objects} objects: the body was not split`);
  assert.equal(split.records, whole.records);
  assert.deepEqual(split.warnings, []);
  assert.equal(split.files, split.objects);
});

Deno.test("split load: a ZNG body is cut into parts as many times shorter than JSON's as it is denser", async () => {
  const n = 8_000;
  const bytes = zngBody(n);
  // Shorter than a JSON body's first part, long enough for ZNG's two.
  assert.ok(bytes.length < STREAM && bytes.length > 2 * STREAM / ZNG_DENSITY, `${bytes.length}`);
  const split = await loadOn(2, bytes, { streamed: true, streamPart: STREAM });
  const whole = await loadOn(0, bytes, { streamed: true });
  assert.equal(split.status, 200, split.warnings.join());
  assert.ok(split.objects >= 2, `${split.objects} objects: the body was not split`);
  assert.equal(split.records, whole.records);
  assert.equal(split.files, split.objects);
});

Deno.test("split load: a ZNG body that breaks in a later part warns and keeps what came before", async () => {
  const n = 60_000;
  const good = zngBody(n);
  for (const at of [Math.floor(good.length * 0.6), Math.floor(good.length * 0.9)]) {
    // A frame header's version bit, or a byte inside a frame.
    const bytes = good.slice();
    bytes[at] ^= 0x80;
    const split = await loadOn(2, bytes, { streamed: true, streamPart: STREAM });
    const whole = await loadOn(0, bytes, { streamed: true });
    assert.equal(split.status, whole.status);
    assert.deepEqual(split.warnings, whole.warnings);
    assert.equal(split.count, whole.count);
    assert.equal(split.records, whole.records);
    assert.equal(split.files, split.objects);
  }
});
