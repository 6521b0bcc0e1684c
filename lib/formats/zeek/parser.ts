// The Zeek TSV log parser: header directives set the separator, the path and
// the columns (`#fields`, `#types`); each other line is one record. Dotted
// field names become nested records, whose fields are first gathered next to
// each other (in the reference's way); `#path` adds a leading `_path` field.

import { invalid } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { Field, type RecordType, TypeString } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import { unescapeZeekText, zeekStringField } from "./escape.ts";
import { type FieldParser, parseZeekType, type ZeekColumnType } from "./types.ts";

/** The error for records without a complete `#fields`/`#types` header. */
export const BAD_HEADER = "bad types/fields definition in zeek header";

interface Column {
  name: string;
  type: ZeekColumnType | undefined;
}

/** How a record body is built: a leaf parses one field, an inner record holds nodes. */
class Node {
  constructor(readonly parse: FieldParser | null, readonly children: Node[] | null) {}
}

const pathNode = new Node(zeekStringField, null);

interface Descriptor {
  readonly type: RecordType;
  /** One node per top-level field, a leading `_path` one included. */
  readonly nodes: Node[];
  /** Whether `_path` was added from `#path` (not a `#fields` column). */
  readonly addPath: boolean;
  /** For each leaf in record order, the index of its field in a line. */
  readonly sources: number[];
}

function badField(field: string): Error {
  return invalid(`encountered bad header field ${field} parsing zeek log`);
}

/** The part of a dotted name up to and including its last `.` (trailing dots ignored). */
function prefixOf(name: string): string {
  let end = name.length;
  while (end > 0 && name.charCodeAt(end - 1) === 46) end--;
  const i = name.lastIndexOf(".", end - 1);
  return i < 0 ? "" : name.slice(0, i + 1);
}

/**
 * Moves the columns of each nested record next to each other (each column
 * goes after the last earlier column sharing its longest known prefix);
 * returns them with the source index of each.
 */
function coalesce(cols: Column[]): [Column[], number[]] {
  const prefixes = new Set<string>([""]);
  const out: Column[] = [];
  const sources: number[] = [];
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i];
    out.push(c);
    sources.push(i);
    let prefix = prefixOf(c.name);
    while (!prefixes.has(prefix)) {
      prefixes.add(prefix);
      prefix = prefixOf(prefix);
    }
    if (prefix === "") continue;
    for (let j = i; j > 0; j--) {
      if (out[j - 1].name.startsWith(prefix)) {
        out.pop();
        out.splice(j, 0, c);
        sources.pop();
        sources.splice(j, 0, i);
        break;
      }
    }
  }
  return [out, sources];
}

/** Groups adjacent columns `p.x`, `p.y`, ... into a record field `p`. */
function unflatten(cols: Column[]): [Field[], Node[]] {
  const fields: Field[] = [];
  const nodes: Node[] = [];
  for (let i = 0; i < cols.length;) {
    const c = cols[i];
    const dot = c.name.indexOf(".");
    if (dot < 0) {
      const t = c.type!;
      fields.push(new Field(c.name, t.type));
      nodes.push(new Node(t.parse, null));
      i++;
      continue;
    }
    const prefix = c.name.slice(0, dot);
    const dotted = prefix + ".";
    const inner: Column[] = [];
    for (let j = i; j < cols.length && cols[j].name.startsWith(dotted); j++) {
      inner.push({ name: cols[j].name.slice(dotted.length), type: cols[j].type });
    }
    const [innerFields, innerNodes] = unflatten(inner);
    fields.push(new Field(prefix, zctx.lookupRecord(innerFields)));
    nodes.push(new Node(null, innerNodes));
    i += inner.length;
  }
  return [fields, nodes];
}

function split(s: string, sep: string): string[] {
  return sep === "" ? Array.from(s) : s.split(sep);
}

export class ZeekParser {
  /** Splits directive lines (a `#separator` line sets it); record lines always split on tabs. */
  private separator = " ";
  private path = "";
  private columns: Column[] = [];
  private needFields = false;
  private needTypes = false;
  private descriptor: Descriptor | null = null;
  /** Next leaf to fill while building a record. */
  private cursor = 0;

  /** Applies a header line (starting with `#`). */
  parseDirective(line: string): void {
    const tokens = split(line.slice(1), this.separator);
    const n = tokens.length;
    switch (tokens[0]) {
      case "separator":
        if (n !== 2) throw badField("separator");
        this.separator = unescapeZeekText(tokens[1]);
        break;
      case "set_separator":
        if (n !== 2) throw badField("set_separator");
        break;
      case "empty_field":
        if (n !== 2) throw badField("empty_field");
        if (tokens[1] !== "(empty)") {
          throw badField(`#empty_field (non-standard value '${tokens[1]}')`);
        }
        break;
      case "unset_field":
        if (n !== 2) throw badField("unset_field");
        if (tokens[1] !== "-") throw badField(`#unset_field (non-standard value '${tokens[1]}')`);
        break;
      case "path":
        if (n !== 2) throw badField("path");
        this.path = tokens[1] === "-" ? "" : tokens[1];
        break;
      case "open":
        if (n !== 2) throw badField("open");
        break;
      case "close":
        if (n > 2) throw badField("close");
        break;
      case "fields":
        if (n < 2) throw badField("fields");
        this.parseFields(tokens);
        break;
      case "types":
        if (n < 2) throw badField("types");
        this.parseTypes(tokens);
        break;
    }
  }

  private resize(n: number): boolean {
    if (this.columns.length === n) return false;
    this.columns = [];
    for (let i = 0; i < n; i++) this.columns.push({ name: "", type: undefined });
    return true;
  }

  private parseFields(tokens: string[]): void {
    if (this.resize(tokens.length - 1)) this.needTypes = true;
    for (let k = 1; k < tokens.length; k++) this.columns[k - 1].name = tokens[k];
    this.needFields = false;
    this.descriptor = null;
  }

  private parseTypes(tokens: string[]): void {
    if (this.resize(tokens.length - 1)) this.needFields = true;
    for (let k = 1; k < tokens.length; k++) this.columns[k - 1].type = parseZeekType(tokens[k]);
    this.needTypes = false;
    this.descriptor = null;
  }

  private makeDescriptor(): Descriptor {
    const cols = this.columns;
    if (cols.length === 0 || this.needFields || this.needTypes || cols.some((c) => !c.type)) {
      throw invalid(BAD_HEADER);
    }
    const [ordered, sources] = coalesce(cols);
    const hasPath = ordered.some((c) => c.name === "_path");
    const [fields, nodes] = unflatten(ordered);
    const addPath = this.path !== "" && !hasPath;
    if (addPath) {
      fields.unshift(new Field("_path", TypeString));
      nodes.unshift(pathNode);
    }
    return { type: zctx.lookupRecord(fields), nodes, addPath, sources };
  }

  /** The record of a non-header line. */
  parseValue(line: string): Value {
    const d = this.descriptor ??= this.makeDescriptor();
    const fields = line.split("\t");
    if (fields.length > d.sources.length) throw invalid("too many values");
    if (fields.length < d.sources.length) throw invalid("too few values");
    const nodes = d.nodes;
    const body: Body[] = new Array(nodes.length);
    let k = 0;
    // `#path` may change without new `#fields`; the record type stays the
    // reference's (so a `_path` added earlier then takes the first field).
    if (this.path !== "" && d.addPath) body[k++] = this.path;
    this.cursor = 0;
    for (; k < nodes.length; k++) body[k] = this.build(nodes[k], fields, d.sources);
    return new Value(d.type, body);
  }

  private build(node: Node, fields: string[], sources: number[]): Body {
    const children = node.children;
    if (children !== null) {
      const out: Body[] = new Array(children.length);
      for (let i = 0; i < children.length; i++) out[i] = this.build(children[i], fields, sources);
      return out;
    }
    if (this.cursor >= sources.length) throw invalid("too few values");
    const s = fields[sources[this.cursor++]];
    return s === "-" ? null : node.parse!(s);
  }
}
