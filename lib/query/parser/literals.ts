// Literals of the query grammar (language.md §1): numbers, times,
// durations, IP addresses and nets, bytes, type values and type syntax, and
// template strings, built on its tokens (tokens.ts).

import type { Expr, Primitive, TypeNode, TypeValue } from "../ast.ts";
import { ParseFailure } from "./peg.ts";
import { isDigit, isHexDigit, primitive, Tokens } from "./tokens.ts";

const primitiveNames = [
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "int8",
  "int16",
  "int32",
  "int64",
  "float32",
  "float64",
  "bool",
  "string",
  "duration",
  "time",
  "bytes",
  "ip",
  "net",
  "type",
  "null",
];

export abstract class Literals extends Tokens {
  /** Expressions are defined by a subclass; template strings and types need them. */
  protected abstract Expr(): Expr | undefined;

  // Literals.

  protected Literal(): Expr | undefined {
    return this.choice<Expr>(
      () => this.TypeLiteral(),
      () => this.TemplateLiteral(),
      () => this.SubnetLiteral(),
      () => this.AddressLiteral(),
      () => this.BytesLiteral(),
      () => this.Duration(),
      () => this.Time(),
      () => this.FloatLiteral(),
      () => this.IntegerLiteral(),
      () => this.BooleanLiteral(),
      () => this.NullLiteral(),
    );
  }

  protected SubnetLiteral(): Primitive | undefined {
    return this.choice<Primitive>(
      () => {
        const v = this.IP6Net();
        if (v === undefined || !this.not(() => this.IdentifierRest())) return undefined;
        return primitive("net", v);
      },
      () => {
        const v = this.IP4Net();
        return v === undefined ? undefined : primitive("net", v);
      },
    );
  }

  protected AddressLiteral(): Primitive | undefined {
    return this.choice<Primitive>(
      () => {
        const v = this.IP6();
        if (v === undefined || !this.not(() => this.IdentifierRest())) return undefined;
        return primitive("ip", v);
      },
      () => {
        const v = this.IP();
        return v === undefined ? undefined : primitive("ip", v);
      },
    );
  }

  protected FloatLiteral(): Primitive | undefined {
    const v = this.FloatString();
    return v === undefined ? undefined : primitive("float64", v);
  }

  protected IntegerLiteral(): Primitive | undefined {
    const v = this.IntString();
    return v === undefined ? undefined : primitive("int64", v);
  }
  protected BytesLiteral(): Primitive | undefined {
    const start = this.pos;
    if (!this.lit("0x")) return undefined;
    this.star(() => this.t(this.cls(isHexDigit)));
    return primitive("bytes", this.text(start));
  }

  protected TypeLiteral(): TypeValue | undefined {
    if (!this.lit("<")) return undefined;
    const typ = this.Type();
    if (typ === undefined || !this.lit(">")) return undefined;
    return { kind: "TypeValue", value: typ };
  }

  protected CastType(): TypeValue | undefined {
    return this.choice<TypeValue>(
      () => this.TypeLiteral(),
      () => {
        const typ = this.PrimitiveType();
        return typ === undefined ? undefined : { kind: "TypeValue", value: typ };
      },
    );
  }

  protected Type(): TypeNode | undefined {
    return this.choice<TypeNode>(
      () => this.TypeLiteral(),
      () => this.AmbiguousType(),
      () => this.ComplexType(),
    );
  }

  protected AmbiguousType(): TypeNode | undefined {
    return this.choice<TypeNode>(
      () => {
        const name = this.PrimitiveType();
        return name !== undefined && this.not(() => this.IdentifierRest()) ? name : undefined;
      },
      () => {
        const name = this.IdentifierName();
        if (name === undefined) return undefined;
        const def = this.opt(() => {
          this.__();
          if (!this.lit("=")) return undefined;
          this.__();
          return this.Type();
        });
        return def === null ? { kind: "TypeName", name } : { kind: "TypeDef", name, type: def };
      },
      () => {
        const name = this.QuotedString();
        return name === undefined ? undefined : { kind: "TypeName", name };
      },
      () => {
        if (!this.lit("(")) return undefined;
        this.__();
        const types = this.TypeList();
        if (types === undefined || !this.lit(")")) return undefined;
        return { kind: "TypeUnion", types };
      },
    );
  }

  protected TypeList(): TypeNode[] | undefined {
    const first = this.Type();
    if (first === undefined) return undefined;
    const rest = this.plus(() => {
      this.__();
      if (!this.lit(",")) return undefined;
      this.__();
      return this.Type();
    });
    return rest === undefined ? undefined : [first, ...rest];
  }

  protected ComplexType(): TypeNode | undefined {
    return this.choice<TypeNode>(
      () => {
        if (!this.lit("{")) return undefined;
        this.__();
        const fields = this.TypeFieldList();
        this.__();
        return this.lit("}") ? { kind: "TypeRecord", fields } : undefined;
      },
      () => {
        if (!this.lit("[")) return undefined;
        this.__();
        const type = this.Type();
        if (type === undefined) return undefined;
        this.__();
        return this.lit("]") ? { kind: "TypeArray", type } : undefined;
      },
      () => {
        if (!this.lit("|[")) return undefined;
        this.__();
        const type = this.Type();
        if (type === undefined) return undefined;
        this.__();
        return this.lit("]|") ? { kind: "TypeSet", type } : undefined;
      },
      () => {
        if (!this.lit("|{")) return undefined;
        this.__();
        const key_type = this.Type();
        if (key_type === undefined) return undefined;
        this.__();
        if (!this.lit(":")) return undefined;
        this.__();
        const val_type = this.Type();
        if (val_type === undefined) return undefined;
        this.__();
        return this.lit("}|") ? { kind: "TypeMap", key_type, val_type } : undefined;
      },
    );
  }

  protected TypeFieldList(): { name: string; type: TypeNode }[] | null {
    const list = this.attempt(() => {
      const first = this.TypeField();
      if (first === undefined) return undefined;
      const rest = this.star(() => {
        this.__();
        if (!this.lit(",")) return undefined;
        this.__();
        return this.TypeField();
      });
      return [first, ...rest];
    });
    return list ?? null;
  }

  protected TypeField(): { name: string; type: TypeNode } | undefined {
    const name = this.FieldName();
    if (name === undefined) return undefined;
    this.__();
    if (!this.lit(":")) return undefined;
    this.__();
    const type = this.Type();
    return type === undefined ? undefined : { name, type };
  }

  protected FieldName(): string | undefined {
    return this.choice<string>(() => this.IdentifierName(), () => this.QuotedString());
  }

  protected PrimitiveType(): TypeNode | undefined {
    for (const name of primitiveNames) {
      const save = this.pos;
      if (this.lit(name)) return { kind: "TypePrimitive", name };
      this.pos = save;
    }
    return undefined;
  }

  // Template strings: "a ${x} b" becomes "a " + string(x) + " b".

  protected TemplateLiteral(): Expr | undefined {
    const parts = this.choice<Expr[]>(
      () => this.templateParts('"'),
      () => this.templateParts("'"),
    );
    if (parts === undefined) return undefined;
    if (parts.length === 0) return primitive("string", "");
    let e = parts[0];
    for (const p of parts.slice(1)) e = { kind: "BinaryExpr", op: "+", lhs: e, rhs: p };
    return e;
  }

  private templateParts(quote: string): Expr[] | undefined {
    if (!this.lit(quote)) return undefined;
    const parts = this.star(() =>
      this.choice<Expr>(
        () => this.TemplateExpr(),
        () => {
          const chars = this.plus(() => this.templateChar(quote));
          return chars === undefined ? undefined : primitive("string", chars.join(""));
        },
      )
    );
    return this.lit(quote) ? parts : undefined;
  }

  private templateChar(quote: string): string | undefined {
    return this.choice<string>(
      () => (this.lit("\\") && this.lit("${") ? "${" : undefined),
      () => {
        if (!this.not(() => this.lit("${"))) return undefined;
        return this.quotedChar(quote);
      },
    );
  }

  protected TemplateExpr(): Expr | undefined {
    if (!this.lit("${")) return undefined;
    this.__();
    const e = this.Expr();
    if (e === undefined) return undefined;
    this.__();
    if (!this.lit("}")) return undefined;
    return {
      kind: "Cast",
      expr: e,
      type: { kind: "TypeValue", value: { kind: "TypePrimitive", name: "string" } },
    };
  }

  // Times, durations, addresses, numbers.

  private digits(n: number): boolean {
    for (let i = 0; i < n; i++) if (!this.cls(isDigit)) return false;
    return true;
  }

  private optFraction(): void {
    this.opt(() =>
      (this.lit(".") && this.plus(() => this.t(this.cls(isDigit)))) ? true : undefined
    );
  }

  protected Time(): Primitive | undefined {
    const start = this.pos;
    // FullDate "T" FullTime
    if (!this.digits(4) || !this.lit("-") || !this.digits(2) || !this.lit("-") || !this.digits(2)) {
      return undefined;
    }
    if (!this.lit("T")) return undefined;
    if (!this.digits(2) || !this.lit(":") || !this.digits(2) || !this.lit(":") || !this.digits(2)) {
      return undefined;
    }
    this.optFraction();
    const offset = this.choice<true>(
      () => this.t(this.lit("Z")),
      () => {
        if (!(this.lit("+") || this.lit("-"))) return undefined;
        if (!this.digits(2) || !this.lit(":") || !this.digits(2)) return undefined;
        this.optFraction();
        return true;
      },
    );
    return offset === undefined ? undefined : primitive("time", this.text(start));
  }

  protected Duration(): Primitive | undefined {
    const start = this.pos;
    this.opt(() => this.t(this.lit("-")));
    const units = this.plus(() => {
      if (this.Decimal() === undefined) return undefined;
      return this.TimeUnit();
    });
    return units === undefined ? undefined : primitive("duration", this.text(start));
  }

  private Decimal(): true | undefined {
    if (this.UIntString() === undefined) return undefined;
    this.opt(() => (this.lit(".") && this.UIntString() !== undefined) ? true : undefined);
    return true;
  }

  private TimeUnit(): true | undefined {
    for (const u of ["ns", "us", "ms", "s", "m", "h", "d", "w", "y"]) {
      if (this.lit(u)) return true;
    }
    return undefined;
  }

  protected IP(): string | undefined {
    const start = this.pos;
    for (let i = 0; i < 4; i++) {
      if (i > 0 && !this.lit(".")) return undefined;
      if (this.UIntString() === undefined) return undefined;
    }
    return this.text(start);
  }

  protected IP6(): string | undefined {
    const guard = this.not(() => {
      if (this.Hex() === undefined || !this.lit(":") || this.Hex() === undefined) return undefined;
      return this.t(this.not(() => this.cls(isHexDigit) || this.lit(":")));
    });
    if (!guard) return undefined;
    return this.IP6Variations();
  }

  private IP6Variations(): string | undefined {
    return this.choice<string>(
      () => {
        const a = this.plus(() => this.HexColon());
        if (a === undefined) return undefined;
        const b = this.IP6Tail();
        return b === undefined ? undefined : a.join("") + b;
      },
      () => {
        const a = this.Hex();
        if (a === undefined) return undefined;
        const b = this.star(() => this.ColonHex());
        if (!this.lit("::")) return undefined;
        const d = this.star(() => this.HexColon());
        const e = this.IP6Tail();
        return e === undefined ? undefined : a + b.join("") + "::" + d.join("") + e;
      },
      () => {
        if (!this.lit("::")) return undefined;
        const a = this.star(() => this.HexColon());
        const b = this.IP6Tail();
        return b === undefined ? undefined : "::" + a.join("") + b;
      },
      () => {
        const a = this.Hex();
        if (a === undefined) return undefined;
        const b = this.star(() => this.ColonHex());
        return this.lit("::") ? a + b.join("") + "::" : undefined;
      },
      () => (this.lit("::") ? "::" : undefined),
    );
  }

  private IP6Tail(): string | undefined {
    return this.choice<string>(() => this.IP(), () => this.Hex());
  }

  private ColonHex(): string | undefined {
    if (!this.lit(":")) return undefined;
    const v = this.Hex();
    return v === undefined ? undefined : ":" + v;
  }

  private HexColon(): string | undefined {
    const v = this.Hex();
    if (v === undefined || !this.lit(":")) return undefined;
    return v + ":";
  }

  protected IP4Net(): string | undefined {
    const a = this.IP();
    if (a === undefined || !this.lit("/")) return undefined;
    const m = this.UInt();
    return m === undefined ? undefined : a + "/" + m;
  }

  protected IP6Net(): string | undefined {
    const a = this.IP6();
    if (a === undefined || !this.lit("/")) return undefined;
    const m = this.UInt();
    if (m === undefined) return undefined;
    // The reference's action for this rule fails (it asserts the prefix
    // length is a string), which stops the parse with an error right here:
    // IPv6 networks cannot be written in v1.3 queries.
    throw new ParseFailure(this.pos);
  }

  protected UInt(): number | undefined {
    const s = this.UIntString();
    return s === undefined ? undefined : parseInt(s, 10);
  }

  protected UIntString(): string | undefined {
    const start = this.pos;
    return this.plus(() => this.t(this.cls(isDigit))) === undefined ? undefined : this.text(start);
  }

  protected IntString(): string | undefined {
    return this.choice<string>(
      () => this.UIntString(),
      () => {
        const start = this.pos;
        if (!this.lit("-") || this.UIntString() === undefined) return undefined;
        return this.text(start);
      },
    );
  }

  protected FloatString(): string | undefined {
    const start = this.pos;
    return this.choice<string>(
      () => {
        this.opt(() => this.t(this.lit("-")));
        if (this.plus(() => this.t(this.cls(isDigit))) === undefined) return undefined;
        if (!this.lit(".")) return undefined;
        this.star(() => this.t(this.cls(isDigit)));
        this.opt(() => this.ExponentPart());
        return this.text(start);
      },
      () => {
        this.opt(() => this.t(this.lit("-")));
        if (!this.lit(".")) return undefined;
        if (this.plus(() => this.t(this.cls(isDigit))) === undefined) return undefined;
        this.opt(() => this.ExponentPart());
        return this.text(start);
      },
      () => {
        const ok = this.choice<true>(() => this.t(this.lit("NaN")), () => this.Infinity());
        return ok === undefined ? undefined : this.text(start);
      },
    );
  }

  private ExponentPart(): true | undefined {
    if (!this.litI("e")) return undefined;
    this.opt(() => this.t(this.cls((c) => c === 0x2b || c === 0x2d)));
    return this.UIntString() === undefined ? undefined : true;
  }

  protected Hex(): string | undefined {
    const start = this.pos;
    return this.plus(() => this.t(this.cls(isHexDigit))) === undefined
      ? undefined
      : this.text(start);
  }
}
