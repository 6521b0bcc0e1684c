// `loch ls [pool]`: the lake's pools, or a pool's branches with their tip
// commits (as `zed ls`), in the lake format or any output format (-f).

import { lakeMeta, poolMeta } from "../../lake/meta.ts";
import { lookupPool } from "../../lake/pools.ts";
import type { Value } from "../../zed/value.ts";
import type { ValueWriter } from "../../formats/io.ts";
import { command, lakeFlags, UsageError, withLake } from "./lakeflags.ts";
import { chooseOutput, outputFlags, withStdoutWriter } from "./output.ts";

/** Writes values and ends the writer. */
export async function writeAll(w: ValueWriter, values: Value[]): Promise<void> {
  try {
    if (values.length > 0) await w.write(values);
  } finally {
    await w.end();
  }
}

export const lsCommand = command({
  synopsis: "ls [options] [pool]",
  about: `Lists the pools of the lake as "name id key keys order order", or with a
pool name or id, the pool's branches as "pool@branch commit id". -f (or -z,
-Z, -j) writes the records of "from :pools" or "from pool:branches" instead.`,
  flags: lakeFlags(outputFlags("lake")),
  async run(flags, args) {
    if (args.length > 1) throw new UsageError("too many arguments");
    const output = chooseOutput(flags, "lake");
    await withLake(flags, (lake) => {
      const values = args.length === 0
        ? lakeMeta(lake, "pools")
        : poolMeta(lake, lookupPool(lake.catalog, args[0]), "branches");
      return withStdoutWriter(output, undefined, (w) => writeAll(w, values));
    });
  },
});
