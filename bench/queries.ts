// Query benchmarks over the Zeek DNS log, whole process, against jq
// equivalents. The log's dotted field names ("id.resp_p") are nested first
// (as Zed users see them after `nest_dotted`), so both tools address
// `id.resp_p` as a nested field.

import { denoExe, have, medianTime, repoRoot, zeekLog } from "./util.ts";
import { join } from "./path.ts";

interface Scenario {
  name: string;
  loch: string;
  jq: string[];
}

const scenarios: Scenario[] = [
  {
    name: "count() by query",
    loch: "count() by query",
    jq: ["-n", "-c", "reduce inputs as $r ({}; .[$r.query|tostring] += 1)"],
  },
  {
    name: "where id.resp_p==53 | count()",
    loch: "where id.resp_p==53 | count()",
    jq: ["-n", "reduce (inputs | select(.id.resp_p==53)) as $r (0; . + 1)"],
  },
  {
    name: "sort -r ts | head 10",
    loch: "sort -r ts | head 10",
    jq: ["-s", "-c", "sort_by(.ts) | reverse | .[:10][]"],
  },
  {
    name: "keyword search (google)",
    loch: "google",
    jq: ["-c", 'select([.. | strings | ascii_downcase | contains("google")] | any)'],
  },
];

function nest(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const parts = k.split(".");
    let o = out;
    for (let i = 0; i < parts.length - 1; i++) {
      o = (o[parts[i]] ??= {}) as Record<string, unknown>;
    }
    o[parts[parts.length - 1]] = v;
  }
  return out;
}

/** dns.json with dotted names nested, written once into tmp. */
async function nestedDns(tmp: string): Promise<string> {
  const out = join(tmp, "dns-nested.json");
  try {
    await Deno.stat(out);
    return out;
  } catch {
    // make it
  }
  const src = await Deno.readTextFile(await zeekLog(tmp, "dns"));
  const lines = src.split("\n").filter((l) => l.length > 0);
  await Deno.writeTextFile(
    out,
    lines.map((l) => JSON.stringify(nest(JSON.parse(l)))).join("\n") + "\n",
  );
  return out;
}

export async function queryBenchmarks(tmp: string, runs: number): Promise<void> {
  const file = await nestedDns(tmp);
  const jq = await have("jq");
  for (const s of scenarios) {
    const loch = await medianTime(denoExe, [
      "run",
      "-A",
      join(repoRoot, "main.ts"),
      "query",
      "-z",
      s.loch,
      file,
    ], runs);
    let line = `${s.name}: loch ${loch.toFixed(3)} s`;
    if (jq) {
      const j = await medianTime("jq", [...s.jq, file], runs);
      line += `, jq ${j.toFixed(3)} s; loch is ${(j / loch).toFixed(2)}x faster than jq`;
    }
    console.log(line);
  }
}
