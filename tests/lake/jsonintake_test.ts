import assert from "node:assert/strict";
import { ConcatReader } from "../../lib/formats/io.ts";
import type { ByteSource } from "../../lib/cli/lake/api.ts";
import { InputCounters, sourceReader } from "../../lib/cli/lake/inputs.ts";
import { load } from "../../lib/lake/load.ts";
import { encodeZng } from "../../lib/formats/zng/writer.ts";
import { zsonLines } from "../formats/zng_helpers.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import type { PoolConfig } from "../../lib/lake/pools.ts";
import { objectEnd } from "../../lib/lake/jsonintake.ts";
import { bytesEqual } from "../../lib/zed/bytes.ts";
import {
  assertSameOutcome,
  keyedPool,
  loadInto,
  type Outcome,
  outcome,
  valuesOnly,
  withLake,
} from "./helpers.ts";

const encoder = new TextEncoder();

/** Loads text both ways and checks they agree; returns the outcome. */
async function agree(
  lake: Lake,
  name: string,
  text: string,
  sizes = [1 << 20],
  key = "ts",
  threshold?: number,
  order: "asc" | "desc" = "asc",
): Promise<Outcome> {
  const bytes = encoder.encode(text);
  const pool = (p: string) => keyedPool(lake, p, key, order, { threshold });
  const fast = await loadInto(lake, pool(`${name}f`), bytes, sizes, true);
  const slow = await loadInto(lake, pool(`${name}s`), bytes, sizes, false);
  assertSameOutcome(fast, slow, `${name}: ${text.slice(0, 200)}`);
  return fast;
}

// Values the transcoder writes itself, and values it leaves to the parser,
// side by side in one input: every one must come out as the parser gives it.
const CASES: [string, string][] = [
  ["plain", '{"ts":1,"a":"x","b":true,"c":null,"d":-2.5,"e":[1,2],"f":{"g":"h"}}'],
  ["spaces", ' { "ts" : 2 ,\t"a"\r\n: [ "x" , "y" ] , "b" : { } }\n'],
  ["escapes", '{"ts":3,"s":"a\\"b\\\\c\\/d\\n\\t\\r\\b\\f\\u0041\\u0001\'"}'],
  ["escape past ASCII", '{"ts":4,"s":"caf\\u00e9","t":"\\ud83d\\ude00","u":"\\ud800x"}'],
  ["raw non-ASCII", '{"ts":5,"s":"café","k\u00e9y":"e\u0301","emoji":"😀"}'],
  [
    "numbers",
    '{"ts":6,"a":0,"b":-0,"c":123456789012345,"d":1234567890123456,"e":-9223372036854775808}',
  ],
  ["big numbers", '{"ts":7,"a":9223372036854775808,"b":99999999999999999999,"c":-0.0,"d":1.5e3}'],
  [
    "floats",
    '{"ts":8,"a":0.1234567890123456789,"b":1E-7,"c":2.5e+300,"d":0.5,"e":12345678.12345678}',
  ],
  [
    "mixed arrays",
    '{"ts":9,"a":[1,"x",null],"b":[[1],[2.5]],"c":[{"x":1},{"y":2}],"d":[null,null],"e":[]}',
  ],
  ["duplicates", '{"ts":10,"a":1,"b":2,"a":"three"}'],
  ["empty object", "{}"],
  ["nested empty", '{"ts":11,"a":{},"b":[{}]}'],
  ["key escapes", '{"ts":12,"a\\"b":1,"c\\u0041":2}'],
  ["not an object", '[1,2]\n"str"\n7\n{"ts":13}'],
  ["missing key", '{"a":1}\n{"ts":null,"a":2}\n{"ts":"14","a":3}'],
  ["nested key", '{"ts":{"x":1}}\n{"ts":[1]}'],
  ["controls", '{"ts":15,"s":"a\u0001b"}'],
  ["bad literal", '{"ts":16,"a":tru}'],
  ["bad number", '{"ts":17,"a":1.}\n{"ts":18}'],
  ["bad float", '{"ts":19,"a":1e999}'],
  ["bad escape", '{"ts":20,"a":"\\x"}'],
  ["unclosed", '{"ts":21,"a":"x"}\n{"ts":22,"a":'],
  ["unclosed string", '{"ts":23}\n{"ts":24,"a":"xyz'],
  ["trailing garbage", '{"ts":25} }'],
  ["bom", '\ufeff{"ts":26}'],
  ["invalid utf-8", '{"ts":27,"a":"\udc00"}'],
  // Around the longest string with a one-byte tag (126 bytes), with escapes and without.
  [
    "string lengths",
    `{"ts":28,"a":"","b":"${"b".repeat(125)}","c":"${"c".repeat(126)}","d":"${"d".repeat(127)}",` +
    `"e":"${"e".repeat(128)}","f":"${"f".repeat(300)}","g":"${"g".repeat(124)}\\n","h":"${
      "h".repeat(127)
    }é"}`,
  ],
];

Deno.test("JSON loaded from its bytes gives the objects, values, warnings and errors the parser gives", async () => {
  await withLake(async (lake) => {
    let k = 0;
    for (const [, text] of CASES) {
      const full = `{"ts":0,"lead":"x"}\n${text}\n{"ts":100,"tail":[1.5]}`;
      for (const sizes of [[1 << 20], [1], [7, 3, 64]]) {
        await agree(lake, `c${k++}`, full, sizes);
      }
      await agree(lake, `c${k++}`, text);
    }
  });
});

/** A random JSON value of the kinds logs hold, some of which the transcoder leaves alone. */
function randomRecord(rand: () => number, i: number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const scalar = (): unknown =>
    pick([
      () => Math.floor(rand() * 1e6) - 5e5,
      () => rand() * 1000,
      () => Math.floor(rand() * 1e15) * 1e4,
      () => pick(["a", "bb", "x.y.z", "10.0.0.1", "tab\there", 'q"uote', "é", "ünï", "😀"]),
      () => rand() < 0.5,
      () => null,
    ])();
  const value = (depth: number): unknown => {
    const r = rand();
    if (depth < 2 && r < 0.1) {
      const o: Record<string, unknown> = {};
      for (let f = 0; f < 1 + rand() * 3; f++) o[pick(["x", "y", "z"])] = value(depth + 1);
      return o;
    }
    if (depth < 2 && r < 0.2) {
      const n = Math.floor(rand() * 4);
      // Mostly of one type (with nulls), as logs have; now and then mixed (a union).
      const one = scalar();
      return rand() < 0.8
        ? Array.from({ length: n }, () => rand() < 0.2 ? null : one)
        : Array.from({ length: n }, () => scalar());
    }
    return scalar();
  };
  const rec: Record<string, unknown> = { ts: rand() < 0.95 ? Math.floor(rand() * 100) : null };
  for (let f = 0; f < 2 + rand() * 8; f++) {
    rec[pick(["a", "b", "c", "id.orig_h", "d_e", "f"])] = value(0);
  }
  let text = JSON.stringify(rec);
  // Sometimes numbers as the reference writes them, or spaces.
  if (i % 7 === 0) text = text.replace(/:(\d+)\b/g, ":$1.0");
  if (i % 11 === 0) text = text.replaceAll(",", " ,\n ");
  return text;
}

Deno.test("random log records load from their bytes as from their values, in any chunking", async () => {
  await withLake(async (lake) => {
    let x = 42;
    const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 6; round++) {
      const text = Array.from({ length: 300 }, (_, i) => randomRecord(rand, i)).join("\n");
      const sizes = [1 << 20, 1 + Math.floor(rand() * 50), 1 + Math.floor(rand() * 5000)];
      await agree(lake, `r${round}`, text, sizes);
    }
  });
});

Deno.test("records longer than the bytes read at a time, and many of them, load whole", async () => {
  await withLake(async (lake) => {
    const long = "x".repeat(3 << 20);
    const text = [
      `{"ts":1,"s":"${long}"}`,
      ...Array.from({ length: 20000 }, (_, i) => `{"ts":${i},"a":"v${i}","b":[${i}.5]}`),
      `{"ts":2,"s":"${long}\\n"}`,
    ].join("\n");
    const out = await agree(lake, "long", text, [65536]);
    assert.equal(out.error, null);
    assert.equal(out.zson.length, 20002);
  });
});

Deno.test("keys of every kind, and objects cut at the pool's threshold, come out as from values", async () => {
  await withLake(async (lake) => {
    let x = 7;
    const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    const ts = () => new Date(Date.UTC(2018, 2, 24) + Math.floor(rand() * 36e5)).toISOString();
    const zeek = Array.from(
      { length: 2000 },
      (_, i) => JSON.stringify({ _path: "dns", ts: ts(), id: { orig_h: `10.0.0.${i % 9}` }, n: i }),
    ).join("\n");
    await agree(lake, "kts", zeek);
    await agree(lake, "knested", zeek, [4096], "id.orig_h");
    await agree(lake, "kthreshold", zeek, [1 << 20], "ts", 5000);
    const kinds = [
      '{"k":1.5}',
      '{"k":true}',
      '{"k":null}',
      '{"k":"é"}',
      '{"k":[1]}',
      '{"k":{"a":1}}',
      '{"x":1}',
      '{"k":-7}',
      '{"k":"b"}',
      '{"k":12345678901234567890}',
    ].join("\n");
    await agree(lake, "kinds", kinds, [1 << 20], "k");
    await agree(lake, "kindsthreshold", kinds, [3], "k", 1);
  });
});

Deno.test("string keys read from the values' bytes order as parsed keys: prefixes, ties, NULs, non-ASCII, desc", async () => {
  await withLake(async (lake) => {
    let x = 11;
    const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)];
    // Keys sharing long prefixes, differing before and past the twelfth
    // byte after them, prefixes of each other, equal keys with other
    // bodies; in some rounds NULs and a few keys that are not ASCII.
    const base = [
      "2018-03-24T17:15:20.8657",
      "2018-03-24T17:15:20.8657160000000001",
      "2018-03-24T17:15:2",
      "2018-03-25T17:15:20.8657",
      "2018-03-24T18",
      "",
    ];
    // Keys too long for the radix passes (keyradix.ts), sorted by comparisons.
    const long = base.map((k) => "x".repeat(60) + k);
    for (let round = 0; round < 5; round++) {
      const records = Array.from({ length: 1500 }, (_, i) => {
        const ends = ["", "0", "1", "zz", String(Math.floor(rand() * 50))];
        // (A key with a NUL is left to the parser: its buffer's keys go the general way.)
        let k = pick(round === 4 ? long : base) +
          pick(round === 2 ? [...ends, "\\u0000"] : ends);
        if (round === 3 && i % 500 === 7) k += "é";
        return `{"ts":"${k}","n":${Math.floor(rand() * 3)}}`;
      });
      // Mostly in order, as logs are, with stretches out of order.
      if (round % 2 === 0) records.sort();
      for (let i = 0; i < 100; i++) {
        const a = Math.floor(rand() * records.length),
          b = Math.min(records.length - 1, a + Math.floor(rand() * 5));
        [records[a], records[b]] = [records[b], records[a]];
      }
      await agree(lake, `sk${round}`, records.join("\n"), [4096]);
      await agree(lake, `skt${round}`, records.join("\n"), [1 << 20], "ts", 3000);
      await agree(lake, `skd${round}`, records.join("\n"), [1 << 20], "ts", undefined, "desc");
    }
    const p = keyedPool(lake, "skdesc", "ts", "desc", {});
    const text = [
      '{"ts":"b"}',
      '{"ts":"a\\u0000"}',
      '{"ts":"a"}',
      '{"ts":"ab"}',
      '{"ts":"a","x":1}',
    ].join("\n");
    const out = await loadInto(lake, p, encoder.encode(text), [1 << 20], true);
    assert.deepEqual(out.zson, [
      '{ts:"b"}',
      '{ts:"ab"}',
      '{ts:"a\\u0000"}',
      '{ts:"a",x:1}',
      '{ts:"a"}',
    ]);
  });
});

Deno.test("objectEnd finds an object's closing brace past strings and nesting", () => {
  const b = encoder.encode('{"a":"}{\\"]","b":[{"c":"d"}]} tail');
  assert.equal(objectEnd(b, 0, b.length), b.indexOf(32));
  assert.equal(objectEnd(b, 0, 10), -1);
  assert.equal(objectEnd(encoder.encode("[1]"), 0, 3), -2);
});

/** An input of chunks, named; `fail` breaks it after its chunks (a read error). */
function source(name: string, chunks: (string | Uint8Array)[], fail = false): ByteSource {
  return {
    name,
    open: () =>
      Promise.resolve((async function* () {
        for (const c of chunks) yield typeof c === "string" ? encoder.encode(c) : c;
        if (fail) throw new Error("the disk went away");
      })()),
  };
}

/** ZNG whose second values frame has a wrong version bit (its first value detects as ZNG). */
function badZng(): Uint8Array[] {
  const bytes = encodeZng(zsonLines("{ts:1,b:1}\n{ts:2,b:2}\n{ts:3,b:3}"), { frameThreshold: 1 });
  // Frames: types, then a values frame per value; the third frame starts after the second.
  let p = 0;
  for (let k = 0; k < 2; k++) p += 2 + (bytes[p] & 0xf) + bytes[p + 1] * 16;
  const bad = bytes.slice();
  bad[p] |= 0x80;
  return [bad];
}

/** ZSON records as ZNG, cut in two chunks (the second from `cut` bytes on). */
function zng(zson: string, cut: number): Uint8Array[] {
  const bytes = encodeZng(zsonLines(zson));
  return [bytes.slice(0, cut), bytes.slice(cut)];
}

/** Loads inputs one after another as `loch load` reads them, from bytes (fast) or values. */
async function loadInputs(
  lake: Lake,
  pool: PoolConfig,
  inputs: () => ByteSource[],
  fast: boolean,
): Promise<Outcome> {
  const counters = new InputCounters();
  const reader = new ConcatReader(inputs().map((s) => sourceReader(s, "auto", counters)));
  try {
    const out = await outcome(
      lake,
      pool,
      () => load(lake, pool, "main", fast ? reader : valuesOnly(reader)),
    );
    return { ...out, throughRead: counters.records };
  } finally {
    await reader.close();
  }
}

Deno.test("inputs read one after another (loch load's) load from their bytes as from their values", async () => {
  await withLake(async (lake) => {
    const runs: [string, () => ByteSource[], string | null, number][] = [
      [
        "mixed",
        () => [
          source("a.json", ['{"ts":3,"a":"x"}\n{"ts":1,', '"a":"y"}\n']),
          source("b.zson", ["{ts:2,b:1}\n"]),
          source("c.json", ['{"ts":0,"s":"café"}\n{"ts":5,"a":[1,"x"]}\n{"ts":4}']),
        ],
        null,
        6,
      ],
      [
        // ZNG goes into the buffer encoded (ZngReader.readEncoded), JSON from its bytes: only
        // the ZSON input's values come through read().
        "zng",
        () => [
          source("a.json", ['{"ts":3,"a":"x"}\n']),
          source("b.zng", zng("{ts:2,b:1}\n{ts:7,b:2}\n{ts:1,c:[1,2]}", 9)),
          source("c.zson", ["{ts:5,z:1}"]),
        ],
        null,
        5,
      ],
      [
        "bad zng",
        () => [
          source("a.json", ['{"ts":3,"a":"x"}\n']),
          source("b.zng", badZng()),
        ],
        "b.zng: zngio: encountered wrong version bit in framing",
        0,
      ],
      [
        "bad record",
        () => [
          source("a.json", ['{"ts":1}\n']),
          source("c.json", ['{"ts":2}\n{"ts":3,"a":tru}\n{"ts":4}\n']),
        ],
        "c.json: ",
        0,
      ],
      [
        "read error",
        () => [
          source("a.json", ['{"ts":1}\n']),
          // Past what detection reads: the load meets the error itself.
          source("d.json", ['{"ts":2}\n'.repeat(10000)], true),
        ],
        "d.json: the disk went away",
        0,
      ],
      [
        "missing",
        () => [
          source("a.json", ['{"ts":1}\n']),
          { name: "e.json", open: () => Promise.reject(new Error("no such file or directory")) },
        ],
        "e.json: no such file or directory",
        0,
      ],
    ];
    for (const [name, inputs, error, count] of runs) {
      const fast = await loadInputs(lake, keyedPool(lake, `${name}f`, "ts", "asc"), inputs, true);
      const slow = await loadInputs(lake, keyedPool(lake, `${name}s`, "ts", "asc"), inputs, false);
      if (error === null) assert.equal(fast.error, null, name);
      else assert.ok(fast.error?.startsWith(error), `${name}: ${fast.error}`);
      assert.equal(fast.error, slow.error, name);
      assert.equal(fast.zson.length, count, name);
      assert.deepEqual(fast.zson, slow.zson, name);
      if (name === "mixed") assert.deepEqual([fast.throughRead, slow.throughRead], [1, 6]);
      if (name === "zng") assert.deepEqual([fast.throughRead, slow.throughRead], [1, 5]);
      assert.equal(fast.objects.length, slow.objects.length, name);
      fast.objects.forEach((o, k) => assert.ok(bytesEqual(o, slow.objects[k]), `${name}: ${k}`));
    }
  });
});
