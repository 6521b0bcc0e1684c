// `deno task bench`: runs every benchmark and prints timings and ratios
// against the comparison tools. Options: --runs N (default 5), --only
// part,... (json, queries, zng, lake, index, http, service), --scale 1x|10x|both
// (the service part). The service part comes first: loch serve against zed
// serve, zq and DuckDB on every query shape, cold and warm.

import { parseArgs } from "node:util";
import { jsonPassthrough } from "./json_passthrough.ts";
import { lakeBenchmarks } from "./lake.ts";
import { httpBenchmarks } from "./http.ts";
import { indexBenchmarks } from "./index.ts";
import { queryBenchmarks } from "./queries.ts";
import { zngBenchmarks } from "./zng.ts";
import { serviceBenchmarks } from "./service.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    /** Comma-separated parts to run (default all): json,queries,zng,lake,index,http,service. */
    only: { type: "string" },
    /** For the service part: 1x, 10x or both. */
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
  if (want("json")) await jsonPassthrough(tmp, runs);
  if (want("queries")) await queryBenchmarks(tmp, runs);
  if (want("zng")) await zngBenchmarks(tmp, runs);
  if (want("lake")) await lakeBenchmarks(tmp, runs);
  if (want("index")) await indexBenchmarks(tmp, runs);
  if (want("http")) await httpBenchmarks(tmp, runs);
} finally {
  await Deno.remove(tmp, { recursive: true });
}
