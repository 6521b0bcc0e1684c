// `loch log`: the commits of the -use branch (or commit), newest first, in
// the reference's layout (`commit <id> (HEAD -> main)`, Author, Date, the
// indented message), or their records in any output format (-f).

import { commitMeta } from "../../lake/meta.ts";
import { lookupPool } from "../../lake/pools.ts";
import { resolveCommit } from "../../lake/sources.ts";
import { command, head, lakeFlags, UsageError, withLake } from "./lakeflags.ts";
import { writeAll } from "./ls.ts";
import { chooseOutput, outputFlags, withStdoutWriter } from "./output.ts";

export const logCommand = command({
  synopsis: "log [options]",
  about: `Shows the commit history of the branch (or from the commit) given by -use
(or "loch use"), newest first. -f (or -z, -Z, -j) writes the records of
"from pool@branch:log" instead.`,
  flags: lakeFlags(outputFlags("lake"), { use: true }),
  async run(flags, args) {
    if (args.length !== 0) throw new UsageError("no arguments allowed");
    const output = chooseOutput(flags, "lake");
    await withLake(flags, async (lake) => {
      const h = await head(flags);
      const pool = lookupPool(lake.catalog, h.pool);
      const values = commitMeta(lake, resolveCommit(lake, pool, h.branch), "log");
      await withStdoutWriter(output, h.branch, (w) => writeAll(w, values));
    });
  },
});
