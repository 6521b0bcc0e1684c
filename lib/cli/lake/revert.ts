// `loch revert commit`: undoes a commit's actions with a new commit on the
// branch given by -use (or "loch use"), as `zed revert`, printing
// `"<branch>": <commit> reverted in <new commit>`.

import { LochError } from "../../errors.ts";
import type { FlagSpec, FlagValues } from "../flags.ts";
import { parseID, toBase62, tryParseID } from "../../lake/ksuid.ts";
import type { CommitRequest } from "../../lake/load.ts";
import { command, head, lakeFlags, say, withLake } from "./lakeflags.ts";
import { defaultAuthor } from "./load.ts";

/** The commit flags of the commands that commit (zed's commitflags). */
export const commitFlags: FlagSpec[] = [
  {
    name: "user",
    kind: "string",
    arg: "name",
    help: "commit author (default $LOCH_USER, else user@host)",
  },
  { name: "message", kind: "string", arg: "text", help: "commit message" },
  { name: "meta", kind: "string", arg: "zson", help: "commit metadata (a ZSON value)" },
];

export function commitRequest(flags: FlagValues): CommitRequest {
  return {
    author: (flags.user as string | undefined) ?? defaultAuthor(),
    body: flags.message as string | undefined,
    meta: flags.meta as string | undefined,
  };
}

/** The -use branch, which must be a branch name (not a commit id) for a command that commits. */
export function namedBranch(branch: string): string {
  if (tryParseID(branch) !== undefined) throw new LochError("invalid", "branch must be named");
  return branch;
}

export const revertCommand = command({
  synopsis: "revert [options] commit",
  about: `Reverses the actions of a commit (any commit of the pool) with a new commit
on the tip of the branch given by -use (or "loch use"): what it added is
deleted, what it deleted is added back. The data stays in the lake, and the
revert can itself be reverted. Fails, changing nothing, when part of the
commit can no longer be undone (e.g. an object it added has since been
deleted or compacted).`,
  flags: lakeFlags(commitFlags, { use: true, quiet: true }),
  async run(flags, args) {
    if (args.length !== 1) throw new LochError("invalid", "commit ID must be specified");
    await withLake(flags, async (api) => {
      const h = await head(flags);
      const pool = await api.lookupPool(h.pool);
      const branch = namedBranch(h.branch);
      const id = parseID(args[0]);
      const c = await api.revert(pool, branch, id, commitRequest(flags));
      say(flags, `${JSON.stringify(branch)}: ${toBase62(id)} reverted in ${toBase62(c)}`);
    });
  },
});
