// `loch compact [id...]`: rewrites data objects of the branch given by -use
// (or "loch use") as well-sized objects that do not overlap, in one commit
// (as `zed compact`), printing `<commit> compaction committed`. Without ids
// it picks the small and overlapping objects itself.

import { compact, NOTHING_TO_COMPACT, planCompaction } from "../../lake/compact.ts";
import { parseID, toBase62 } from "../../lake/ksuid.ts";
import { tipObjects } from "../../lake/objects.ts";
import { PoolKey } from "../../lake/poolkey.ts";
import { getBranch } from "../../lake/branches.ts";
import { lookupPool } from "../../lake/pools.ts";
import { command, head, lakeFlags, say, withLake } from "./lakeflags.ts";
import { commitFlags, commitRequest, namedBranch } from "./revert.ts";

export const compactCommand = command({
  synopsis: "compact [options] [id id...]",
  about: `Writes the values of data objects of the branch given by -use (or "loch
use") to new objects of up to the pool's threshold that do not overlap, and
commits them in place of the old ones; the data and its order do not change.
With ids, compacts those objects (two or more). Without, compacts every run
of neighbouring objects (in pool-key order) that overlap or are smaller than
a quarter of the threshold; prints "nothing to compact" when there is none.`,
  flags: lakeFlags(commitFlags, { use: true, quiet: true }),
  async run(flags, args) {
    const ids = args.map(parseID);
    await withLake(flags, async (lake) => {
      const h = await head(flags);
      const pool = lookupPool(lake.catalog, h.pool);
      const branch = namedBranch(h.branch);
      if (ids.length === 0) {
        getBranch(lake.catalog, pool.id, branch);
        const tip = tipObjects(lake.catalog, pool.id, branch);
        if (planCompaction(tip, PoolKey.of(pool), pool.threshold).length === 0) {
          say(flags, NOTHING_TO_COMPACT.replace("compact: ", ""));
          return;
        }
      }
      const c = await compact(
        lake,
        pool,
        branch,
        ids.length === 0 ? "auto" : ids,
        commitRequest(flags),
      );
      say(flags, `${toBase62(c.id)} compaction committed`);
    });
  },
});
