// The console's reader of ZJSON (docs/formats.md §3): one decoder per
// response, since type ids are defined once and referred to after. It turns
// each value into what the results table shows: ZSON-like text for the
// value and its Zed type's ZSON text for the hover.

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export class ZJSONDecoder {
  constructor() {
    /** Complex types by the id the writer gave them. */
    this.types = new Map();
  }

  /** The type a type object describes (registering definitions; resolving refs). */
  type(obj) {
    switch (obj.kind) {
      case "primitive":
        return { kind: "primitive", name: obj.name };
      case "ref": {
        const t = this.types.get(obj.id);
        if (t === undefined) throw new Error(`ZJSON unknown type reference: ${obj.id}`);
        return t;
      }
      case "record":
        return this.define(obj, {
          kind: "record",
          fields: (obj.fields ?? []).map((f) => ({ name: f.name, type: this.type(f.type) })),
        });
      case "array":
      case "set":
      case "error":
        return this.define(obj, { kind: obj.kind, type: this.type(obj.type) });
      case "map":
        return this.define(obj, {
          kind: "map",
          keyType: this.type(obj.key_type),
          valType: this.type(obj.val_type),
        });
      case "union":
        return this.define(obj, { kind: "union", types: obj.types.map((t) => this.type(t)) });
      case "enum":
        return this.define(obj, { kind: "enum", symbols: obj.symbols });
      case "named":
        return this.define(obj, { kind: "named", name: obj.name, type: this.type(obj.type) });
      default:
        throw new Error(`ZJSON unknown type kind: ${obj.kind}`);
    }
  }

  define(obj, t) {
    this.types.set(obj.id, t);
    return t;
  }

  /**
   * One ZJSON line's object as {type, value}. Type values inside the value
   * share this decoder's ids (a type first seen there is defined there), so
   * they are decoded here, in order, into {typeValue: type}.
   */
  decode(line) {
    const o = typeof line === "string" ? JSON.parse(line) : line;
    const type = this.type(o.type);
    return { type, value: this.typeValues(type, o.value) };
  }

  typeValues(t, v) {
    if (v === null) return v;
    switch (t.kind) {
      case "primitive":
        return t.name === "type" ? { typeValue: this.type(v) } : v;
      case "record":
        return t.fields.map((f, i) => this.typeValues(f.type, v[i]));
      case "array":
      case "set":
        return v.map((e) => this.typeValues(t.type, e));
      case "map":
        return v.map(([k, e]) => [this.typeValues(t.keyType, k), this.typeValues(t.valType, e)]);
      case "union":
        return [v[0], this.typeValues(t.types[Number(v[0])], v[1])];
      case "error":
      case "named":
        return this.typeValues(t.type, v);
    }
    return v;
  }
}

/** The ZSON text of a type: `int64`, `{a:ip,b:[string]}`, `conn=({…})` for named ones. */
export function typeText(t) {
  switch (t.kind) {
    case "primitive":
      return t.name;
    case "record":
      return `{${t.fields.map((f) => `${fieldName(f.name)}:${typeText(f.type)}`).join(",")}}`;
    case "array":
      return `[${typeText(t.type)}]`;
    case "set":
      return `|[${typeText(t.type)}]|`;
    case "map":
      return `|{${typeText(t.keyType)}:${typeText(t.valType)}}|`;
    case "union":
      return `(${t.types.map(typeText).join(",")})`;
    case "enum":
      return `enum(${t.symbols.map(fieldName).join(",")})`;
    case "error":
      return `error(${typeText(t.type)})`;
    case "named":
      return t.name;
  }
  return "?";
}

/** The ZSON-like text of a value of type t (strings quoted when nested inside others). */
export function valueText(t, v, nested = false) {
  if (v === null) return "null";
  switch (t.kind) {
    case "primitive":
      if (t.name === "type") return `<${typeText(v.typeValue)}>`;
      return t.name === "string" && nested ? JSON.stringify(v) : String(v);
    case "record":
      return `{${
        t.fields.map((f, i) => `${fieldName(f.name)}:${valueText(f.type, v[i], true)}`).join(",")
      }}`;
    case "array":
      return `[${v.map((e) => valueText(t.type, e, true)).join(",")}]`;
    case "set":
      return `|[${v.map((e) => valueText(t.type, e, true)).join(",")}]|`;
    case "map":
      return `|{${
        v.map(([k, e]) => `${valueText(t.keyType, k, true)}:${valueText(t.valType, e, true)}`)
          .join(",")
      }}|`;
    case "union":
      return valueText(t.types[Number(v[0])], v[1], nested);
    case "enum":
      return t.symbols[Number(v)] ?? String(v);
    case "error":
      return `error(${valueText(t.type, v, true)})`;
    case "named":
      return valueText(t.type, v, nested);
  }
  return String(v);
}

/**
 * The cells of a value for the results table: a record's fields flattened
 * into dotted columns (`id.orig_h`), anything else one column named `this`.
 * Each cell is {column, text, type} (type: the ZSON text for the hover).
 */
export function cells(t, v) {
  const out = [];
  const base = t.kind === "named" ? t.type : t;
  if (base.kind === "record" && v !== null) flatten(base, v, "", out);
  else out.push({ column: "this", text: valueText(t, v), type: typeText(t) });
  return out;
}

function flatten(rec, v, prefix, out) {
  rec.fields.forEach((f, i) => {
    const name = prefix + f.name;
    const ft = f.type.kind === "named" ? f.type.type : f.type;
    if (ft.kind === "record" && v[i] !== null && ft.fields.length > 0) {
      flatten(ft, v[i], name + ".", out);
    } else {
      out.push({ column: name, text: valueText(f.type, v[i]), type: typeText(f.type) });
    }
  });
}

function fieldName(name) {
  return IDENT.test(name) ? name : JSON.stringify(name);
}

/** A value of a record at a dotted path of field names (for picking a time column), or undefined. */
export function fieldValue(t, v, path) {
  let ty = t, val = v;
  for (const name of path) {
    while (ty.kind === "named") ty = ty.type;
    if (ty.kind !== "record" || val === null) return undefined;
    const i = ty.fields.findIndex((f) => f.name === name);
    if (i < 0) return undefined;
    ty = ty.fields[i].type;
    val = val[i];
  }
  return { type: ty, value: val };
}
