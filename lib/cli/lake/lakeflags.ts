// What the lake commands share, in the manner of zed's lakeflags: which lake
// (-lake, else $LOCH_LAKE, else ./lake), which pool and branch (-use, else
// what `loch use` saved in the lake), quiet mode (-q), and the way a command
// parses its flags and reports bad usage (exit code 2, as Go's flag package).

import { LochError, messageOf } from "../../errors.ts";
import { CATALOG_FILE, Lake } from "../../lake/lake.ts";
import { type FlagSpec, flagUsage, type FlagValues, parseFlags } from "../flags.ts";

export const LAKE_ENV = "LOCH_LAKE";
/** Where `loch use` keeps the working pool and branch, inside the lake directory. */
export const USE_FILE = ".loch-use";

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
  arg: "dir",
  help: `lake directory (default $${LAKE_ENV}, else ./lake)`,
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

/** The lake directory the flags name. */
export function lakeDir(flags: FlagValues): string {
  const dir = (flags.lake as string | undefined) ?? env(LAKE_ENV) ?? "./lake";
  if (dir === "") {
    throw new LochError(
      "invalid",
      `lake location must be set (either with the -lake flag or ${LAKE_ENV} environment variable)`,
    );
  }
  return dir;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Opens the lake for fn and closes it after. Only `create` makes a lake that
 * does not exist; the others report `<dir>: no such lake`.
 */
export async function withLake<T>(
  flags: FlagValues,
  fn: (lake: Lake) => Promise<T>,
  create = false,
): Promise<T> {
  const dir = lakeDir(flags);
  if (!create && !(await isFile(`${dir}/${CATALOG_FILE}`))) {
    throw new LochError("not found", `${dir}: no such lake`);
  }
  const lake = await Lake.open(dir);
  try {
    return await fn(lake);
  } finally {
    lake.close();
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

function usePath(dir: string): string {
  return `${dir}/${USE_FILE}`;
}

/** What `loch use` saved for this lake ("" when nothing). */
export async function readUse(dir: string): Promise<string> {
  try {
    return (await Deno.readTextFile(usePath(dir))).trim();
  } catch {
    return "";
  }
}

export async function writeUse(dir: string, c: Commitish): Promise<void> {
  try {
    await Deno.writeTextFile(usePath(dir), `${c.pool}@${c.branch}\n`);
  } catch (e) {
    throw new LochError("internal", `"${USE_FILE}": failed to write HEAD: ${messageOf(e)}`);
  }
}

/** The pool and branch to work on (-use, else `loch use`), the branch defaulting to main. */
export async function head(flags: FlagValues): Promise<Commitish> {
  const text = (flags.use as string | undefined) ?? await readUse(lakeDir(flags));
  if (text === "") throw new LochError("invalid", NO_HEAD);
  const c = parseCommitish(text);
  if (c.pool === "") throw new LochError("invalid", "pool unspecified");
  if (c.branch === "") c.branch = "main";
  return c;
}

/** Like head(), but undefined when neither -use nor `loch use` says anything. */
export async function optionalHead(flags: FlagValues): Promise<Commitish | undefined> {
  if (flags.use === undefined && await readUse(lakeDir(flags)) === "") return undefined;
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
