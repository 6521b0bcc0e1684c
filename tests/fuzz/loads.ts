// Fuzzing the JSON load path against the JSON reader: mutations of a valid
// body of log-like records (formats.ts's Mutator), each loaded twice, once
// from its bytes through the transcoder (lake/jsonintake.ts) and once value
// by value from the reader, in the same random chunking. The two must agree
// exactly: the same error, the same warnings, the same object bytes; any
// difference, or an error that is not a LochError, is a fault.

import { LochError, messageOf } from "../../lib/errors.ts";
import { openReader } from "../../lib/formats/detect.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { load, type LoadResult } from "../../lib/lake/load.ts";
import type { PoolConfig } from "../../lib/lake/pools.ts";
import { bytesEqual } from "../../lib/zed/bytes.ts";
import { rng } from "../formats/zng_helpers.ts";
import { chunked, keyedPool, readStored, valuesOnly, withLake } from "../lake/helpers.ts";
import { type FuzzResult, Mutator } from "./formats.ts";

/** Records of the kinds the transcoder writes itself and those it leaves to the parser. */
const RECORDS = [
  '{"ts":"2018-03-24T17:15:20.865716Z","uid":"CqKst53","id.orig_h":"10.47.1.100","id.orig_p":41772}',
  '{"ts":1.5,"rtt":0.0008699893951416016,"n":-12,"big":12345678901234567890,"e":1e-7,"z":-0}',
  '{"ts":2,"s":"esc \\" \\\\ \\/ \\n \\t \\u0041","answers":["a","b"],"TTLs":[1.5,2.5]}',
  '{"ts":2.5,"u":"\\u00e9 \\ud83d\\ude00","t":"café"}',
  '{"ts":3,"ok":true,"no":false,"nil":null,"arr":[],"mixed":[1,"x",null],"obj":{"a":{"b":[{}]}}}',
  '{"ts":null,"dup":1,"dup":2,"empty":{},"nested":[[1],[2]]}',
  '{"ts":4,"ok":true,"no":false,"nil":null,"obj":{"a":{"b":"c"}},"ints":[1,2,3],"strs":["x"]}',
  '{"_path":"dns","ts":"2018-03-24T17:15:21Z","query":"www.example.org","qtype":1,"RD":true}',
];

const encoder = new TextEncoder();

interface Outcome {
  error: string | null;
  warnings: string[];
  objects: Uint8Array[];
}

async function loadOnce(
  lake: Lake,
  pool: PoolConfig,
  bytes: Uint8Array,
  sizes: number[],
  fromBytes: boolean,
): Promise<Outcome> {
  let res: LoadResult;
  try {
    const reader = await openReader(chunked(bytes, sizes), "json");
    res = await load(lake, pool, "main", fromBytes ? reader : valuesOnly(reader), {
      warnOnReadError: true,
    });
  } catch (e) {
    if (!(e instanceof LochError)) throw e;
    return { error: messageOf(e), warnings: [], objects: [] };
  }
  const objects: Uint8Array[] = [];
  for (const o of res.objects) objects.push(await readStored(lake, lake.objectPath(pool.id, o.id)));
  return { error: null, warnings: res.warnings, objects };
}

/** What differs between two outcomes, or null. */
function difference(a: Outcome, b: Outcome): string | null {
  if (a.error !== b.error) return `error ${JSON.stringify(a.error)} vs ${JSON.stringify(b.error)}`;
  if (JSON.stringify(a.warnings) !== JSON.stringify(b.warnings)) {
    return `warnings ${JSON.stringify(a.warnings)} vs ${JSON.stringify(b.warnings)}`;
  }
  if (a.objects.length !== b.objects.length) {
    return `${a.objects.length} objects vs ${b.objects.length}`;
  }
  const k = a.objects.findIndex((o, i) => !bytesEqual(o, b.objects[i]));
  return k < 0 ? null : `object ${k} differs`;
}

/** Loads count mutations of a valid JSON body both ways and compares them. */
export async function fuzzJsonLoads(seed: number, count: number): Promise<FuzzResult> {
  const rand = rng(seed ^ 0x10ad);
  const body = encoder.encode(RECORDS.join("\n") + "\n");
  const m = new Mutator(seed);
  const res: FuzzResult = { format: "json-load", cases: 0, decoded: 0, faults: [], slowestMs: 0 };
  await withLake(async (lake) => {
    const fast = keyedPool(lake, "bytes", "ts");
    const slow = keyedPool(lake, "values", "ts");
    for (let i = 0; i < count; i++) {
      const bytes = m.mutate(body);
      const sizes = [1 + Math.floor(rand() * 300), 1 + Math.floor(rand() * 40)];
      const t0 = performance.now();
      try {
        const a = await loadOnce(lake, fast, bytes, sizes, true);
        const b = await loadOnce(lake, slow, bytes, sizes, false);
        const diff = difference(a, b);
        if (diff !== null) res.faults.push(`case ${i}: ${diff}`);
        else if (a.error === null && a.warnings.length === 0) res.decoded++;
      } catch (e) {
        res.faults.push(`case ${i} (${(e as Error)?.name}): ${messageOf(e).slice(0, 200)}`);
      }
      res.slowestMs = Math.max(res.slowestMs, performance.now() - t0);
      res.cases++;
    }
  });
  return res;
}
