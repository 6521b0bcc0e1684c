// `loch ls [pool]`: the lake's pools, or a pool's branches with their tip
// commits (as `zed ls`), in the lake format or any output format (-f).

import { toBase62 } from "../../lake/ksuid.ts";
import { literal } from "./api.ts";
import { command, lakeFlags, UsageError, withLake } from "./lakeflags.ts";
import { chooseOutput, outputFlags, withStdoutWriter } from "./output.ts";

export const lsCommand = command({
  synopsis: "ls [options] [pool]",
  about: `Lists the pools of the lake as "name id key keys order order", or with a
pool name or id, the pool's branches as "pool@branch commit id". -f (or -z,
-Z, -j) writes the records of "from :pools" or "from pool:branches" instead.`,
  flags: lakeFlags(outputFlags("lake")),
  async run(flags, args) {
    if (args.length > 1) throw new UsageError("too many arguments");
    const output = chooseOutput(flags, "lake");
    await withLake(flags, async (api) => {
      const text = args.length === 0
        ? "from :pools"
        : `from ${literal(toBase62((await api.lookupPool(args[0])).id))}:branches`;
      await withStdoutWriter(output, undefined, (w) => api.query(text, w));
    });
  },
});
