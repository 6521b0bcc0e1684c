// Where `loch use` keeps the pool and branch in use. For a lake directory,
// in the directory (<lake>/.loch-use). For a lake service, which has no
// place for it, per service URL in the user's configuration directory:
// use.json in $LOCH_CONFIG_DIR, else $XDG_CONFIG_HOME/loch, else
// ~/.config/loch, mapping each URL to its "pool@branch".

import { LochError, messageOf } from "../../errors.ts";
import { isServiceURL } from "../../client/connection.ts";

/** Where `loch use` keeps the working pool and branch, inside a lake directory. */
export const USE_FILE = ".loch-use";
/** The file of the pools in use on lake services, in the configuration directory. */
export const REMOTE_USE_FILE = "use.json";

function envVar(name: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      return undefined;
    }
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined;
  }
}

/** The directory remote `use` settings live in, or undefined when none can be found. */
export function configDir(): string | undefined {
  const own = envVar("LOCH_CONFIG_DIR");
  if (own !== undefined) return own;
  const xdg = envVar("XDG_CONFIG_HOME");
  if (xdg !== undefined) return `${xdg}/loch`;
  const home = envVar("HOME");
  return home === undefined ? undefined : `${home}/.config/loch`;
}

/** The file a lake's setting is kept in. */
export function useFile(location: string): string {
  if (!isServiceURL(location)) return `${location}/${USE_FILE}`;
  const dir = configDir();
  if (dir === undefined) {
    throw new LochError(
      "invalid",
      "no configuration directory for the pool in use: set $LOCH_CONFIG_DIR or $HOME",
    );
  }
  return `${dir}/${REMOTE_USE_FILE}`;
}

async function readRemoteTable(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return {};
  }
  try {
    const t = JSON.parse(text);
    return t !== null && typeof t === "object" && !Array.isArray(t) ? t : {};
  } catch {
    return {};
  }
}

/** What `loch use` saved for this lake ("" when nothing). */
export async function readUse(location: string): Promise<string> {
  if (!isServiceURL(location)) {
    try {
      return (await Deno.readTextFile(useFile(location))).trim();
    } catch {
      return "";
    }
  }
  if (configDir() === undefined) return "";
  const v = (await readRemoteTable(useFile(location)))[location];
  return typeof v === "string" ? v : "";
}

/** Saves "pool@branch" as this lake's setting. */
export async function writeUse(location: string, text: string): Promise<void> {
  const path = useFile(location);
  try {
    if (!isServiceURL(location)) {
      await Deno.writeTextFile(path, `${text}\n`);
      return;
    }
    const dir = path.slice(0, path.lastIndexOf("/"));
    await Deno.mkdir(dir, { recursive: true });
    const table = await readRemoteTable(path);
    table[location] = text;
    // Written whole and renamed into place, so a reader never sees half a file.
    const tmp = `${path}.tmp-${crypto.randomUUID()}`;
    await Deno.writeTextFile(tmp, JSON.stringify(table, null, 2) + "\n");
    await Deno.rename(tmp, path);
  } catch (e) {
    const name = isServiceURL(location) ? path : USE_FILE;
    throw new LochError("internal", `"${name}": failed to write HEAD: ${messageOf(e)}`);
  }
}
