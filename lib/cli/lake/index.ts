// `loch index create|drop|ls|apply|update` (as `zed index`): index rules are
// lake-wide; apply and update build index objects for the data objects of
// the branch given by -use (or "loch use") and commit them there.

import { LochError } from "../../errors.ts";
import { parseZsonType } from "../../formats/zson/reader.ts";
import { parseID, toBase62 } from "../../lake/ksuid.ts";
import type { RuleSpec } from "../../lake/rules.ts";
import { formatType } from "../../zed/typetext.ts";
import { literal } from "./api.ts";
import { command, head, lakeFlags, say, UsageError, withLake } from "./lakeflags.ts";
import { chooseOutput, outputFlags, withStdoutWriter } from "./output.ts";

/** Rules from `field a.b`, `type ip` and `agg 'script'` arguments. */
export function parseRuleArgs(name: string, args: string[]): RuleSpec[] {
  const rules: RuleSpec[] = [];
  for (let i = 0; i < args.length; i += 2) {
    const kind = args[i], value = args[i + 1];
    switch (kind) {
      case "field": {
        if (value === undefined) {
          throw new UsageError("field index rule requires field(s) argument");
        }
        const fields = value.split(",").map((f) => f.split("."));
        if (fields.length !== 1) {
          throw new LochError("invalid", "a field index rule takes exactly one field");
        }
        rules.push({ name, kind: "field", fields });
        break;
      }
      case "type":
        if (value === undefined) throw new UsageError("type index rule requires type argument");
        rules.push({ name, kind: "type", type: formatType(parseZsonType(value)) });
        break;
      case "agg":
        if (value === undefined) throw new UsageError("agg index rule requires a script argument");
        rules.push({ name, kind: "agg", script: value });
        break;
      default:
        throw new LochError("invalid", `unknown index rule type: ${JSON.stringify(kind)}`);
    }
  }
  return rules;
}

const createCommand = command({
  synopsis: "index create [options] name (field path | type type | agg script)...",
  about: `Creates index rules named name (a rule group): "field a.b" indexes the values
of a field (and lets equality filters on it skip objects), "type ip" every
value of a type, "agg 'script'" the output of a Zed script over each object.
Prints the group's rules (-q: nothing).`,
  flags: lakeFlags(outputFlags("lake"), { quiet: true }),
  async run(flags, args) {
    if (args.length < 2) {
      throw new UsageError("a rule name and at least one index pattern must be specified");
    }
    const [name, ...rest] = args;
    const specs = parseRuleArgs(name, rest);
    const output = chooseOutput(flags, "lake");
    await withLake(flags, async (api) => {
      await api.addIndexRules(specs);
      if (flags.q) return;
      const text = `from :index_rules | name == ${literal(name)}`;
      await withStdoutWriter(output, undefined, (w) => api.query(text, w));
    });
  },
});

const dropCommand = command({
  synopsis: "index drop [options] id...",
  about: `Drops index rules by id. Index objects they made stay with their data objects
(and keep serving queries) until those are deleted.`,
  flags: lakeFlags([], { quiet: true }),
  async run(flags, args) {
    if (args.length === 0) throw new UsageError("must specify one or more index tags");
    const ids = args.map(parseID);
    await withLake(flags, async (api) => {
      for (const r of await api.dropIndexRules(ids)) {
        say(flags, `${toBase62(r.id)} dropped from rule ${JSON.stringify(r.name)}`);
      }
    });
  },
});

const lsCommand = command({
  synopsis: "index ls [options]",
  about: `Lists the index rules by name, or writes the records of "from :index_rules"
with -f (or -z, -Z, -j).`,
  flags: lakeFlags(outputFlags("lake")),
  async run(flags, args) {
    if (args.length !== 0) throw new UsageError("no arguments allowed");
    const output = chooseOutput(flags, "lake");
    await withLake(flags, (api) => {
      return withStdoutWriter(output, undefined, (w) => api.query("from :index_rules", w));
    });
  },
});

const applyCommand = command({
  synopsis: "index apply [options] -r rule [-r rule...] tag... | index apply [options] rule tag...",
  about: `Applies index rules (names or ids) to data objects of the branch given by -use
(or "loch use"): each tag is a data object id, or a commit id standing for the
objects that commit added. Commits the index objects, printing
"<commit> committed".`,
  flags: lakeFlags([
    {
      name: "r",
      kind: "string",
      arg: "rule",
      multi: true,
      help: "index rule to apply (repeatable)",
    },
  ], { use: true, quiet: true }),
  async run(flags, args) {
    let rules = (flags.r as string[] | undefined) ?? [];
    if (rules.some((r) => r === "")) throw new UsageError("rule cannot be an empty string");
    let tags = args;
    if (rules.length === 0 && args.length >= 2) [rules, tags] = [[args[0]], args.slice(1)];
    if (tags.length === 0) {
      throw new UsageError("index apply: one or more object IDs must be provided as arguments");
    }
    if (rules.length === 0) {
      throw new UsageError(
        "index apply: at least one index rule must be specified (use the -r flag)",
      );
    }
    tags.forEach(parseID);
    await withLake(flags, async (api) => {
      const h = await head(flags);
      const pool = await api.lookupPool(h.pool);
      const c = await api.applyIndexRules(pool, h.branch, rules, tags);
      say(flags, `${toBase62(c)} committed`);
    });
  },
});

const updateCommand = command({
  synopsis: "index update [options] [rule...]",
  about: `Indexes every data object of the branch given by -use (or "loch use") that
has no index object of the named rules (all rules when none are named), in
one commit, printing "<commit> committed".`,
  flags: lakeFlags([], { use: true, quiet: true }),
  async run(flags, args) {
    await withLake(flags, async (api) => {
      const h = await head(flags);
      const pool = await api.lookupPool(h.pool);
      const c = await api.updateIndex(pool, h.branch, args);
      say(flags, `${toBase62(c)} committed`);
    });
  },
});

const subcommands: Record<string, (args: string[]) => Promise<number>> = {
  create: createCommand,
  drop: dropCommand,
  ls: lsCommand,
  apply: applyCommand,
  update: updateCommand,
};

const usage = `usage: loch index <command> [options] [args]

Index rules say what to index in each data object; index objects, one per
rule and data object, are committed to branches like data and let queries
skip objects an equality filter cannot match.

commands:
  create    create index rules
  drop      drop index rules
  ls        list index rules
  apply     index chosen data objects of a branch
  update    index the data objects of a branch not yet indexed

Run "loch index <command> -h" for a command's options.`;

/** Moves `-lake dir` given before the subcommand name after it (as main.ts does for commands). */
function hoistLakeFlag(args: string[]): string[] {
  const lead: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === "-lake" || a === "--lake") lead.push(a, args[++i] ?? "");
    else if (a.startsWith("-lake=") || a.startsWith("--lake=")) lead.push(a);
    else break;
  }
  return i >= args.length ? args : [args[i], ...lead, ...args.slice(i + 1)];
}

export async function indexCommand(args: string[]): Promise<number> {
  const [name, ...rest] = hoistLakeFlag(args);
  if (name === undefined || name === "-h" || name === "-help" || name === "--help") {
    console.log(usage);
    return name === undefined ? 2 : 0;
  }
  const sub = subcommands[name];
  if (sub === undefined) {
    console.error(`loch index: unknown command: ${name}\n\n${usage}`);
    return 2;
  }
  return await sub(rest);
}
