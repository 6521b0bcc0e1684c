// Checks that the reference's `zq -i parquet` (../shared/tools/zed-v1.3.0)
// reads what loch writes as Parquet, with the values loch wrote: every Zed
// type Parquet can hold, written by `loch query -f parquet`, read back by zq
// and by loch, both printed as ZSON and compared. Skipped with a note where
// zq is absent. Exits 1 on a difference.
//
//   deno run -A bench/parquet_check.ts

import { join } from "./path.ts";
import { repoRoot } from "./util.ts";

const ZQ = join(repoRoot, "..", "shared", "tools", "zed-v1.3.0", "zq");

const ROWS = [
  "{i8:-8(int8),i16:-16(int16),i32:-32(int32),i64:-64,u8:8(uint8),u16:16(uint16),u32:32(uint32)," +
  'u64:18446744073709551615(uint64),f32:1.5(float32),f64:-2.25,b:true,s:"é€",by:0x01ff,' +
  "t:2024-03-24T17:00:00.123456789Z,d:1m30s,ip:10.0.0.1,net:10.0.0.0/8," +
  'r:{x:1,y:"z"},arr:[1,2],st:|["a","b"]|,m:|{"k":1}|}',
  "{i8:null(int8),i16:null(int16),i32:null(int32),i64:null(int64),u8:null(uint8),u16:null(uint16)," +
  "u32:null(uint32),u64:null(uint64),f32:null(float32),f64:null(float64),b:null(bool),s:null(string)," +
  "by:null(bytes),t:null(time),d:null(duration),ip:null(ip),net:null(net)," +
  "r:null({x:int64,y:string}),arr:null([int64]),st:null(|[string]|),m:null(|{string:int64}|)}",
].join("\n");

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
    await w.write(new TextEncoder().encode(ROWS));
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
