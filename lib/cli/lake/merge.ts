// `loch merge branch`: merges the branch given by -use (or "loch use") into
// the named branch with one commit there, as `zed merge`, printing
// `"<child>": merged into branch "<parent>"`.

import { LochError } from "../../errors.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import { command, head, lakeFlags, say, withLake } from "./lakeflags.ts";
import { commitFlags, commitRequest } from "./revert.ts";
import { mergeStrategy } from "../../lake/merge.ts";

export const mergeCommand = command({
  synopsis: "merge [options] branch",
  about: `Merges the branch given by -use (or "loch use") into the named branch: one
commit on the named branch brings the changes the -use branch made since the
two forked (objects it added, objects it deleted), keeping what the named
branch did meanwhile (what it deleted stays deleted). The -use branch does
not move; merge the other way to bring it up to date. Fails, changing
nothing, when there is nothing to merge, or when both branches changed the
same data (e.g. each deleted values of one object by a filter): 409, the
records in question are "from pool:conflicts(child, parent)", and
-strategy ours (keep the named branch's records) or theirs (take the -use
branch's) resolves them. Merging
main into another branch needs -f. -meta is accepted but not recorded (as
zed).`,
  flags: lakeFlags([
    { name: "f", kind: "bool", help: "force merge of main into a target" },
    {
      name: "strategy",
      kind: "string",
      arg: "ours|theirs",
      help: "resolve conflicts: keep the target's records (ours) or the -use branch's (theirs)",
    },
    ...commitFlags,
  ], { use: true, quiet: true }),
  async run(flags, args) {
    if (args.length === 0) throw new LochError("invalid", "merge target branch must be given");
    if (args.length > 1) throw new LochError("invalid", "too many arguments");
    const target = args[0];
    await withLake(flags, async (api) => {
      const h = await head(flags);
      if (target === "") {
        throw new LochError("invalid", "both a child and a parent branch name must be specified");
      }
      if (h.branch === "main" && !flags.f) {
        throw new LochError(
          "invalid",
          "merging the main branch into another branch is unusual; use -f to force",
        );
      }
      const pool = await api.lookupPool(h.pool);
      await api.merge(pool, h.branch, target, commitRequest(flags), mergeStrategy(flags.strategy));
      say(flags, `${quoteGoString(h.branch)}: merged into branch ${quoteGoString(target)}`);
    });
  },
});
