// `loch drop pool`: deletes a pool and its data (as `zed drop`). Without -f
// it asks first on a terminal, and refuses when stdin is not one.

import { LochError } from "../../errors.ts";
import { command, lakeFlags, say, UsageError, withLake } from "./lakeflags.ts";

/** Asks on the terminal; throws unless the answer is y or yes. */
function confirm(name: string): void {
  if (!Deno.stdin.isTerminal()) {
    throw new LochError(
      "invalid",
      `refusing to delete pool ${JSON.stringify(name)}: stdin is not a terminal (use -f)`,
    );
  }
  const answer = prompt(
    `Are you sure you want to delete pool ${JSON.stringify(name)}? There is no going back... [y|n]`,
  );
  const a = (answer ?? "").trim().toLowerCase();
  if (a !== "y" && a !== "yes") throw new LochError("invalid", "operation canceled");
}

export const dropCommand = command({
  synopsis: "drop [options] pool",
  about: `Deletes the pool (a name or id) and all its data. Asks for confirmation
unless -f is given; without -f, stdin must be a terminal.`,
  flags: lakeFlags([{ name: "f", kind: "bool", help: "do not prompt for confirmation" }], {
    quiet: true,
  }),
  async run(flags, args) {
    if (args.length !== 1) throw new UsageError("a single pool name must be specified");
    const name = args[0];
    await withLake(flags, async (api) => {
      const pool = await api.lookupPool(name);
      if (!flags.f) confirm(name);
      await api.dropPool(pool);
      say(flags, `pool deleted: ${name}`);
    });
  },
});
