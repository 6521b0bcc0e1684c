// loch: a Zed-compatible data lake. This is the command line; each command
// lives in lib/cli.

import { queryCommand } from "./lib/cli/query.ts";
import { branchCommand } from "./lib/cli/lake/branch.ts";
import { createCommand } from "./lib/cli/lake/create.ts";
import { dropCommand } from "./lib/cli/lake/drop.ts";
import { loadCommand } from "./lib/cli/lake/load.ts";
import { logCommand } from "./lib/cli/lake/log.ts";
import { lsCommand } from "./lib/cli/lake/ls.ts";
import { renameCommand } from "./lib/cli/lake/rename.ts";
import { useCommand } from "./lib/cli/lake/use.ts";
import { mergeCommand } from "./lib/cli/lake/merge.ts";
import { revertCommand } from "./lib/cli/lake/revert.ts";
import { txCommand } from "./lib/cli/lake/tx.ts";
import { deleteCommand } from "./lib/cli/lake/delete.ts";
import { compactCommand } from "./lib/cli/lake/compact.ts";
import { vacuumCommand } from "./lib/cli/lake/vacuum.ts";
import { indexCommand } from "./lib/cli/lake/index.ts";
import { serveCommand } from "./lib/cli/serve.ts";
import { tokenCommand } from "./lib/cli/token.ts";
import { messageOf } from "./lib/errors.ts";

const usage = `usage: loch [-lake dir] <command> [options] [args]

commands:
  query     run a Zed query over files or stdin (like zq), or over the lake
  create    create a pool
  ls        list the pools, or a pool's branches
  load      load files or stdin into a branch
  branch    list, create or delete branches
  log       show a branch's commits
  use       show or set the pool and branch to use
  rename    rename a pool
  drop      delete a pool and its data
  merge     merge the -use branch into another branch
  revert    undo a commit with a new commit
  tx        commit loads, deletes and branch moves on several pools, all or none
  delete    delete data objects, or the values a filter matches
  compact   rewrite small or overlapping objects as well-sized ones
  vacuum    remove what no branch of a pool can reach
  index     create, drop and list index rules; index data objects
  serve     serve the lake over HTTP (the Zed lake API)
  token     make an API token for a served lake (loch serve -auth.tokens)
  help      show this text

The lake commands work on the lake directory given by -lake (before or after
the command name), else $LOCH_LAKE, else ./lake. A -lake of http://host:port
(or https://) works on a lake service instead (loch serve, or zed serve).

Run "loch <command> -h" for a command's options.`;

const commands: Record<string, (args: string[]) => Promise<number>> = {
  query: queryCommand,
  create: createCommand,
  ls: lsCommand,
  load: loadCommand,
  branch: branchCommand,
  log: logCommand,
  use: useCommand,
  rename: renameCommand,
  drop: dropCommand,
  merge: mergeCommand,
  revert: revertCommand,
  tx: txCommand,
  delete: deleteCommand,
  compact: compactCommand,
  vacuum: vacuumCommand,
  index: indexCommand,
  serve: serveCommand,
  token: tokenCommand,
};

/** Moves `-lake dir` given before the command name after it, where the command parses it. */
function hoistLakeFlag(args: string[]): string[] {
  const lead: string[] = [];
  let i = 0;
  while (i < args.length) {
    const a = args[i];
    if (a === "-lake" || a === "--lake") {
      lead.push(a, args[i + 1] ?? "");
      i += 2;
    } else if (a.startsWith("-lake=") || a.startsWith("--lake=")) {
      lead.push(a);
      i++;
    } else {
      break;
    }
  }
  if (lead.length === 0 || i >= args.length) return args;
  return [args[i], ...lead, ...args.slice(i + 1)];
}

async function main(args: string[]): Promise<number> {
  const [name, ...rest] = hoistLakeFlag(args);
  if (name === undefined || name === "help" || name === "-h" || name === "--help") {
    console.log(usage);
    return name === undefined ? 2 : 0;
  }
  const cmd = commands[name];
  if (cmd === undefined) {
    console.error(`loch: unknown command: ${name}\n\n${usage}`);
    return 2;
  }
  return await cmd(rest);
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (e) {
    if (e instanceof Deno.errors.BrokenPipe) Deno.exit(0);
    console.error(messageOf(e));
    code = 1;
  }
  Deno.exit(code);
}
