// `loch branch`: lists the branches of the -use pool, creates a branch at the
// tip of the -use branch (or at the -use commit), or deletes one with -d (as
// `zed branch`).

import { LochError } from "../../errors.ts";
import { toBase62, tryParseID } from "../../lake/ksuid.ts";
import { literal } from "./api.ts";
import { command, head, lakeFlags, say, UsageError, withLake } from "./lakeflags.ts";
import { chooseOutput, outputFlags, withStdoutWriter } from "./output.ts";

export const branchCommand = command({
  synopsis: "branch [options] [name]",
  about: `With no name, lists the branches of the pool given by -use (or "loch use"),
marking the current one (HEAD). With a name, creates that branch at the tip of
the current branch (or at the commit -use names); with -d, deletes it (its
commits stay in the pool).`,
  flags: lakeFlags([
    { name: "d", kind: "bool", help: "delete the branch instead of creating it" },
    ...outputFlags("lake"),
  ], { use: true, quiet: true }),
  async run(flags, args) {
    if (args.length > 1) throw new UsageError("too many arguments");
    const output = chooseOutput(flags, "lake");
    await withLake(flags, async (api) => {
      const h = await head(flags);
      const pool = await api.lookupPool(h.pool);
      if (args.length === 0) {
        const text = `from ${literal(toBase62(pool.id))}:branches`;
        await withStdoutWriter(output, h.branch, (w) => api.query(text, w));
        return;
      }
      const name = args[0];
      if (name === "") throw new LochError("invalid", "no branch name provided");
      if (flags.d) {
        await api.deleteBranch(pool, name);
        say(flags, `branch deleted: ${name}`);
        return;
      }
      const base = tryParseID(h.branch) ?? await api.branchTip(pool, h.branch);
      await api.createBranch(pool, name, base);
      say(flags, `${JSON.stringify(name)}: branch created`);
    });
  },
});
