// `loch use [pool][@branch]`: shows or sets the pool and branch the other
// commands work on when -use is not given (as `zed use`). The setting is kept
// per lake, in <lake>/.loch-use.

import { LochError } from "../../errors.ts";
import { lookupPool } from "../../lake/pools.ts";
import { resolveCommit } from "../../lake/sources.ts";
import {
  command,
  lakeDir,
  lakeFlags,
  parseCommitish,
  readUse,
  say,
  UsageError,
  USE_FILE,
  withLake,
  writeUse,
} from "./lakeflags.ts";

export const useCommand = command({
  synopsis: "use [options] [pool][@branch]",
  about: `With no argument, prints the pool and branch in use. With "pool" or
"pool@branch" (a branch name or a commit id; main when not given), checks that
they exist and uses them from now on; "@branch" changes only the branch. The
setting is kept in the lake directory, in ${USE_FILE}.`,
  flags: lakeFlags([], { quiet: true }),
  async run(flags, args) {
    if (args.length > 1) throw new UsageError("too many arguments");
    const dir = lakeDir(flags);
    const current = await readUse(dir);
    if (args.length === 0) {
      if (current === "") throw new LochError("invalid", "default pool and branch unset");
      const c = parseCommitish(current);
      console.log(`HEAD at ${c.pool}@${c.branch || "main"}`);
      return;
    }
    const c = parseCommitish(args[0]);
    if (c.pool === "") {
      if (current === "") throw new LochError("invalid", "default pool unset");
      c.pool = parseCommitish(current).pool;
    }
    if (c.branch === "") c.branch = "main";
    await withLake(flags, async (lake) => {
      resolveCommit(lake, lookupPool(lake.catalog, c.pool), c.branch);
      await writeUse(dir, c);
    });
    say(flags, `Switched to branch ${JSON.stringify(c.branch)} on pool ${JSON.stringify(c.pool)}`);
  },
});
