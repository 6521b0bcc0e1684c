// `loch delete id...` and `loch delete -where filter`: deletes data objects
// (or the objects commits added) from the branch given by -use (or "loch
// use"), or the values a filter matches, in one commit (as `zed delete`),
// printing `<commit> delete committed`.

import { LochError } from "../../errors.ts";
import { parseID, toBase62 } from "../../lake/ksuid.ts";
import { command, head, lakeFlags, say, withLake } from "./lakeflags.ts";
import { commitFlags, commitRequest, namedBranch } from "./revert.ts";

export const deleteCommand = command({
  synopsis: "delete [options] id... | delete [options] -where filter",
  about: `Deletes data from the branch given by -use (or "loch use") with one commit.
Each id is a data object on the branch, or a commit whose added objects are
all deleted. With -where, deletes the values for which the filter (a single
filter operation, e.g. 'ts < 2023-01-01T00:00:00Z and status == 500') is
true: each object holding such values is replaced by one without them, and
objects without any are left alone. Nothing is removed from the lake: time
travel still sees the data, and "loch revert" undoes a delete.`,
  flags: lakeFlags([
    { name: "where", kind: "string", arg: "filter", help: "delete the values it matches" },
    ...commitFlags,
  ], { use: true, quiet: true }),
  async run(flags, args) {
    const where = (flags.where as string | undefined) ?? "";
    if (where !== "" && args.length > 0) throw new LochError("invalid", "too many arguments");
    const ids = where === "" ? args.map(parseID) : [];
    if (where === "" && ids.length === 0) {
      throw new LochError("invalid", "no data object IDs specified");
    }
    await withLake(flags, async (api) => {
      const h = await head(flags);
      const pool = await api.lookupPool(h.pool);
      const branch = namedBranch(h.branch);
      const req = commitRequest(flags);
      const c = where !== ""
        ? await api.deleteWhere(pool, branch, where, req)
        : await api.deleteObjects(pool, branch, ids, req);
      say(flags, `${toBase62(c)} delete committed`);
    });
  },
});
