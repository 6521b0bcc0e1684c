// `loch tx FILE`: commits the operations of a transaction file (JSON, as
// the body of POST /transaction; "-" reads stdin) all or none, on a lake
// directory or a service, printing a line per commit.

import { invalid, LochError } from "../../errors.ts";
import { toBase62 } from "../../lake/ksuid.ts";
import type { TxRequest } from "../../lake/transaction.ts";
import { command, lakeFlags, say, withLake } from "./lakeflags.ts";
import { commitFlags, commitRequest } from "./revert.ts";

async function readRequest(path: string): Promise<TxRequest> {
  const text = path === "-"
    ? await new Response(Deno.stdin.readable).text()
    : await Deno.readTextFile(path);
  let req: TxRequest;
  try {
    req = JSON.parse(text);
  } catch (e) {
    throw invalid(`${path}: not a JSON transaction: ${(e as Error).message}`);
  }
  if (req === null || typeof req !== "object" || !Array.isArray(req.operations)) {
    throw invalid(`${path}: a transaction is {"operations": [...]}`);
  }
  return req;
}

export const txCommand = command({
  synopsis: "tx [options] file",
  about: `Commits a transaction: the operations in file (JSON, "-" for stdin), loads,
deletes and branch moves on any pools and branches, all or none:
  {"operations": [
    {"op": "load", "pool": "a", "branch": "main", "data": "{x:1}"},
    {"op": "delete", "pool": "b", "where": "x > 10"},
    {"op": "move", "pool": "c", "branch": "main", "to": "<commit or branch>"}]}
One commit per branch; prints "<commit> committed to <pool>@<branch>" for each.`,
  flags: lakeFlags(commitFlags, { quiet: true }),
  async run(flags, args) {
    if (args.length !== 1) throw new LochError("invalid", "a transaction file must be specified");
    const req = await readRequest(args[0]);
    const c = commitRequest(flags);
    req.author ??= c.author;
    req.message ??= c.body;
    req.meta ??= c.meta;
    await withLake(flags, async (api) => {
      for (const done of await api.transaction(req)) {
        say(flags, `${toBase62(done.commit)} committed to ${done.pool}@${done.branch}`);
      }
    });
  },
});
