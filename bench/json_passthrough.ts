// JSON pass-through (`loch query -j pass`) and NDJSON → ZNG conversion
// (`loch query -f zng pass`) against `jq -c .` on the same Zeek log, whole
// process, median of several runs.

import { denoExe, have, medianTime, repoRoot, zeekLog } from "./util.ts";
import { join } from "./path.ts";

export async function jsonPassthrough(tmp: string, runs: number): Promise<void> {
  const file = await zeekLog(tmp, "dns");
  const size = (await Deno.stat(file)).size;
  const loch = await medianTime(denoExe, [
    "run",
    "-A",
    join(repoRoot, "main.ts"),
    "query",
    "-j",
    "pass",
    file,
  ], runs);
  const toZng = await medianTime(denoExe, [
    "run",
    "-A",
    join(repoRoot, "main.ts"),
    "query",
    "-f",
    "zng",
    "pass",
    file,
  ], runs);
  const mb = size / 1e6;
  console.log(
    `json pass-through (dns.json, ${mb.toFixed(1)} MB): loch ${loch.toFixed(3)} s ` +
      `(${(mb / loch).toFixed(1)} MB/s)`,
  );
  console.log(
    `ndjson → zng (dns.json): loch ${toZng.toFixed(3)} s (${(mb / toZng).toFixed(1)} MB/s)`,
  );
  if (!(await have("jq"))) {
    console.log("  jq not found: no ratio");
    return;
  }
  const jq = await medianTime("jq", ["-c", ".", file], runs);
  console.log(
    `  jq -c . ${jq.toFixed(3)} s; loch pass-through is ${(jq / loch).toFixed(2)}x faster`,
  );
  console.log(`  loch ndjson → zng is ${(jq / toZng).toFixed(2)}x faster than jq -c .`);
}
