// The long run of the fuzzing the suite runs briefly (tests/fuzz): every
// input format, then mutated queries, then mutated JSON loaded from its
// bytes and from its values (json-load: any difference is a fault), for
// --seconds each (default 20), from --seed (default the time), reporting
// mutations per second, how many decoded (ran, loaded) whole, any error that
// was not a LochError (a 500 in the service) and the slowest case. Exits 1
// if there were such errors.
//
//   deno run -A bench/fuzz.ts [--seconds N] [--seed N] [--format NAME]

import { parseArgs } from "node:util";
import { FUZZED, fuzzFormat } from "../tests/fuzz/formats.ts";
import { fuzzJsonLoads } from "../tests/fuzz/loads.ts";
import { fuzzQueries } from "../tests/fuzz/queries.ts";

export async function fuzzBenchmarks(
  seconds: number,
  seed: number,
  only?: string,
): Promise<number> {
  let faults = 0;
  console.log(`fuzz: ${seconds} s per format, seed ${seed}`);
  for (const format of [...Object.keys(FUZZED), "query", "json-load"]) {
    if (only !== undefined && format !== only) continue;
    const t0 = performance.now();
    let cases = 0, decoded = 0, slowest = 0, round = 0;
    while (performance.now() - t0 < seconds * 1000) {
      const r = format === "query"
        ? await fuzzQueries(seed + round++, 1000)
        : format === "json-load"
        ? await fuzzJsonLoads(seed + round++, 200)
        : await fuzzFormat(format, seed + round++, 1000);
      cases += r.cases;
      decoded += "decoded" in r ? r.decoded : r.ran;
      slowest = Math.max(slowest, r.slowestMs);
      faults += r.faults.length;
      for (const f of r.faults) console.log(`  ${format} seed ${seed + round - 1}: ${f}`);
    }
    const rate = cases / ((performance.now() - t0) / 1000);
    console.log(
      `  ${format.padEnd(17)} ${String(cases).padStart(8)} mutations, ${
        rate.toFixed(0).padStart(6)
      }/s, ${decoded} decoded whole, slowest ${slowest.toFixed(0)} ms`,
    );
  }
  console.log(`  errors other than format errors: ${faults}`);
  return faults;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      seconds: { type: "string", default: "20" },
      seed: { type: "string" },
      format: { type: "string" },
    },
  });
  const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 1e9;
  Deno.exit((await fuzzBenchmarks(Number(values.seconds), seed, values.format)) > 0 ? 1 : 0);
}
