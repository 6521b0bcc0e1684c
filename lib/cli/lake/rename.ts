// `loch rename old new`: renames a pool (as `zed rename`).

import { LochError } from "../../errors.ts";
import { toBase62 } from "../../lake/ksuid.ts";
import { command, lakeFlags, say, UsageError, withLake } from "./lakeflags.ts";

export const renameCommand = command({
  synopsis: "rename [options] old-name new-name",
  about: "Renames the pool old-name (a name or id) to new-name.",
  flags: lakeFlags([], { quiet: true }),
  async run(flags, args) {
    if (args.length !== 2) throw new UsageError("two pool names must be provided");
    const [oldName, newName] = args;
    await withLake(flags, async (api) => {
      const pool = await api.lookupPool(oldName);
      if (newName === "") throw new LochError("invalid", "no pool name provided");
      await api.renamePool(pool, newName);
      say(flags, `pool ${toBase62(pool.id)} renamed from ${oldName} to ${newName}`);
    });
  },
});
