// `loch token`: makes an API token for scripts and adds its hash to a tokens
// file (loch serve -auth.tokens FILE reads it at start). The token is printed
// once; only its hash is kept.

import { LochError } from "../errors.ts";
import { addToken } from "../service/auth/mod.ts";
import { command, UsageError } from "./lake/lakeflags.ts";

export const tokenCommand = command({
  synopsis: "token -file FILE -name NAME [-access read|write] [-pool POOL ...]",
  about: "Makes an API token for loch serve -auth.tokens FILE and prints it.",
  flags: [
    { name: "file", kind: "string", arg: "file", help: "the tokens file (made if missing)" },
    {
      name: "name",
      kind: "string",
      arg: "name",
      help: "what the token is for (unique in the file)",
    },
    {
      name: "access",
      kind: "string",
      arg: "read|write",
      default: "read",
      help: "read: queries and reads only; write: anything",
    },
    {
      name: "pool",
      kind: "string",
      arg: "pool",
      multi: true,
      help: "a pool (name or id) the token may use; repeatable; none given: every pool",
    },
  ],
  async run(flags) {
    const file = flags.file as string | undefined;
    const name = flags.name as string | undefined;
    if (!file || !name) throw new UsageError("token needs -file and -name");
    const access = flags.access as string;
    if (access !== "read" && access !== "write") {
      throw new UsageError(`-access: read or write, not ${access}`);
    }
    const pools = flags.pool as string[] | undefined;
    try {
      const token = await addToken(file, { name, access, ...(pools ? { pools } : {}) });
      console.log(token);
    } catch (e) {
      if (e instanceof LochError) throw new UsageError(e.message);
      throw e;
    }
    return 0;
  },
});
