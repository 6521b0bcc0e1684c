// Checks that the reference's `zq -i parquet` (../shared/tools/zed-v1.3.0)
// reads what loch writes as Parquet, with the values loch wrote: every Zed
// type Parquet can hold, written by `loch query -f parquet`, read back by zq
// and by loch, both printed as ZSON and compared. Skipped with a note where
// zq is absent. Exits 1 on a difference.
//
//   deno run -A bench/parquet_check.ts

import { join } from "./path.ts";
import { repoRoot } from "./util.ts";
import { ROWS } from "../tests/fixtures/parquet_types.ts";

const ZQ = join(repoRoot, "..", "shared", "tools", "zed-v1.3.0", "zq");

async function run(cmd: string, args: string[], stdin?: string): Promise<string> {
  const p = new Deno.Command(cmd, {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = p.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await p.output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** Runs the check; returns 1 on a difference (0 when equal or skipped). */
export async function parquetCheck(): Promise<number> {
  if (!(await Deno.stat(ZQ).then(() => true, () => false))) {
    console.log(`parquet check: skipped (${ZQ} absent)`);
    return 0;
  }
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "all.parquet");
    const main = join(repoRoot, "main.ts");
    const bytes = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", main, "query", "-f", "parquet", "-"],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const w = bytes.stdin.getWriter();
    await w.write(new TextEncoder().encode(ROWS.join("\n")));
    await w.close();
    await Deno.writeFile(file, (await bytes.output()).stdout);
    const byZq = await run(ZQ, ["-z", "-i", "parquet", file]);
    const byLoch = await run(Deno.execPath(), [
      "run",
      "-A",
      main,
      "query",
      "-z",
      "-i",
      "parquet",
      file,
    ]);
    console.log("zq reads:\n" + byZq);
    if (byZq !== byLoch) {
      console.log("loch reads:\n" + byLoch);
      console.log("parquet check: zq and loch read different values");
      return 1;
    }
    console.log("parquet check: zq reads what loch wrote, as loch reads it");
    return 0;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await parquetCheck());
