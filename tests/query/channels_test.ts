// Output channels in the runner (lib/query/runtime/channels.ts, run.ts): a
// ChannelWriter gets a channel per leaf of trailing parallel legs, numbered
// left to right, and each channel's end; any other writer gets them merged.

import assert from "node:assert/strict";
import type { ValueReader } from "../../lib/formats/io.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { type ChannelWriter, runQuery } from "../../lib/query/run.ts";
import { Channel, fanIn } from "../../lib/query/runtime/channels.ts";
import { Collector } from "../../lib/query/runtime/op.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import type { Batch } from "../../lib/zed/value.ts";
import { zctx } from "../../lib/zed/context.ts";
import { TypeInt64 } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";

const X = zctx.lookupRecordOf(["x"], [TypeInt64]);

function reader(xs: number[]): ValueReader {
  let batch: Batch | null = xs.map((x) => new Value(X, [x]));
  return {
    read() {
      const b = batch;
      batch = null;
      return Promise.resolve(b);
    },
  };
}

/** Runs q over records {x} with a ChannelWriter; returns its calls as text. */
async function channelRun(q: string, xs: number[]): Promise<string[]> {
  const calls: string[] = [];
  const writer: ChannelWriter = {
    write: () => Promise.reject(new Error("write without a channel")),
    writeTo(c, b) {
      calls.push(`${c}: ${b.map((v) => formatZson(v.type, v.body)).join(" ")}`);
      return Promise.resolve();
    },
    endChannel(c) {
      calls.push(`end ${c}`);
      return Promise.resolve();
    },
    end: () => Promise.resolve(),
  };
  await runQuery(compileQuery(q), [reader(xs)], writer);
  return calls;
}

Deno.test("channels: a trailing fork writes a channel per leg, then ends each", async () => {
  assert.deepEqual(await channelRun("fork (=> x==1 => x==2)", [1, 2, 3]), [
    "0: {x:1}",
    "1: {x:2}",
    "end 0",
    "end 1",
  ]);
});

Deno.test("channels: nested trailing legs split again, numbered left to right", async () => {
  const calls = await channelRun(
    "fork (=> fork (=> yield 'a' => yield 'b') => switch x (case 1 => yield 'c' case 2 => yield 'd'))",
    [1],
  );
  assert.deepEqual(calls.filter((c) => !c.startsWith("end")), ['0: "a"', '1: "b"', '2: "c"']);
  assert.deepEqual(calls.filter((c) => c.startsWith("end")).sort(), [
    "end 0",
    "end 1",
    "end 2",
    "end 3",
  ]);
});

Deno.test("channels: legs that meet again, and a single leg, are channel 0", async () => {
  assert.deepEqual(await channelRun("fork (=> pass => pass) | count()", [1, 2]), [
    "0: {count:4(uint64)}",
    "end 0",
  ]);
  assert.deepEqual(await channelRun("x > 1", [1, 2]), ["0: {x:2}", "end 0"]);
});

Deno.test("channels: fanIn splits a Channel, and shares one Combine for anything else", () => {
  const c = new Collector();
  const outs = fanIn(c, 3);
  assert.equal(outs.length, 3);
  assert.ok(outs[0] === outs[1] && outs[1] === outs[2]);
  outs[0].end();
  outs[1].end();
  assert.equal(c.ended, false, "the sink ends when every leg has");
  outs[2].end();
  assert.equal(c.ended, true);

  const root = new Channel({ push() {}, end() {} });
  const parts = fanIn(root, 2) as Channel[];
  (fanIn(parts[0], 2) as Channel[]).forEach((p) => assert.ok(p instanceof Channel));
  assert.equal(root.number(), 3);
  assert.throws(() => root.split(2), /split twice/);
});
