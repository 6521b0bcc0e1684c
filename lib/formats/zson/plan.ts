// ZSON of records built only of unnamed primitives, records, arrays, sets and
// errors (most records in logs, nested ones too), from a plan made once per
// record type: each part's fixed text (a field's opening, separators and
// indentation, closing brackets, type decorators, nulls) is worked out by the
// general formatter (formatter.ts) when the plan is made, so the text is the
// same, and a value is then written by walking its body with the plan.
// Named types (defined on first use), unions, maps, enums and type values
// depend on more than the type and are left to the general formatter.

import { formatPrimitive } from "../../zed/primitive.ts";
import { quoteName, quoteString } from "../../zed/quote.ts";
import { ID_STRING, ID_TYPE, Kind, type RecordType, type Type } from "../../zed/types.ts";
import type { Body } from "../../zed/value.ts";
import type { ByteBuffer } from "../json/bytebuf.ts";

/** What a plan takes from the general formatter. */
export interface Decorations {
  /** The decorator written after a value of t (null or not, empty or not), as a field's value. */
  decoration(t: Type, nullOrEmpty: boolean): string;
  /** A null of type t, as a field's value. */
  value0(t: Type): string;
}

const PRIMITIVE = 0, ERROR = 1, RECORD = 2, LIST = 3;

/** How one part of a value is written (one shape for every kind). */
class Part {
  constructor(
    readonly kind: number,
    /** PRIMITIVE: its type id. */
    readonly id: number,
    /** Written after a non-null (non-empty) value: its decorator. */
    readonly after: string,
    /** A null of this type. */
    readonly nullText: string,
    /** RECORD: each field's opening; LIST: the opening, the separator. */
    readonly openings: readonly string[],
    /** RECORD: the fields' parts; LIST and ERROR: the element's or inner value's. */
    readonly parts: readonly Part[],
    /** RECORD and LIST: the closing. */
    readonly close: string,
    /** LIST: an empty one, decorated. */
    readonly empty: string,
  ) {}
}

/** Whether values of t (not null) can be written by a plan. */
function plannable(t: Type): boolean {
  switch (t.kind) {
    case Kind.Primitive:
      return t.id !== ID_TYPE;
    case Kind.Record:
      return t.fields.length > 0 && t.fields.every((f) => plannable(f.type));
    case Kind.Array:
    case Kind.Set:
      return plannable(t.elem);
    case Kind.Error:
      return plannable(t.inner);
  }
  return false;
}

/**
 * The plan for a value of t at indentation ind (tab wide per level);
 * decorated: whether its own decorator is written (not for an error's inner value).
 */
function build(t: Type, tab: number, ind: number, decorated: boolean, d: Decorations): Part {
  const nl = tab > 0 ? "\n" : "", sp = tab > 0 ? " " : "";
  const after = decorated ? d.decoration(t, false) : "";
  const nullText = d.value0(t);
  switch (t.kind) {
    case Kind.Record: {
      const pad = " ".repeat(ind + tab);
      const openings = t.fields.map((f, i) =>
        (i === 0 ? "{" : ",") + nl + pad + quoteName(f.name) + ":" + sp
      );
      const parts = t.fields.map((f) => build(f.type, tab, ind + tab, true, d));
      return new Part(RECORD, 0, after, nullText, openings, parts, nl + " ".repeat(ind) + "}", "");
    }
    case Kind.Array:
    case Kind.Set: {
      const [open, close] = t.kind === Kind.Array ? ["[", "]"] : ["|[", "]|"];
      const pad = " ".repeat(ind + tab);
      const empty = open + close + (decorated ? d.decoration(t, true) : "");
      return new Part(
        LIST,
        0,
        after,
        nullText,
        [open + nl + pad, "," + nl + pad],
        [build(t.elem, tab, ind + tab, true, d)],
        nl + " ".repeat(ind) + close,
        empty,
      );
    }
    case Kind.Error:
      return new Part(ERROR, 0, after, nullText, [], [build(t.inner, tab, ind, false, d)], "", "");
  }
  return new Part(PRIMITIVE, (t as { id: number }).id, after, nullText, [], [], "", "");
}

/** Appends a value (a body of the part's type) to out as UTF-8. */
function write(p: Part, b: Body, out: ByteBuffer): void {
  if (b === null) {
    out.utf8(p.nullText);
    return;
  }
  switch (p.kind) {
    case PRIMITIVE:
      if (p.id === ID_STRING) writeQuoted(out, b as string);
      else out.utf8(formatPrimitive(p.id, b));
      break;
    case RECORD: {
      const vals = b as Body[], openings = p.openings, parts = p.parts;
      for (let i = 0; i < parts.length; i++) {
        out.utf8(openings[i]);
        write(parts[i], vals[i], out);
      }
      out.utf8(p.close);
      break;
    }
    case LIST: {
      const elems = b as Body[];
      if (elems.length === 0) {
        out.utf8(p.empty);
        return;
      }
      const elem = p.parts[0];
      out.utf8(p.openings[0]);
      write(elem, elems[0], out);
      for (let i = 1; i < elems.length; i++) {
        out.utf8(p.openings[1]);
        write(elem, elems[i], out);
      }
      out.utf8(p.close);
      break;
    }
    case ERROR:
      out.ascii("error(");
      write(p.parts[0], b, out);
      out.ascii(")");
      break;
  }
  if (p.after !== "") out.utf8(p.after);
}

/** A record type's plan: writes its values as the general formatter would. */
export class RecordPlan {
  private constructor(private readonly root: Part) {}

  static of(t: RecordType, tab: number, d: Decorations): RecordPlan | null {
    return plannable(t) ? new RecordPlan(build(t, tab, 0, true, d)) : null;
  }

  /** Appends a top-level value's text (no newline) to out as UTF-8. */
  writeInto(body: Body[], out: ByteBuffer): void {
    write(this.root, body, out);
  }
}

/** quoteString(s) as UTF-8: straight from s when it needs no escapes. */
function writeQuoted(out: ByteBuffer, s: string): void {
  if (!out.plainQuoted(s, false)) out.utf8(quoteString(s));
}
