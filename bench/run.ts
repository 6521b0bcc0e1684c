// `deno task bench`: runs every benchmark and prints timings and ratios
// against the comparison tools. Options: --runs N (default 5), --only
// part,... (service, shapes, concurrency, json, queries, zng, lake, index,
// http, fuzz, soak, parquet),
// --scale 1x|10x|both (the service and concurrency parts). The service part
// comes first: loch serve against zed serve, zq and DuckDB on every query
// shape, cold and warm; then many clients at once against zed serve, with
// load speed and memory per phase. Last, the decoders' and queries' fuzzing
// (10 s each) and a 60 s soak of loch serve with a hostile client.

import { parseArgs } from "node:util";
import { jsonPassthrough } from "./json_passthrough.ts";
import { lakeBenchmarks } from "./lake.ts";
import { httpBenchmarks } from "./http.ts";
import { indexBenchmarks } from "./index.ts";
import { queryBenchmarks } from "./queries.ts";
import { zngBenchmarks } from "./zng.ts";
import { serviceBenchmarks } from "./service.ts";
import { concurrencyBenchmarks } from "./concurrency.ts";
import { shapesBenchmarks } from "./shapes.ts";
import { fuzzBenchmarks } from "./fuzz.ts";
import { soak } from "./soak.ts";
import { parquetCheck } from "./parquet_check.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    /** Parts to run (default all): service,shapes,concurrency,json,queries,zng,lake,index,http,fuzz,soak,parquet. */
    only: { type: "string" },
    /** For the service and concurrency parts: 1x, 10x or both. */
    scale: { type: "string", default: "both" },
  },
});
const runs = Number(values.runs);
const only = values.only?.split(",") ?? null;
const want = (part: string) => only === null || only.includes(part);
const tmp = await Deno.makeTempDir({ prefix: "loch-bench-" });
try {
  if (want("service")) {
    const scales = values.scale === "both" ? ["1x", "10x"] : [values.scale];
    await serviceBenchmarks(tmp, Math.max(runs, 5), scales);
  }
  if (want("shapes")) await shapesBenchmarks(tmp);
  if (want("concurrency")) {
    const scales = values.scale === "both" ? ["1x", "10x"] : [values.scale];
    await concurrencyBenchmarks(tmp, 10, scales);
  }
  if (want("json")) await jsonPassthrough(tmp, runs);
  if (want("queries")) await queryBenchmarks(tmp, runs);
  if (want("zng")) await zngBenchmarks(tmp, runs);
  if (want("lake")) await lakeBenchmarks(tmp, runs);
  if (want("index")) await indexBenchmarks(tmp, runs);
  if (want("http")) await httpBenchmarks(tmp, runs);
  if (want("fuzz")) await fuzzBenchmarks(10, Date.now() % 1e9);
  if (want("soak")) await soak(60, 8, 30);
  if (want("parquet")) await parquetCheck();
} finally {
  await Deno.remove(tmp, { recursive: true });
}
