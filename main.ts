// loch: a Zed-compatible data lake. This is the command line; each command
// lives in lib/cli.

import { queryCommand } from "./lib/cli/query.ts";
import { messageOf } from "./lib/errors.ts";

const usage = `usage: loch <command> [options] [args]

commands:
  query     run a Zed query over files or stdin (like zq)
  help      show this text

Run "loch <command> -h" for a command's options.`;

const commands: Record<string, (args: string[]) => Promise<number>> = {
  query: queryCommand,
};

async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
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
