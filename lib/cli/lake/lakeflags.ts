// What the lake commands share, in the manner of zed's lakeflags: which lake
// (-lake, else $LOCH_LAKE, else ./lake), which pool and branch (-use, else
// what `loch use` saved in the lake), quiet mode (-q), and the way a command
// parses its flags and reports bad usage (exit code 2, as Go's flag package).

import { isS3 } from "../../lake/s3/config.ts";
import { LochError, messageOf } from "../../errors.ts";
import { CATALOG_FILE, Lake } from "../../lake/lake.ts";
import { type FlagSpec, flagUsage, type FlagValues, parseFlags } from "../flags.ts";
import { isServiceURL } from "../../client/connection.ts";
import type { LakeAPI } from "./api.ts";
import { LocalLake } from "./local.ts";
import { RemoteLake } from "./remote.ts";
import { readUse as readUseAt, USE_FILE, writeUse as writeUseAt } from "./usestate.ts";

export const LAKE_ENV = "LOCH_LAKE";
export { USE_FILE };

export const NO_HEAD = 'HEAD not specified: indicate with -use or run the "use" command';

/** Whether a permission is granted already (never prompts). */
export function granted(desc: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(desc).state === "granted";
  } catch {
    return false;
  }
}

/** An environment variable, or undefined (also without permission to read it). */
export function env(name: string): string | undefined {
  return granted({ name: "env", variable: name }) ? Deno.env.get(name) : undefined;
}

export const lakeFlag: FlagSpec = {
  name: "lake",
  kind: "string",
  arg: "dir|url",
  help: `lake directory, or a lake service's http(s) URL (default $${LAKE_ENV}, else ./lake)`,
};

export const useFlag: FlagSpec = {
  name: "use",
  kind: "string",
  arg: "pool[@branch]",
  help: "pool and branch (or commit) to use (default: as set by loch use)",
};

export const quietFlag: FlagSpec = { name: "q", kind: "bool", help: "quiet mode" };

const helpFlags: FlagSpec[] = [
  { name: "h", kind: "bool", help: "show this help" },
  { name: "help", kind: "bool", help: "show this help" },
];

/** Bad usage of a command: reported with the synopsis, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface CommandSpec {
  /** e.g. "create [options] name" */
  synopsis: string;
  about: string;
  flags: FlagSpec[];
  run(flags: FlagValues, args: string[]): Promise<number | void>;
}

export function commandUsage(spec: CommandSpec): string {
  const visible = spec.flags.filter((f) => f.name !== "help");
  return `usage: loch ${spec.synopsis}\n\n${spec.about}\n\noptions:\n${flagUsage(visible)}`;
}

/** Makes the entry point of a command: flags, -h, usage errors. */
export function command(spec: CommandSpec): (args: string[]) => Promise<number> {
  const specs = [
    ...spec.flags,
    ...helpFlags.filter((h) => !spec.flags.some((f) => f.name === h.name)),
  ];
  const full = { ...spec, flags: specs };
  return async (args) => {
    let flags: FlagValues, rest: string[];
    try {
      [flags, rest] = parseFlags(specs, args);
    } catch (e) {
      return usageFailure(full, messageOf(e));
    }
    if (flags.h || flags.help) {
      console.log(commandUsage(full));
      return 0;
    }
    try {
      return (await spec.run(flags, rest)) ?? 0;
    } catch (e) {
      if (e instanceof UsageError) return usageFailure(full, e.message);
      throw e;
    }
  };
}

function usageFailure(spec: CommandSpec, message: string): number {
  console.error(`${message}\nusage: loch ${spec.synopsis} (-h for help)`);
  return 2;
}

/**
 * The lake the flags name: a directory, or a service URL (http:// or
 * https://, without a trailing slash).
 */
export function lakeLocation(flags: FlagValues): string {
  const loc = (flags.lake as string | undefined) ?? env(LAKE_ENV) ?? "./lake";
  if (loc === "") {
    throw new LochError(
      "invalid",
      `lake location must be set (either with the -lake flag or ${LAKE_ENV} environment variable)`,
    );
  }
  return isServiceURL(loc) ? loc.replace(/\/+$/, "") : loc;
}

/** The lake directory (or URL) the flags name. */
export const lakeDir = lakeLocation;

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Opens the lake for fn and closes it after: a service when the location is
 * a URL, else the directory. Only `create` makes a lake directory that does
 * not exist; the others report `<dir>: no such lake`.
 */
export async function withLake<T>(
  flags: FlagValues,
  fn: (api: LakeAPI) => Promise<T>,
  create = false,
): Promise<T> {
  const loc = lakeLocation(flags);
  let api: LakeAPI;
  if (isServiceURL(loc)) {
    api = new RemoteLake(loc);
  } else {
    // A lake in S3, or whose catalog is in PostgreSQL, has no lake.sqlite to look for.
    const shared = isS3(loc) || (env("LOCH_CATALOG") ?? "") !== "";
    if (!create && !shared && !(await isFile(`${loc}/${CATALOG_FILE}`))) {
      throw new LochError("not found", `${loc}: no such lake`);
    }
    api = new LocalLake(await Lake.open(loc), loc);
  }
  try {
    return await fn(api);
  } finally {
    await api.close();
  }
}

/** A pool and a branch (or commit id), as `-use` and `loch use` take them. */
export interface Commitish {
  pool: string;
  branch: string;
}

/** `pool`, `pool@branch` or `@branch` (split at the last `@`). */
export function parseCommitish(s: string): Commitish {
  if (s === "") throw new LochError("invalid", "empty pool and branch");
  if (s.includes("'")) {
    throw new LochError(
      "invalid",
      "pool and branch names may not contain single quote characters",
    );
  }
  const at = s.lastIndexOf("@");
  return at < 0 ? { pool: s, branch: "" } : { pool: s.slice(0, at), branch: s.slice(at + 1) };
}

/** What `loch use` saved for the flags' lake ("" when nothing). */
export function readUse(flags: FlagValues): Promise<string> {
  return readUseAt(lakeLocation(flags));
}

export async function writeUse(flags: FlagValues, c: Commitish): Promise<void> {
  await writeUseAt(lakeLocation(flags), `${c.pool}@${c.branch}`);
}

/** The pool and branch to work on (-use, else `loch use`), the branch defaulting to main. */
export async function head(flags: FlagValues): Promise<Commitish> {
  const text = (flags.use as string | undefined) ?? await readUse(flags);
  if (text === "") throw new LochError("invalid", NO_HEAD);
  const c = parseCommitish(text);
  if (c.pool === "") throw new LochError("invalid", "pool unspecified");
  if (c.branch === "") c.branch = "main";
  return c;
}

/** Like head(), but undefined when neither -use nor `loch use` says anything. */
export async function optionalHead(flags: FlagValues): Promise<Commitish | undefined> {
  if (flags.use === undefined && await readUse(flags) === "") return undefined;
  return await head(flags);
}

/** The flags every lake command has, around a command's own. */
export function lakeFlags(own: FlagSpec[], opts: { use?: boolean; quiet?: boolean } = {}) {
  const out = [...own];
  if (opts.use) out.push(useFlag);
  if (opts.quiet) out.push(quietFlag);
  out.push(lakeFlag);
  return out;
}

/** A message for stdout unless -q. */
export function say(flags: FlagValues, text: string): void {
  if (!flags.q) console.log(text);
}
