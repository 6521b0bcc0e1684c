// `loch compact [id...]`: rewrites data objects of the branch given by -use
// (or "loch use") as well-sized objects that do not overlap, in one commit
// (as `zed compact`), printing `<commit> compaction committed`. Without ids
// it picks the small and overlapping objects itself.

import { NOTHING_TO_COMPACT } from "../../lake/compact.ts";
import { parseID, toBase62 } from "../../lake/ksuid.ts";
import { command, head, lakeFlags, say, withLake } from "./lakeflags.ts";
import { commitFlags, commitRequest, namedBranch } from "./revert.ts";

export const compactCommand = command({
  synopsis: "compact [options] [id id...]",
  about: `Writes the values of data objects of the branch given by -use (or "loch
use") to new objects of up to the pool's threshold that do not overlap, and
commits them in place of the old ones; the data and its order do not change.
With ids, compacts those objects (two or more). Without, compacts every run
of neighbouring objects (in pool-key order) that overlap or are smaller than
a quarter of the threshold; prints "nothing to compact" when there is none.
(On a lake service each run is compacted by a commit of its own.)`,
  flags: lakeFlags(commitFlags, { use: true, quiet: true }),
  async run(flags, args) {
    const ids = args.map(parseID);
    await withLake(flags, async (api) => {
      const h = await head(flags);
      const pool = await api.lookupPool(h.pool);
      const branch = namedBranch(h.branch);
      const commits = await api.compact(
        pool,
        branch,
        ids.length === 0 ? "auto" : ids,
        commitRequest(flags),
      );
      if (commits.length === 0) say(flags, NOTHING_TO_COMPACT.replace("compact: ", ""));
      for (const c of commits) say(flags, `${toBase62(c)} compaction committed`);
    });
  },
});
