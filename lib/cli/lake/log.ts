// `loch log`: the commits of the -use branch (or commit), newest first, in
// the reference's layout (`commit <id> (HEAD -> main)`, Author, Date, the
// indented message), or their records in any output format (-f).

import { toBase62 } from "../../lake/ksuid.ts";
import { literal } from "./api.ts";
import { command, head, lakeFlags, UsageError, withLake } from "./lakeflags.ts";
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
    await withLake(flags, async (api) => {
      const h = await head(flags);
      const pool = await api.lookupPool(h.pool);
      const text = `from ${literal(toBase62(pool.id))}@${literal(h.branch)}:log`;
      await withStdoutWriter(output, h.branch, (w) => api.query(text, w));
    });
  },
});
