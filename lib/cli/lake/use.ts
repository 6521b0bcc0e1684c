// `loch use [pool][@branch]`: shows or sets the pool and branch the other
// commands work on when -use is not given (as `zed use`). The setting is kept
// per lake: in <lake>/.loch-use for a lake directory, and per URL in the
// user's configuration directory for a lake service (see usestate.ts).

import { LochError } from "../../errors.ts";
import {
  command,
  lakeFlags,
  parseCommitish,
  readUse,
  say,
  UsageError,
  USE_FILE,
  withLake,
  writeUse,
} from "./lakeflags.ts";
import { REMOTE_USE_FILE } from "./usestate.ts";

export const useCommand = command({
  synopsis: "use [options] [pool][@branch]",
  about: `With no argument, prints the pool and branch in use. With "pool" or
"pool@branch" (a branch name or a commit id; main when not given), checks that
they exist and uses them from now on; "@branch" changes only the branch. The
setting is kept in the lake directory, in ${USE_FILE}; for a lake service, per
URL in ${REMOTE_USE_FILE} in $LOCH_CONFIG_DIR (default $XDG_CONFIG_HOME/loch,
else ~/.config/loch).`,
  flags: lakeFlags([], { quiet: true }),
  async run(flags, args) {
    if (args.length > 1) throw new UsageError("too many arguments");
    const current = await readUse(flags);
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
    await withLake(flags, async (api) => {
      await api.checkCommitish(await api.lookupPool(c.pool), c.branch);
      await writeUse(flags, c);
    });
    say(flags, `Switched to branch ${JSON.stringify(c.branch)} on pool ${JSON.stringify(c.pool)}`);
  },
});
