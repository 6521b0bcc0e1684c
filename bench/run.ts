// `deno task bench`: runs every benchmark and prints timings and ratios
// against the comparison tools. Options: --runs N (default 5).

import { parseArgs } from "node:util";
import { jsonPassthrough } from "./json_passthrough.ts";
import { lakeBenchmarks } from "./lake.ts";
import { httpBenchmarks } from "./http.ts";
import { indexBenchmarks } from "./index.ts";
import { queryBenchmarks } from "./queries.ts";
import { zngBenchmarks } from "./zng.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const runs = Number(values.runs);
const tmp = await Deno.makeTempDir({ prefix: "loch-bench-" });
try {
  await jsonPassthrough(tmp, runs);
  await queryBenchmarks(tmp, runs);
  await zngBenchmarks(tmp, runs);
  await lakeBenchmarks(tmp, runs);
  await indexBenchmarks(tmp, runs);
  await httpBenchmarks(tmp, runs);
} finally {
  await Deno.remove(tmp, { recursive: true });
}
