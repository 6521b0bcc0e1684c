// `loch create`: a new pool (as `zed create`), with its sort keys and order,
// object size threshold and seek stride. Creates the lake on first use.

import { LochError } from "../../errors.ts";
import { toBase62 } from "../../lake/ksuid.ts";
import { DEFAULT_SEEK_STRIDE, DEFAULT_THRESHOLD, type Layout } from "../../lake/pools.ts";
import type { FlagValues } from "../flags.ts";
import { command, lakeFlags, say, UsageError, withLake } from "./lakeflags.ts";
import { formatBase2Bytes, parseBytes } from "./units.ts";

/** `key[,key...][:asc|:desc]` (order.ParseLayout); keys are dotted paths. */
export function parseLayout(s: string): Layout {
  if (s === "") return { order: "asc", keys: null };
  const parts = s.split(":");
  if (parts.length > 2) {
    throw new LochError("invalid", "only one order clause allowed in layout description");
  }
  let order: "asc" | "desc" = "asc";
  if (parts.length === 2) {
    const which = parts[1].toLowerCase();
    if (which !== "asc" && which !== "desc") {
      throw new LochError("invalid", `unknown order: ${parts[1]}`);
    }
    order = which;
  }
  return { order, keys: parts[0].split(",").map((k) => k.split(".")) };
}

/** A size flag's value, with Go's flag error text. */
export function sizeFlag(flags: FlagValues, name: string, def: number): number {
  const text = flags[name] as string | undefined;
  if (text === undefined) return def;
  let n: number;
  try {
    n = parseBytes(text);
  } catch (e) {
    throw new UsageError(
      `invalid value ${JSON.stringify(text)} for flag -${name}: ${(e as Error).message}`,
    );
  }
  if (n < 0) throw new UsageError(`invalid value ${JSON.stringify(text)} for flag -${name}`);
  return n;
}

export const createCommand = command({
  synopsis: "create [options] name",
  about: `Creates a pool named name in the lake (the lake itself on first use). The
pool's data is sorted by its keys: -orderby takes comma-separated key paths
with an optional :asc or :desc suffix (ascending when none is given). Data
objects are cut at about -S bytes; the seek index gets an entry every
-seekstride bytes. A branch "main" is created with the pool.`,
  flags: lakeFlags([
    {
      name: "orderby",
      kind: "string",
      arg: "key[,key...][:asc|:desc]",
      default: "ts:desc",
      help: "pool keys and order (cannot be changed)",
    },
    {
      name: "S",
      kind: "string",
      arg: "size",
      help: `target size of data objects, as 10MB or 4GiB (default ${
        formatBase2Bytes(DEFAULT_THRESHOLD)
      })`,
    },
    {
      name: "seekstride",
      kind: "string",
      arg: "size",
      help: `size of a seek index unit, as 32KB or 1MB (default ${
        formatBase2Bytes(DEFAULT_SEEK_STRIDE)
      })`,
    },
  ], { quiet: true }),
  async run(flags, args) {
    if (args.length !== 1) throw new UsageError("create requires one argument");
    const name = args[0];
    const threshold = sizeFlag(flags, "S", DEFAULT_THRESHOLD);
    const seekStride = sizeFlag(flags, "seekstride", DEFAULT_SEEK_STRIDE);
    const layout = parseLayout(flags.orderby as string);
    if (name === "") throw new LochError("invalid", "no pool name provided");
    await withLake(flags, async (api) => {
      const pool = await api.createPool({ name, layout, seekStride, threshold });
      say(flags, `pool created: ${name} ${toBase62(pool.id)}`);
    }, true);
  },
});
