// The `lake` output format: lake metadata (pools, branches, commits, data
// objects, partitions, index rules) as the short text the zed command shows,
// e.g. `logs 2Hb... key ts order desc`. Values it does not know are written
// as one-line ZSON. Records are recognized by their named type, with or
// without the package prefix (`pools.Config` or `Config`).

import { formatZson } from "../../formats/zson/formatter.ts";
import { type Sink, TextSink, type ValueWriter } from "../../formats/io.ts";
import { toBase62, tryParseID } from "../../lake/ksuid.ts";
import { Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import { type Batch, type Body, UnionBody, Value } from "../../zed/value.ts";
import { formatMessage } from "./paragraph.ts";
import { abbrevBytes } from "./units.ts";

const WIDTH = 80;

/** A record value's fields by name. */
class Fields {
  private constructor(private type: RecordType, private body: Body[]) {}

  static of(v: Value | undefined): Fields | undefined {
    if (v === undefined || !Array.isArray(v.body)) return undefined;
    const t = typeUnder(v.type);
    return t.kind === Kind.Record ? new Fields(t, v.body) : undefined;
  }

  value(name: string): Value | undefined {
    const i = this.type.indexOf(name);
    return i < 0 ? undefined : new Value(this.type.fields[i].type, this.body[i]);
  }

  record(name: string): Fields | undefined {
    return Fields.of(this.value(name));
  }

  string(name: string): string | undefined {
    const b = this.value(name)?.body;
    return typeof b === "string" ? b : undefined;
  }

  /** A KSUID (bytes) field as base62. */
  id(name: string): string | undefined {
    const b = this.value(name)?.body;
    return b instanceof Uint8Array && b.length === 20 ? toBase62(b) : undefined;
  }

  number(name: string): number | undefined {
    const b = this.value(name)?.body;
    return typeof b === "number" ? b : typeof b === "bigint" ? Number(b) : undefined;
  }
}

/** The name of a value's named type without its package (`pools.Config` → `Config`). */
function typeName(t: Type): string | undefined {
  if (t.kind !== Kind.Named) return undefined;
  const dot = t.name.lastIndexOf(".");
  return dot < 0 ? t.name : t.name.slice(dot + 1);
}

/** `a.b,c` for a field.List body (an array of string arrays); `this` for an empty path. */
function keysText(v: Value | undefined): string {
  if (v === undefined || !Array.isArray(v.body)) return "";
  return v.body.map((p) => Array.isArray(p) && p.length > 0 ? p.join(".") : "this").join(",");
}

/** RFC 3339 to the second, in UTC, as the reference prints commit dates. */
function formatDate(ns: number | bigint): string {
  const ms = Number(BigInt(ns) / 1000000n);
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ns);
  return d.toISOString().replace(/\.\d+Z$/, "Z");
}

export interface LakeWriterOptions {
  /** The branch name or commit id that is HEAD, marked in branch and commit listings. */
  head?: string;
}

export class LakeWriter implements ValueWriter {
  private out: TextSink;
  private headId: string | undefined;
  private headName: string | undefined;
  /** Branch names by the base62 id of their tip commit (from `lake.BranchTip` values). */
  private tips = new Map<string, string[]>();
  private ruleName: string | undefined;

  constructor(sink: Sink, opts: LakeWriterOptions = {}) {
    this.out = new TextSink(sink);
    if (opts.head !== undefined && opts.head !== "") {
      const id = tryParseID(opts.head);
      if (id !== undefined) this.headId = toBase62(id);
      else this.headName = opts.head;
    }
  }

  async write(batch: Batch): Promise<void> {
    for (const v of batch) this.out.push(this.format(v));
    if (this.out.pending >= 1 << 16) await this.out.flush();
  }

  async end(): Promise<void> {
    await this.out.flush();
  }

  private format(v: Value): string {
    const f = Fields.of(v);
    const name = typeName(v.type);
    const text = f === undefined || name === undefined ? undefined : this.formatRecord(name, f);
    return text ?? formatZson(v.type, v.body) + "\n";
  }

  private formatRecord(name: string, f: Fields): string | undefined {
    switch (name) {
      case "Config":
        return this.pool(f);
      case "BranchMeta":
        return this.branchMeta(f);
      case "BranchTip":
        return this.tip(f);
      case "Commit":
        return this.commit(f);
      case "Object":
        return objectText(f, "", 0);
      case "Partition":
        return partitionText(f);
      case "Add":
      case "Delete":
      case "AddIndex":
      case "DeleteIndex":
        // Actions of `:rawlog`; the reference collects them without printing.
        return "";
      case "FieldRule":
      case "TypeRule":
      case "AggRule":
        return this.rule(name, f);
    }
    return undefined;
  }

  private pool(f: Fields): string | undefined {
    const name = f.string("name"), id = f.id("id"), layout = f.record("layout");
    if (name === undefined || id === undefined || layout === undefined) return undefined;
    const order = layout.string("order") ?? "asc";
    return `${name} ${id} key ${keysText(layout.value("keys"))} order ${order}\n`;
  }

  private branchMeta(f: Fields): string | undefined {
    const pool = f.record("pool")?.string("name");
    const branch = f.record("branch");
    const name = branch?.string("name"), commit = branch?.id("commit");
    if (pool === undefined || name === undefined || commit === undefined) return undefined;
    const isHead = commit === this.headId || name === this.headName;
    return `${pool}@${name} commit ${commit}${isHead ? " (HEAD)" : ""}\n`;
  }

  private tip(f: Fields): string | undefined {
    const name = f.string("Name"), commit = f.id("Commit");
    if (name === undefined || commit === undefined) return undefined;
    const names = this.tips.get(commit);
    if (names === undefined) this.tips.set(commit, [name]);
    else names.push(name);
    return "";
  }

  private commit(f: Fields): string | undefined {
    const id = f.id("id"), author = f.string("author"), date = f.value("date")?.body;
    if (id === undefined || author === undefined) return undefined;
    let s = `commit ${id}`;
    const branches = this.tips.get(id);
    if (branches !== undefined) {
      s += " (" + branches.map((b) => b === this.headName ? `HEAD -> ${b}` : b).join(", ") + ")";
    } else if (id === this.headId) {
      s += " (HEAD)";
    }
    const when = typeof date === "number" || typeof date === "bigint" ? formatDate(date) : "";
    s += `\nAuthor: ${author}\nDate:   ${when}\n\n`;
    const message = f.string("message") ?? "";
    if (message !== "") s += formatMessage(message, "    ", WIDTH);
    return s;
  }

  private rule(kind: string, f: Fields): string | undefined {
    const name = f.string("name"), id = f.id("id");
    if (name === undefined || id === undefined) return undefined;
    let s = "";
    if (name !== this.ruleName) {
      this.ruleName = name;
      s += name + "\n";
    }
    let what: string;
    if (kind === "FieldRule") what = `field ${keysText(f.value("fields"))}`;
    else if (kind === "TypeRule") what = `type ${f.string("type") ?? ""}`;
    else what = `agg ${JSON.stringify(f.string("script") ?? "")}`;
    return s + `    rule ${id} ${what}\n`;
  }
}

function valueText(v: Value | undefined): string {
  return v === undefined ? "null" : formatZson(v.type, v.body);
}

/** A data object: `<id> <size> bytes <n> records` and its key range. */
function objectText(f: Fields, prefix: string, indent: number): string | undefined {
  const id = f.id("id"), meta = f.record("meta");
  const size = meta?.number("size"), count = meta?.number("count");
  if (id === undefined || meta === undefined || size === undefined || count === undefined) {
    return undefined;
  }
  const tab = " ".repeat(indent);
  return `${tab}${prefix === "" ? "" : prefix + " "}${id} ${
    abbrevBytes(size)
  } bytes ${count} records` +
    `\n  ${tab} from ${valueText(meta.value("first"))} to ${valueText(meta.value("last"))}\n`;
}

function partitionText(f: Fields): string | undefined {
  const objects = f.value("Objects");
  if (objects === undefined || !Array.isArray(objects.body)) return undefined;
  const t = typeUnder(objects.type);
  if (t.kind !== Kind.Array) return undefined;
  let s = `from ${valueText(f.value("First"))} to ${valueText(f.value("Last"))}\n`;
  for (const body of objects.body) {
    const elem = unwrapUnion(t.elem, body);
    const o = Fields.of(elem);
    const text = o === undefined ? undefined : objectText(o, "", 2);
    if (text === undefined) return undefined;
    s += text;
  }
  return s;
}

/** An element of a union-typed array as the member value. */
function unwrapUnion(t: Type, body: Body): Value {
  const u = typeUnder(t);
  if (u.kind === Kind.Union && body instanceof UnionBody) {
    return new Value(u.types[body.tag], body.body);
  }
  return new Value(t, body);
}
