// `loch load`: reads files (or stdin, as "-") and commits their values to a
// branch in one commit (as `zed load`), printing `<commit id> committed`.
// On a terminal, a progress line on stderr shows what has been read.

import { toBase62 } from "../../lake/ksuid.ts";
import { command, env, granted, head, lakeFlags, say, UsageError, withLake } from "./lakeflags.ts";
import type { LoadResult } from "./api.ts";
import { byteSource, InputCounters } from "./inputs.ts";
import { ProgressLine, progressText } from "./progress.ts";

/** The login name of this process's user from /etc/passwd, or "". */
function passwdUser(): string {
  if (!granted({ name: "sys", kind: "uid" }) || !granted({ name: "read", path: "/etc/passwd" })) {
    return "";
  }
  const uid = String(Deno.uid());
  try {
    for (const line of Deno.readTextFileSync("/etc/passwd").split("\n")) {
      const f = line.split(":");
      if (f[2] === uid) return f[0];
    }
  } catch {
    // no passwd file
  }
  return "";
}

/** The default commit author: $LOCH_USER, else user@host (as the reference's $ZED_USER rule). */
export function defaultAuthor(): string {
  const set = env("LOCH_USER");
  if (set) return set;
  const user = env("USER") || env("LOGNAME") || passwdUser();
  if (user === "") return "";
  const host = granted({ name: "sys", kind: "hostname" }) ? Deno.hostname() : "";
  return host === "" ? user : `${user}@${host}`;
}

/** The total size of the files among paths (stdin and missing files count 0). */
async function totalSize(paths: string[]): Promise<number> {
  let total = 0;
  for (const p of paths) {
    if (p === "-") continue;
    try {
      total += (await Deno.stat(p)).size;
    } catch {
      // reported when the file is read
    }
  }
  return total;
}

export const loadCommand = command({
  synopsis: "load [options] file|- ...",
  about: `Reads the files (or stdin, as "-") and commits their values to the branch
given by -use (or "loch use") in one commit, printing "<commit id> committed".
Each input's format is detected unless -i names one. On a terminal, a
progress line on stderr shows the records and bytes read and the rate.`,
  flags: lakeFlags([
    { name: "i", kind: "string", arg: "format", default: "auto", help: "input format" },
    {
      name: "user",
      kind: "string",
      arg: "name",
      help: "commit author (default $LOCH_USER, else user@host)",
    },
    { name: "message", kind: "string", arg: "text", default: "", help: "commit message" },
    {
      name: "meta",
      kind: "string",
      arg: "zson",
      default: "",
      help: "commit metadata (a ZSON value)",
    },
  ], { use: true, quiet: true }),
  async run(flags, args) {
    if (args.length === 0) {
      throw new UsageError("at least one input file must be specified (- for stdin)");
    }
    await withLake(flags, async (api) => {
      const h = await head(flags);
      const pool = await api.lookupPool(h.pool);
      const counters = new InputCounters();
      let progress: ProgressLine | undefined;
      let onProgress: (() => void) | undefined;
      if (!flags.q && Deno.stderr.isTerminal()) {
        const line = progress = ProgressLine.stderr();
        const totalBytes = await totalSize(args);
        const start = performance.now();
        onProgress = () =>
          line.update(progressText({
            records: counters.countsRecords ? counters.records : undefined,
            bytes: counters.bytes,
            totalBytes,
            completed: counters.completed,
            inputs: args.length,
            elapsedMs: performance.now() - start,
          }));
      }
      let result: LoadResult;
      try {
        result = await api.load(pool, h.branch, {
          inputs: args.map((p) => byteSource(p, counters)),
          format: flags.i as string,
          commit: {
            author: (flags.user as string | undefined) ?? defaultAuthor(),
            body: flags.message as string,
            meta: flags.meta as string,
          },
          counters,
          onProgress,
        });
      } finally {
        progress?.clear();
      }
      for (const w of result.warnings) console.error(`warning: ${w}`);
      say(flags, `${toBase62(result.commit)} committed`);
    });
  },
});
