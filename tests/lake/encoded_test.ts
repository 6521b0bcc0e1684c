// A pool's values going straight to a ZNG writer (`from p`, with a filter
// at most) are written as they are encoded, decoded only for what the
// filters read: the same bytes as decoding them all, the same QueryStats.

import assert from "node:assert/strict";
import { openWriter } from "../../lib/formats/registry.ts";
import { runLakeQuery } from "../../lib/lake/query.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { compileQuery } from "../../lib/query/mod.ts";
import { concatBytes } from "../formats/zng_helpers.ts";
import { keyedPool, lines, loadText, withLake } from "./helpers.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { openReader } from "../../lib/formats/detect.ts";

/** A query's ZNG output, with its values as they are encoded or not. */
async function zng(lake: Lake, q: string, encodedOutput: boolean) {
  const chunks: Uint8Array[] = [];
  const writer = openWriter("zng", (c) => {
    chunks.push(c.slice());
    return Promise.resolve();
  });
  const stats = await runLakeQuery(lake, q, writer, { encodedOutput });
  return { bytes: concatBytes(chunks), stats };
}

/** ZNG bytes as one-line ZSON values. */
async function zsonOf(bytes: Uint8Array): Promise<string[]> {
  const r = await openReader(ByteInput.fromBytes(bytes));
  let out = "";
  const w = new ZsonWriter((c) => {
    out += new TextDecoder().decode(c);
    return Promise.resolve();
  });
  for (let b = await r.read(); b !== null; b = await r.read()) await w.write(b);
  await w.end();
  return out.split("\n").filter((l) => l !== "");
}

Deno.test("straight to ZNG: the values as encoded, the same bytes and stats", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    let text = "";
    for (let i = 0; i < 600; i++) {
      text += i % 5 === 0
        ? `{ts:${i},s:"a${i}",r:{x:${i},y:null(string)},u:${i % 2 ? 1 : '"one"'}((int64,string))}\n`
        : `{ts:${i},n:${i % 7},s:null(string),arr:[${i},${i + 1}],t:<int64>}\n`;
    }
    await loadText(lake, p, text);
    // An object overlapping the first (merged in pool order, ties by encoding),
    // one apart, and values without a key.
    await loadText(lake, p, '{ts:3,n:1}\n{ts:3,n:0}\n{ts:300,s:"x"}\n7\n"str"\n{n:9}\n');
    await loadText(lake, p, "{ts:5000,n:2}\n{ts:5001,n:3}\n");
    for (
      const q of [
        "from p",
        "from p | n == 3",
        "from p | s == null",
        'from p | "a1"',
        "from p | n > 2 | ts > 100",
        "from p | ts >= 5000",
        "from p | this == 7",
        "from p | n == 1 | pass",
        "from p | pass",
      ]
    ) {
      const plan = compileQuery(q).sources![0];
      assert.ok(plan.straight !== undefined, q);
      const enc = await zng(lake, q, true);
      const dec = await zng(lake, q, false);
      assert.deepEqual(enc.bytes, dec.bytes, q);
      assert.deepEqual(enc.stats, dec.stats, q);
      assert.deepEqual(await zsonOf(enc.bytes), await lines(lake, q), q);
    }
    assert.equal(compileQuery("from p | cut n").sources![0].straight, undefined);
    assert.equal(compileQuery("from p | count()").sources![0].straight, undefined);
    assert.deepEqual(compileQuery("from p | n > 2 | s == null").sources![0].straight, {
      fields: ["n", "s"],
    });
    // A value decoded only in part is written as it was read.
    const one = await zsonOf((await zng(lake, "from p | n == 3 | ts > 1000", true)).bytes);
    assert.deepEqual(one, ["{ts:5001,n:3}"]);
  });
});

Deno.test("uniq over a pool compares the values' encodings as read, decoding only what follows reads", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    // Runs of duplicates, some across two overlapping objects, values that
    // differ only past the fields read, and values equal in encoding only.
    let a = "", b = "";
    for (let i = 0; i < 300; i++) {
      const ts = Math.floor(i / 3);
      const v = `{ts:${ts},s:"x${Math.floor(i / 6)}",n:${i % 6 < 4 ? 1 : 2}}\n`;
      if (i % 2 === 0) a += v;
      else b += v;
    }
    a += '{ts:500,s:"y",n:1}\n{ts:500,s:"y",n:1(int32)}\n{ts:501,s:null(string),n:1}\n';
    b += '{ts:501,s:"",n:1}\n';
    await loadText(lake, p, a);
    await loadText(lake, p, b);
    for (
      const rest of [
        "uniq | count()",
        "uniq -c | count()",
        "uniq -c | sort -r count, s | head 5 | yield count",
        "uniq | cut s | tail 4",
        "n == 1 | uniq | count()",
        's == "y" | uniq -c | yield count',
        "uniq -c | c:=count() by count | sort count",
      ]
    ) {
      const plain = await lines(lake, `from p | yield this | ${rest}`);
      assert.deepEqual(await lines(lake, `from p | ${rest}`), plain, rest);
    }
    assert.deepEqual(await lines(lake, 'from p | s == "y" | uniq -c | yield count'), [
      "2(uint64)",
    ]);
    // Objects apart (not merged): the fields read after uniq are decoded all the same.
    const q = keyedPool(lake, "q", "ts", "asc");
    await loadText(lake, q, '{ts:1,s:"a"}\n{ts:2,s:"b"}\n');
    await loadText(lake, q, '{ts:10,s:"b"}\n{ts:11,s:"b"}\n');
    assert.deepEqual(await lines(lake, "from q | uniq | count() by s | sort s"), [
      '{s:"a",count:1(uint64)}',
      '{s:"b",count:3(uint64)}',
    ]);
    const plan = (q: string) => compileQuery(`from p | ${q}`).sources![0];
    assert.deepEqual(plan("uniq | count()").encoded, { after: [] });
    assert.deepEqual(plan("n > 1 | uniq | count() by s").fields?.sort(), ["n", "s"]);
    assert.deepEqual(plan("uniq -c | c:=count() by count").encoded, { after: [] });
    assert.deepEqual(plan("uniq | count() by s").encoded, { after: ["s"] });
    assert.equal(plan("uniq").encoded, undefined);
    assert.equal(plan("uniq -c | yield value").encoded, undefined);
    assert.equal(plan("cut s | uniq | count()").encoded, undefined);
  });
});
