// The ZSON formatter, exact to the reference's output (formats.md §2.5–§2.10):
// which values get type decorators, when a named type is defined (`(=name)`,
// `(name=type)`) versus referenced, and the pretty layout.

import { formatPrimitive } from "../../zed/primitive.ts";
import { quoteName, quoteTypeName } from "../../zed/quote.ts";
import { ByteBuffer } from "../json/bytebuf.ts";
import { RecordPlan } from "./plan.ts";
import { decodeUtf8 } from "../../zed/utf8.ts";
import {
  type ArrayType,
  ID_IP,
  ID_NULL,
  ID_TYPE,
  isImplied,
  isSelfDescribing,
  Kind,
  type MapType,
  type NamedType,
  type RecordType,
  type SetType,
  type Type,
  TypeNull,
  typeUnder,
  type UnionType,
} from "../../zed/types.ts";
import { formatType, formatTypeValue } from "../../zed/typetext.ts";
import type { Body, UnionBody } from "../../zed/value.ts";
import { invalid } from "../../errors.ts";

/** Tracks the members of a union element type seen while printing a container. */
class ElemTypes {
  readonly union: UnionType | undefined;
  private seen: Set<Type> | undefined;
  constructor(readonly type: Type) {
    const u = typeUnder(type);
    this.union = u.kind === Kind.Union ? u : undefined;
  }

  /** The type to print an element with (a union element prints as its member). */
  add(body: Body): [Type, Body] {
    const u = this.union;
    if (u === undefined) return [this.type, body];
    if (body === null) return [TypeNull, null];
    const ub = body as UnionBody;
    const t = u.types[ub.tag];
    (this.seen ??= new Set()).add(t);
    return [t, ub.body];
  }

  /** A union element type is spelled out unless every member was seen (and it is unnamed). */
  needsDecoration(): boolean {
    return this.union !== undefined &&
      (this.type.kind === Kind.Named || (this.seen?.size ?? 0) < this.union.types.length);
  }
}

export class ZsonFormatter {
  /** Named types defined so far in the current top-level value. */
  private typedefs = new Map<string, NamedType>();
  /** Definitions kept across values for names matching `persist`. */
  private permanent: Map<string, NamedType> | undefined;
  private readonly nl: string;
  private readonly sp: string;
  private out = "";
  /** Per record type, its fields' quoted names and colons. */
  private names = new WeakMap<RecordType, string[]>();

  constructor(private readonly tab = 0, private readonly persist?: RegExp) {
    this.nl = tab > 0 ? "\n" : "";
    this.sp = tab > 0 ? " " : "";
    if (persist) this.permanent = new Map();
  }

  /** Appends one top-level value (without the trailing newline) to out as UTF-8. */
  formatInto(t: Type, body: Body, out: ByteBuffer): void {
    if (t.kind === Kind.Record && body !== null) {
      const plan = recordPlan(t, this.tab);
      if (plan !== null) {
        plan.writeInto(body as Body[], out);
        return;
      }
    }
    out.utf8(this.format(t, body));
  }

  /** Formats one top-level value (without the trailing newline). */
  format(t: Type, body: Body): string {
    if (t.kind === Kind.Record && body !== null) {
      const plan = recordPlan(t, this.tab);
      if (plan !== null) {
        scratch.pos = 0;
        plan.writeInto(body as Body[], scratch);
        return decodeUtf8(scratch.buf.subarray(0, scratch.pos));
      }
    }
    return this.general(t, body);
  }

  /** format(), always by walking the value here (no plan). */
  general(t: Type, body: Body): string {
    this.out = "";
    this.typedefs.clear();
    this.value(0, t, body, this.hasName(t), impliedType(t), false);
    this.decorate(t, false, body === null);
    return this.out;
  }

  /** A null of type t, as a field's value (for plans). */
  value0(t: Type): string {
    this.out = "";
    this.typedefs.clear();
    this.value(0, t, null, false, false, true);
    return this.out;
  }

  /** The decorator after a field's value of type t, null (or an empty container) or not (for plans). */
  decoration(t: Type, nullOrEmpty: boolean): string {
    this.out = "";
    this.typedefs.clear();
    this.decorate(t, false, nullOrEmpty);
    return this.out;
  }

  private hasName(t: Type): boolean {
    if (t.kind !== Kind.Named) return false;
    return this.typedefs.has(t.name) || (this.permanent?.has(t.name) ?? false);
  }

  private nameOf(t: Type): string {
    if (t.kind !== Kind.Named) return "";
    if (this.typedefs.get(t.name) === t || this.permanent?.get(t.name) === t) return t.name;
    return "";
  }

  private saveType(t: NamedType): void {
    this.typedefs.set(t.name, t);
    if (this.permanent && this.persist!.test(t.name)) this.permanent.set(t.name, t);
  }

  private indent(n: number): void {
    if (n > 0) this.out += " ".repeat(n);
  }

  private value(
    ind: number,
    t: Type,
    body: Body,
    parentKnown: boolean,
    parentImplied: boolean,
    dec: boolean,
  ): void {
    const known = parentKnown || this.hasName(t);
    if (body === null) {
      this.out += "null";
      if (parentImplied) parentKnown = false;
      if (dec) this.decorate(t, parentKnown, true);
      return;
    }
    let empty = false;
    switch (t.kind) {
      case Kind.Primitive:
        if (t.id === ID_TYPE) {
          this.out += "<" + formatTypeValue(body as Type, this.tab, ind) + ">";
        } else {
          this.out += formatPrimitive(t.id, body);
        }
        break;
      case Kind.Named:
        this.value(ind, t.type, body, known, parentImplied, false);
        break;
      case Kind.Record:
        this.record(ind, t, body as Body[], known, parentImplied);
        break;
      case Kind.Array:
        empty = this.vector(ind, "[", "]", t, body as Body[], known, parentImplied);
        break;
      case Kind.Set:
        empty = this.vector(ind, "|[", "]|", t, body as Body[], known, parentImplied);
        break;
      case Kind.Map:
        empty = this.map(ind, t, body as Body[], known, parentImplied);
        break;
      case Kind.Union: {
        // A union value always shows its member type, then the union type.
        const ub = body as UnionBody;
        this.value(ind, t.types[ub.tag], ub.body, false, true, true);
        break;
      }
      case Kind.Enum: {
        const i = body as number;
        if (i >= t.symbols.length) throw invalid("enum index out of range");
        this.out += "%" + t.symbols[i];
        break;
      }
      case Kind.Error:
        this.out += "error(";
        this.value(ind, t.inner, body, known, parentImplied, false);
        this.out += ")";
        break;
    }
    if (dec) this.decorate(t, parentKnown, empty);
  }

  private decorate(t: Type, known: boolean, isNull: boolean): void {
    if (known) return;
    if (!(isNull && !(t.kind === Kind.Primitive && t.id === ID_NULL)) && impliedType(t)) return;
    const name = this.nameOf(t);
    if (name !== "") {
      this.out += this.sp + "(" + quoteTypeName(name) + ")";
    } else if (isSelfDescribing(t) && !isNull) {
      if (t.kind === Kind.Named) {
        this.saveType(t);
        this.out += this.sp + "(=" + quoteTypeName(t.name) + ")";
      }
    } else {
      this.out += this.sp + "(" + this.typeString(t) + ")";
    }
  }

  /** Decorator type text: names defined on first use, not quoted (as the reference). */
  private typeString(t: Type): string {
    const name = this.nameOf(t);
    if (name !== "") return name;
    switch (t.kind) {
      case Kind.Named:
        this.saveType(t);
        return t.name + "=" + this.typeString(t.type);
      case Kind.Primitive:
        return t.name;
      case Kind.Record:
        return "{" +
          t.fields.map((f) => quoteName(f.name) + ":" + this.typeString(f.type)).join(",") + "}";
      case Kind.Array:
        return "[" + this.typeString(t.elem) + "]";
      case Kind.Set:
        return "|[" + this.typeString(t.elem) + "]|";
      case Kind.Map:
        return "|{" + this.typeString(t.key) + ":" + this.typeString(t.value) + "}|";
      case Kind.Union:
        return "(" + t.types.map((m) => this.typeString(m)).join(",") + ")";
      case Kind.Enum:
        return "enum(" + t.symbols.map(quoteName).join(",") + ")";
      case Kind.Error:
        // The inner type is written canonically, without touching the definitions.
        return "error(" + formatType(t.inner) + ")";
    }
  }

  private record(
    ind: number,
    t: RecordType,
    vals: Body[],
    known: boolean,
    parentImplied: boolean,
  ): void {
    const fields = t.fields;
    if (fields.length === 0) {
      this.out += "{}";
      return;
    }
    this.out += "{";
    const inner = ind + this.tab;
    let sep = this.nl;
    let names = this.names.get(t);
    if (names === undefined) {
      names = fields.map((f) => quoteName(f.name) + ":" + this.sp);
      this.names.set(t, names);
    }
    for (let i = 0; i < fields.length; i++) {
      this.out += sep;
      this.indent(inner);
      this.out += names[i];
      this.value(inner, fields[i].type, vals[i], known, parentImplied, true);
      sep = "," + this.nl;
    }
    this.out += this.nl;
    this.indent(ind);
    this.out += "}";
  }

  /** Returns true when the container was empty. */
  private vector(
    ind: number,
    open: string,
    close: string,
    t: ArrayType | SetType,
    elems: Body[],
    known: boolean,
    parentImplied: boolean,
  ): boolean {
    this.out += open;
    if (elems.length === 0) {
      this.out += close;
      return true;
    }
    const inner = ind + this.tab;
    let sep = this.nl;
    const types = new ElemTypes(t.elem);
    for (const e of elems) {
      this.out += sep;
      this.indent(inner);
      const [et, eb] = types.add(e);
      this.value(inner, et, eb, known, parentImplied, true);
      sep = "," + this.nl;
    }
    this.out += this.nl;
    this.indent(ind);
    this.out += close;
    if (types.needsDecoration()) this.decorate(t, false, true);
    return false;
  }

  private map(
    ind: number,
    t: MapType,
    kv: Body[],
    known: boolean,
    parentImplied: boolean,
  ): boolean {
    this.out += "|{";
    const inner = ind + this.tab;
    let sep = this.nl;
    const keys = new ElemTypes(t.key);
    const vals = new ElemTypes(t.value);
    for (let i = 0; i < kv.length; i += 2) {
      this.out += sep;
      this.indent(inner);
      const [kt, kb] = keys.add(kv[i]);
      this.value(inner, kt, kb, known, parentImplied, true);
      // An IPv6 key is set off from the colon that follows it.
      const ku = typeUnder(kt);
      if (
        ku.kind === Kind.Primitive && ku.id === ID_IP && (kb as Uint8Array | null)?.length === 16
      ) {
        this.out += " ";
      }
      this.out += ":" + this.sp;
      const [vt, vb] = vals.add(kv[i + 1]);
      this.value(inner, vt, vb, known, parentImplied, true);
      sep = "," + this.nl;
    }
    this.out += this.nl;
    this.indent(ind);
    this.out += "}|";
    if (keys.needsDecoration() || vals.needsDecoration()) this.decorate(t, false, true);
    return kv.length === 0;
  }
}

const plans = new Map<number, WeakMap<RecordType, RecordPlan | null>>();

/** The plan for records of type t at indentation tab (null: the general formatter writes them). */
function recordPlan(t: RecordType, tab: number): RecordPlan | null {
  let byType = plans.get(tab);
  if (byType === undefined) plans.set(tab, byType = new WeakMap());
  let p = byType.get(t);
  if (p === undefined) byType.set(t, p = RecordPlan.of(t, tab, new ZsonFormatter(tab)));
  return p;
}

/** Where format() writes a planned record before it becomes a string. */
const scratch = new ByteBuffer(1 << 10);

const compact = new ZsonFormatter(0);

/** One-line ZSON of a value, as the reference's zson.FormatValue (used in messages and casts). */
export function formatZson(t: Type, body: Body): string {
  return compact.format(t, body);
}

const implied = new WeakMap<Type, boolean>();

/** isImplied, remembered per type (types never change). */
function impliedType(t: Type): boolean {
  let b = implied.get(t);
  if (b === undefined) implied.set(t, b = isImplied(t));
  return b;
}
