// Text of types: the canonical form (Go's zson.FormatType, used in messages,
// typeof strings and the JSON/CSV writers) and the type-value form printed
// inside `<...>` (Go's formatTypeValue, which can be pretty-printed).

import { quoteName, quoteTypeName } from "./quote.ts";
import { Kind, type NamedType, type Type } from "./types.ts";

/**
 * Canonical type text. A named type is written `name=type` the first time it
 * appears in a depth-first walk and by name afterwards; names are quoted when
 * they are not bare type names.
 */
export function formatType(t: Type): string {
  if (t.kind === Kind.Primitive) return t.name;
  // Types are made once per shape (context.ts) and never change: their text is kept.
  let text = texts.get(t);
  if (text === undefined) texts.set(t, text = canonical(t, new Map()));
  return text;
}

const texts = new WeakMap<Type, string>();

function canonical(t: Type, defs: Map<string, NamedType>): string {
  switch (t.kind) {
    case Kind.Primitive:
      return t.name;
    case Kind.Named: {
      let s = quoteTypeName(t.name);
      if (defs.get(t.name) !== t) {
        s += "=" + canonical(t.type, defs);
        defs.set(t.name, t);
      }
      return s;
    }
    case Kind.Record:
      return "{" +
        t.fields.map((f) => quoteName(f.name) + ":" + canonical(f.type, defs)).join(",") +
        "}";
    case Kind.Array:
      return "[" + canonical(t.elem, defs) + "]";
    case Kind.Set:
      return "|[" + canonical(t.elem, defs) + "]|";
    case Kind.Map:
      return "|{" + canonical(t.key, defs) + ":" + canonical(t.value, defs) + "}|";
    case Kind.Union:
      return "(" + t.types.map((m) => canonical(m, defs)).join(",") + ")";
    case Kind.Enum:
      return "enum(" + t.symbols.map(quoteName).join(",") + ")";
    case Kind.Error:
      return "error(" + canonical(t.inner, defs) + ")";
  }
}

function spaces(n: number): string {
  return n > 0 ? " ".repeat(n) : "";
}

function isComplex(t: Type): boolean {
  return t.kind !== Kind.Primitive;
}

/**
 * The text of a type value without its angle brackets. `tab` is the pretty
 * indent (0 for one line), `indent` the current indentation. Names are not
 * quoted here, as in the reference.
 */
export function formatTypeValue(t: Type, tab = 0, indent = 0): string {
  return new TypeValueText(tab).format(t, indent);
}

class TypeValueText {
  // Name to underlying type, mirroring the type-value encoding's def/ref rule.
  private names = new Map<string, Type>();
  private nl: string;
  constructor(private tab: number) {
    this.nl = tab > 0 ? "\n" : "";
  }

  format(t: Type, indent: number): string {
    const { tab, nl } = this;
    switch (t.kind) {
      case Kind.Primitive:
        return t.name;
      case Kind.Named: {
        if (this.names.get(t.name) === t.type) return t.name;
        const s = t.name + "=" + this.format(t.type, indent);
        this.names.set(t.name, t.type);
        return s;
      }
      case Kind.Record: {
        if (t.fields.length === 0) return "{}";
        let s = "{";
        let sep = nl;
        const inner = indent + tab;
        for (const f of t.fields) {
          s += sep + spaces(inner) + quoteName(f.name) + ":" + (tab > 0 ? " " : "") +
            this.format(f.type, inner);
          sep = "," + nl;
        }
        return s + nl + spaces(inner - tab) + "}";
      }
      case Kind.Array:
        return this.vector("[", "]", t.elem, indent);
      case Kind.Set:
        return this.vector("|[", "]|", t.elem, indent);
      case Kind.Map: {
        // Quirk kept from the reference: with primitive key and value the map
        // stays on one line but the indentation is still written after `|{`.
        let inner = indent + tab;
        let newline = nl;
        if (!isComplex(t.key) && !isComplex(t.value)) {
          inner -= tab;
          newline = "";
        }
        let s = "|{" + newline + spaces(inner) + this.format(t.key, inner) + ":" +
          (tab > 0 ? " " : "") + this.format(t.value, inner) + newline;
        s += newline !== "" ? spaces(inner - tab) + "}|" : "}|";
        return s;
      }
      case Kind.Union: {
        let s = "(";
        let sep = nl;
        const inner = indent + tab;
        for (const m of t.types) {
          s += sep + spaces(inner) + this.format(m, inner);
          sep = "," + nl;
        }
        return s + nl + spaces(inner - tab) + ")";
      }
      case Kind.Enum:
        return "enum(" + t.symbols.map(quoteName).join(",") + ")";
      case Kind.Error:
        return "error(" + this.format(t.inner, indent) + ")";
    }
  }

  private vector(open: string, close: string, elem: Type, indent: number): string {
    if (!isComplex(elem)) return open + this.format(elem, indent) + close;
    const inner = indent + this.tab;
    return open + this.nl + spaces(inner) + this.format(elem, inner) + this.nl +
      spaces(inner - this.tab) + close;
  }
}
