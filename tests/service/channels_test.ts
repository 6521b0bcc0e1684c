// Query output channels (lake-api.md §12.4, curl-query-split.yaml): a query
// whose main sequence ends in parallel legs has an output per leaf leg,
// numbered left to right; with ctrl, QueryChannelSet/End frame each, and each
// channel defines the ZJSON types it uses; without ctrl the outputs merge.

import assert from "node:assert/strict";
import { createPool, hex, load, query, type TestServer, withServer } from "./helpers.ts";

const hexText = (s: string) => hex(new TextEncoder().encode(s));

interface Line {
  type: unknown;
  value: unknown;
}

/** The ZJSON control lines and values of a ctrl=T response, control lines as "Set 0" etc. */
async function channelEvents(s: TestServer, q: string): Promise<string[]> {
  const r = await query(s, q, "application/x-zjson", "?ctrl=T");
  assert.equal(r.status, 200, r.text);
  const out: string[] = [];
  for (const text of r.text.trimEnd().split("\n")) {
    const line: Line = JSON.parse(text);
    if (line.type === "QueryStats") continue;
    if (typeof line.type === "string") {
      out.push(
        `${line.type.replace("QueryChannel", "")} ${
          (line.value as { channel_id: number }).channel_id
        }`,
      );
    } else {
      out.push(JSON.stringify(line.value));
    }
  }
  return out;
}

/** Values by channel, from the events. */
function byChannel(events: string[]): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  let current = -1;
  for (const e of events) {
    const m = /^(Set|End) (\d+)$/.exec(e);
    if (m === null) {
      (out[current] ??= []).push(e);
    } else if (m[1] === "Set") {
      current = Number(m[2]);
      out[current] ??= [];
    } else {
      out[Number(m[2])] ??= [];
    }
  }
  return out;
}

async function twoPools(s: TestServer): Promise<void> {
  await createPool(s, "a");
  await createPool(s, "b");
  await load(s, "a", "{x:1}");
  await load(s, "b", "{x:2}");
}

Deno.test("channels: curl-query-split.yaml, a trailing fork ends channels 0 and 1", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    await load(
      s,
      "test",
      '{a:"hello",b:{c:"world",d:"goodbye"}}\n{a:"one",b:{c:"two",d:"three"}}\n',
    );
    const events = await channelEvents(s, "from test | fork (=>pass =>pass)");
    assert.deepEqual(events.filter((e) => e.startsWith("End")).sort(), ["End 0", "End 1"]);
    const values = byChannel(events);
    assert.equal(values[0].length, 2);
    assert.deepEqual(values[1], values[0]);
  }));

Deno.test("channels: leaves are numbered left to right through nested legs", () =>
  withServer(async (s) => {
    await twoPools(s);
    const abc = { 0: ['"a"'], 1: ['"b"'], 2: ['"c"'] };
    for (
      const q of [
        "from a | fork (=> yield 'a' => fork (=> yield 'b' => yield 'c'))",
        "from a | fork (=> fork (=> yield 'a' => yield 'b') => yield 'c')",
        "from (pool a => fork (=> yield 'a' => yield 'b') pool b => yield 'c')",
        "from a | over [1,2,3] | switch this (case 1 => yield 'a' case 2 => yield 'b' case 3 => yield 'c')",
      ]
    ) {
      const events = await channelEvents(s, q);
      assert.deepEqual(byChannel(events), abc, q);
      assert.deepEqual(events.filter((e) => e.startsWith("End")).sort(), [
        "End 0",
        "End 1",
        "End 2",
      ]);
    }
    // A multi-source `from` at the end: a channel per source.
    assert.deepEqual(byChannel(await channelEvents(s, "from (pool a pool b)")), {
      0: ['["1"]'],
      1: ['["2"]'],
    });
  }));

Deno.test("channels: an empty channel ends without being set; legs that meet again are one", () =>
  withServer(async (s) => {
    await twoPools(s);
    assert.deepEqual(await channelEvents(s, "from a | switch x (case 1 => pass case 2 => pass)"), [
      "Set 0",
      '["1"]',
      "End 0",
      "End 1",
    ]);
    // Legs followed by another operator combine into it: one channel.
    assert.deepEqual(await channelEvents(s, "from a | fork (=> pass => pass) | count()"), [
      "Set 0",
      '["2"]',
      "End 0",
    ]);
    // Nothing at all: channel 0 ends (the reference's empty result).
    assert.deepEqual(await channelEvents(s, "from a | x==3"), ["End 0"]);
  }));

Deno.test("channels: each channel defines the ZJSON types it uses; ids stay unique", () =>
  withServer(async (s) => {
    await twoPools(s);
    const r = await query(s, "from a | fork (=> pass => pass)", "application/x-zjson", "?ctrl=T");
    const types = r.text.trimEnd().split("\n").map((l) => JSON.parse(l) as Line)
      .filter((l) => typeof l.type === "object")
      .map((l) => l.type as { kind: string; id: number });
    assert.deepEqual(types.map((t) => [t.kind, t.id]), [["record", 30], ["record", 31]]);
  }));

Deno.test("channels: without ctrl the outputs merge; JSON is one array", () =>
  withServer(async (s) => {
    await twoPools(s);
    const q = "from a | fork (=> yield 'a' => yield 'b')";
    const zjson = await query(s, q, "application/x-zjson");
    assert.deepEqual(
      zjson.text.trimEnd().split("\n").map((l) => JSON.parse(l).value).sort(),
      ["a", "b"],
    );
    assert.deepEqual(JSON.parse((await query(s, q, "application/json")).text).sort(), ["a", "b"]);
    assert.deepEqual((await query(s, q)).text.trimEnd().split("\n").sort(), ['"a"', '"b"']);
  }));

Deno.test("channels: ZNG control frames name each channel", () =>
  withServer(async (s) => {
    await twoPools(s);
    const r = await query(s, "from a | fork (=> pass => pass)", "application/x-zng", "?ctrl=T");
    const h = hex(r.bytes);
    for (const c of [0, 1]) {
      for (const m of ["QueryChannelSet", "QueryChannelEnd"]) {
        assert.ok(h.includes(hexText(`{channel_id:${c}}(=${m})\n`)), `${m} ${c}`);
      }
    }
  }));
