// `loch vacuum`: removes the data and index objects of the pool given by
// -use (or "loch use") that no branch's history reaches, and files left by
// crashed writes (as `zed vacuum`, but keeping everything any branch can
// time-travel to). -dryrun lists what would go. A lake service has no route
// for it: it runs on lake directories only.

import { LochError } from "../../errors.ts";
import { plural } from "../../lake/delete.ts";
import { requireLocal } from "./api.ts";
import { command, head, lakeFlags, say, withLake } from "./lakeflags.ts";

/** Asks on the terminal; throws unless the answer is y or yes. */
function confirm(name: string): void {
  if (!Deno.stdin.isTerminal()) {
    throw new LochError(
      "invalid",
      `refusing to vacuum ${JSON.stringify(name)}: stdin is not a terminal (use -f)`,
    );
  }
  const answer = prompt(
    `Are you sure you want to vacuum data objects from ${
      JSON.stringify(name)
    }? There is no going back... [y|n]`,
  );
  const a = (answer ?? "").trim().toLowerCase();
  if (a !== "y" && a !== "yes") throw new LochError("invalid", "operation canceled");
}

export const vacuumCommand = command({
  synopsis: "vacuum [options]",
  about: `Removes from the pool given by -use (or "loch use") what no commit in the
history of any of its branches can reach: the commits, data objects and
index objects that only deleted branches had, and files that crashed loads
left behind (once an hour old). Data deleted on a branch that still exists
stays, since time travel can read it. Prints "vacuumed N objects" (the data
objects removed); with -dryrun removes nothing and prints "would vacuum N
objects" and the files. Asks for confirmation unless -f or -dryrun is given.
Works on lake directories only (a lake service has no vacuum route).`,
  flags: lakeFlags([
    { name: "dryrun", kind: "bool", help: "list what would be removed, remove nothing" },
    { name: "f", kind: "bool", help: "do not prompt for confirmation" },
  ], { use: true, quiet: true }),
  async run(flags, args) {
    if (args.length > 0) throw new LochError("invalid", "too many arguments");
    await withLake(flags, async (api) => {
      requireLocal(api, "vacuum");
      const h = await head(flags);
      const pool = await api.lookupPool(h.pool);
      const dryRun = flags.dryrun === true;
      if (!dryRun && !flags.f) confirm(pool.name);
      const r = await api.vacuum(pool, dryRun);
      say(flags, `${dryRun ? "would vacuum" : "vacuumed"} ${r.objects} object${plural(r.objects)}`);
      if (dryRun && !flags.q) { for (const p of r.paths) console.log(`  ${p}`); }
    });
  },
});
