// Query shapes beyond the service benchmark's named set, as a user trying
// loch would write them: filters with functions, sorts by any field, tail,
// uniq, fuse, put, rename, grouping by time buckets, dcount. loch serve and
// zed serve side by side on the Zeek logs (1x, one POST per file, a pool
// keyed ts ascending), warm (the median of 7 runs after 3), each answer
// compared with Zed's (as sorted lines: groupings come in any order). It
// prints loch/Zed per shape and how many are over 0.5 and over 1. Then the
// service benchmark's queries over a second pool of the same logs with ts
// a time (made so by zq), as Zui's users' pools mostly are, and the queries
// Zui itself sends over it.
//
//   deno task bench --only shapes

import { join } from "./path.ts";
import { drain, fileBody, ServerProcess } from "./httpclient.ts";
import { zeekFiles } from "./lake.ts";
import { median, repoRoot } from "./util.ts";
import { openReader } from "../lib/formats/detect.ts";
import { ByteInput } from "../lib/formats/io.ts";
import { ZsonWriter } from "../lib/formats/zson/writer.ts";

const ZED_DIR = join(repoRoot, "..", "shared", "tools", "zed-v1.3.0");

export const SHAPES = [
  '_path=="conn" | count()',
  '_path=="dns" and query=="www.google.com" | count()',
  "query matches *google* | count()",
  "grep(/google/, query) | count()",
  'query in ["www.google.com","www.bing.com"] | count()',
  "has(rtt) | count()",
  "not has(rtt) | count()",
  "typeof(rtt)==<float64> | count()",
  'rtt > 0.1 or rcode_name=="NXDOMAIN" | count()',
  "len(query) > 30 | count()",
  'lower(query)=="www.google.com" | count()',
  'cidr_match(10.47.0.0/16, this["id.orig_h"]) | count()',
  '_path=="conn" | sum(orig_bytes) by proto',
  "count() by _path, proto | sort -r count | head 5",
  "dcount(query)",
  "collect(qtype_name) by rcode_name | count()",
  "min(ts), max(ts)",
  "count() by every(1h)",
  "count() by query | sort -r count | head 10",
  '_path=="ssl" | count() by server_name | sort -r count | head 5',
  "yield query | head 5",
  "rename q:=query | head 3",
  "cut query | head 100",
  "head 1000 | count()",
  "tail 5",
  "cut ts, _path | tail 10",
  "sort query | head 5",
  "sort -r rtt | head 5",
  "sort -r rtt | head 500",
  'sort -r this["id.orig_p"] | head 20',
  "top 5 rtt",
  "put x:=rtt*1000 | sum(x)",
  "sum(len(query)+len(qtype_name)) by rcode_name",
  '_path=="dns" | sort len(query) | head 5',
  "sort -r len(query)+qtype | head 4",
  '_path=="dns" | cut query, rtt | sort -r rtt | head 5',
  '_path=="dns" | uniq | count()',
  "uniq -c | count()",
  "fuse | head 1",
  '_path=="dns" | over answers | count()',
  "grep(/google/) | count()",
  'fork ( => _path=="dns" | count() => _path=="ssl" | count() ) | sort count',
  '_path=="dns" | yield {q:query, n:len(answers)} | count() by n | sort n',
  '_path=="ssl" | cut ts, server_name, subject | sort -r ts | head 1000',
  '_path=="dns" | cut query, answers',
  "put x:=rtt*2 | cut ts, x | tail 1000",
  "cut ts, _path",
];

/** Whole results out in the formats clients ask for: the Go CLI's ZNG, Zui's ZJSON, JSON. */
export const OUTPUTS: [string, string][] = [
  ["pass", "application/x-zng"],
  ['_path=="dns"', "application/x-zng"],
  ["pass", "application/x-zjson"],
  ["pass", "application/json"],
];

/**
 * The service benchmark's queries over a pool whose ts is a time (as Zeek's
 * own logs, or logs shaped on loading, give it), rather than the JSON logs'
 * string: its keys, ranges and output are times.
 */
export const TIME_SHAPES = [
  "count()",
  "count() by _path",
  "ts >= 2018-03-24T17:25:00Z and ts < 2018-03-24T18:25:00Z | count()",
  "ts >= 2018-03-24T17:25:00Z and ts < 2018-03-24T17:30:00Z | count()",
  "sort -r ts | head 10",
  "sort ts | head 10",
  "head 10",
  '"wrccdc" | count()',
  "id.resp_p==53 | count()",
  'this["id.resp_p"]==53 | count()',
  "summarize avg(rtt) by query | sort -r avg | head 10",
  'count() by this["id.orig_h"]',
  "cut ts,query | head 10000",
];

/**
 * What Zui itself sends over such a pool (docs/clients.md): pages of the
 * results table (the first, a later one, after a search and a filter), the
 * histogram's checks and buckets by each value's type, and its time range.
 */
export const ZUI_SHAPES = [
  "{ i: count(), v: this} | i > 0 | head 500 | yield v",
  "{ i: count(), v: this} | i > 1000 | head 500 | yield v",
  '"wrccdc" | { i: count(), v: this} | i > 0 | head 500 | yield v',
  '_path=="dns" | { i: count(), v: this} | i > 0 | head 500 | yield v',
  "min(ts), max(ts)",
  "ts == null | count()",
  "!has(ts) | count()",
  "ts != null | count() by time := bucket(ts, 1m), group := typeof(this) | sort time",
  "ts != null | count() by time := bucket(ts, 1m), group := _path | sort time",
];

/** The logs with ts made a time (by zq), as ZNG files in dir. */
async function timeKeyed(files: string[], dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const f of files) {
    const to = join(dir, f.split("/").pop()!.replace(/\.json(\.gz)?$/, "") + ".zng");
    const r = await new Deno.Command(join(ZED_DIR, "zq"), {
      args: ["-f", "zng", "-o", to, "ts:=time(ts)", f],
      stdout: "null",
    }).output();
    if (!r.success) throw new Error(`zq over ${f}: ${new TextDecoder().decode(r.stderr)}`);
    out.push(to);
  }
  return out;
}

async function load(s: ServerProcess, files: string[], pool = "asc"): Promise<void> {
  const post = async (path: string, body: BodyInit, headers: HeadersInit = {}) =>
    await drain(
      await fetch(s.url + path, {
        method: "POST",
        body,
        headers: { Accept: "application/json", ...headers },
      }),
      path,
    );
  await post(
    "/pool",
    JSON.stringify({ name: pool, layout: { order: "asc", keys: [["ts"]] } }),
    { "Content-Type": "application/json" },
  );
  for (const f of files) await post(`/pool/${pool}/branch/main`, await fileBody(f));
}

async function timed(
  base: string,
  text: string,
  pool: string,
  accept: string,
): Promise<{ ms: number; body: string }> {
  const t0 = performance.now();
  const res = await fetch(`${base}/query`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: accept },
    body: JSON.stringify({ query: `from ${pool} | ${text}` }),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const ms = performance.now() - t0;
  // ZNG compared by its values (its frames may be cut at other places).
  const body = accept === "application/x-zng"
    ? await zsonOf(bytes)
    : new TextDecoder().decode(bytes);
  if (!res.ok) throw new Error(`${text}: HTTP ${res.status}: ${body}`);
  return { ms, body };
}

/** ZNG bytes as ZSON text. */
async function zsonOf(bytes: Uint8Array): Promise<string> {
  const r = await openReader(ByteInput.fromBytes(bytes));
  const parts: string[] = [];
  const w = new ZsonWriter((c) => {
    parts.push(new TextDecoder().decode(c));
    return Promise.resolve();
  });
  for (let b = await r.read(); b !== null; b = await r.read()) await w.write(b);
  await w.end();
  return parts.join("");
}

async function warm(
  base: string,
  text: string,
  pool = "asc",
  accept = "application/x-zson",
): Promise<{ ms: number; body: string }> {
  let body = "";
  for (let i = 0; i < 3; i++) body = (await timed(base, text, pool, accept)).body;
  const ts: number[] = [];
  for (let i = 0; i < 7; i++) ts.push((await timed(base, text, pool, accept)).ms);
  return { ms: median(ts), body };
}

const sortedLines = (s: string) => s.split("\n").filter((l) => l !== "").sort().join("\n");

export async function shapesBenchmarks(tmp: string): Promise<void> {
  const zedExe = join(ZED_DIR, "zed");
  if (!(await Deno.stat(zedExe).then(() => true, () => false))) {
    console.log("shapes: zed not found beside the project; skipped");
    return;
  }
  const files = await zeekFiles(tmp);
  const dir = await Deno.makeTempDir({ dir: tmp, prefix: "shapes-" });
  const loch = await ServerProcess.start(join(dir, "loch"), dir);
  const zed = await ServerProcess.startZed(zedExe, join(dir, "zed"), dir);
  try {
    await load(loch, files);
    await load(zed, files);
    const timeFiles = await timeKeyed(files, dir);
    await load(loch, timeFiles, "times");
    await load(zed, timeFiles, "times");
    console.log("shapes (1x, pool keyed ts ascending; warm ms, median of 7 after 3):");
    await compare(loch, zed, SHAPES, "asc", "shapes");
    console.log("the service benchmark's queries, ts a time (1x, keyed ts ascending; warm ms):");
    await compare(loch, zed, TIME_SHAPES, "times", "queries");
    console.log("Zui's own queries over the same pool (warm ms):");
    await compare(loch, zed, ZUI_SHAPES, "times", "Zui queries");
    console.log("whole results out, by format (the JSON logs' pool; warm ms):");
    await compare(loch, zed, OUTPUTS, "asc", "outputs");
  } finally {
    await loch.stop();
    await zed.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Each query on both servers, warm: the times, their ratio and whether the answers agree. */
async function compare(
  loch: ServerProcess,
  zed: ServerProcess,
  queries: (string | [string, string])[],
  pool: string,
  what: string,
): Promise<void> {
  console.log("   loch      zed  loch/zed  answer  query");
  let over1 = 0, overHalf = 0, differ = 0;
  for (const q of queries) {
    const [query, accept] = typeof q === "string" ? [q, "application/x-zson"] : q;
    const text = typeof q === "string" ? q : `${query} (${accept})`;
    const l = await warm(loch.url, query, pool, accept);
    const z = await warm(zed.url, query, pool, accept);
    const r = l.ms / z.ms;
    if (r > 1) over1++;
    if (r > 0.5) overHalf++;
    const same = sortedLines(l.body) === sortedLines(z.body);
    if (!same) differ++;
    console.log(
      `${l.ms.toFixed(1).padStart(7)} ${z.ms.toFixed(1).padStart(8)} ${r.toFixed(2).padStart(9)}  ${
        same ? "equal " : "DIFFER"
      }  ${text}`,
    );
  }
  console.log(
    `  ${queries.length} ${what}: ${over1} slower than Zed, ${overHalf} over half its time, ` +
      `${differ} answers differ`,
  );
}

if (import.meta.main) {
  const tmp = await Deno.makeTempDir({ prefix: "loch-shapes-" });
  try {
    await shapesBenchmarks(tmp);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
