// Tokens of the query grammar (language.md §1): identifiers, keywords and
// the words that end them, the literals that are words (true, false, null),
// quoted strings and their escapes, and the search syntax's keywords, globs
// and regexps. literals.ts builds the other literals on these.

import type { ID, Primitive } from "../ast.ts";
import { Peg } from "./peg.ts";

export const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
export const isHexDigit = (c: number) =>
  isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const isIdStart = (c: number) =>
  (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x24;
const isIdRest = (c: number) => isIdStart(c) || isDigit(c);
/** [a-zA-Z_.:/%#@~] */
const isKeyWordChar = (c: number) =>
  (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2e ||
  c === 0x3a || c === 0x2f || c === 0x25 || c === 0x23 || c === 0x40 || c === 0x7e;

const sqlSentinels = [
  "select",
  "as",
  "from",
  "join",
  "where",
  "group",
  "having",
  "order",
  "limit",
  "on",
];

export function primitive(type: string, text: string): Primitive {
  return { kind: "Primitive", type, text };
}

/** The grammar's tokens, below its literals (literals.ts) and expressions. */
export abstract class Tokens extends Peg {
  protected IdentifierStart(): boolean {
    return this.cls(isIdStart);
  }

  protected IdentifierRest(): boolean {
    return this.cls(isIdRest);
  }

  protected Identifier(): ID | undefined {
    const name = this.IdentifierName();
    return name === undefined ? undefined : { kind: "ID", name };
  }

  protected IdentifierName(): string | undefined {
    return this.choice<string>(
      () => {
        const start = this.pos;
        if (
          !this.not(() => this.IDGuard() !== undefined && this.not(() => this.IdentifierRest()))
        ) {
          return undefined;
        }
        if (!this.IdentifierStart()) return undefined;
        this.star(() => this.t(this.IdentifierRest()));
        return this.text(start);
      },
      () => (this.lit("$") ? "$" : undefined),
      () => {
        if (!this.lit("\\")) return undefined;
        // The reference returns the guard's node here, which breaks later; keep its text.
        const start = this.pos;
        return this.IDGuard() === undefined ? undefined : this.text(start);
      },
      () => (this.lit("type") ? "type" : undefined),
      () => {
        const id = this.SQLTokenSentinels();
        if (id === undefined) return undefined;
        return this.and(() => this.__() && this.lit("(")) ? id : undefined;
      },
    );
  }

  protected IDGuard(): unknown {
    return this.choice<unknown>(
      () => this.BooleanLiteral(),
      () => this.NullLiteral(),
      () => this.t(this.lit("NaN")),
      () => this.Infinity(),
    );
  }

  protected Infinity(): true | undefined {
    this.opt(() => this.t(this.lit("-") || this.lit("+")));
    return this.t(this.lit("Inf"));
  }

  protected SQLTokenSentinels(): string | undefined {
    for (const w of sqlSentinels) {
      const save = this.pos;
      if (this.litI(w)) return w;
      this.pos = save;
    }
    return undefined;
  }

  protected AndToken(): "and" | undefined {
    if (!(this.lit("and") || this.lit("AND"))) return undefined;
    return this.not(() => this.IdentifierRest()) ? "and" : undefined;
  }

  protected OrToken(): "or" | undefined {
    if (!(this.lit("or") || this.lit("OR"))) return undefined;
    return this.not(() => this.IdentifierRest()) ? "or" : undefined;
  }

  protected NotToken(): "not" | undefined {
    if (!(this.lit("not") || this.lit("NOT"))) return undefined;
    return this.not(() => this.IdentifierRest()) ? "not" : undefined;
  }

  protected ByToken(): "by" | undefined {
    if (!this.lit("by")) return undefined;
    return this.not(() => this.IdentifierRest()) ? "by" : undefined;
  }

  /** EOKW: not followed by a keyword character. */
  protected EOKW(): boolean {
    return this.not(() => this.cls(isKeyWordChar));
  }

  protected BooleanLiteral(): Primitive | undefined {
    if (this.lit("true")) return primitive("bool", "true");
    if (this.lit("false")) return primitive("bool", "false");
    return undefined;
  }

  protected NullLiteral(): Primitive | undefined {
    return this.lit("null") ? primitive("null", "") : undefined;
  }

  // Strings and escapes.

  protected QuotedString(): string | undefined {
    return this.choice<string>(() => this.quoted('"'), () => this.quoted("'"));
  }

  private quoted(quote: string): string | undefined {
    if (!this.lit(quote)) return undefined;
    const chars = this.star(() => this.quotedChar(quote));
    return this.lit(quote) ? chars.join("") : undefined;
  }

  /** DoubleQuotedChar / SingleQuotedChar. */
  protected quotedChar(quote: string): string | undefined {
    return this.choice<string>(
      () => {
        const start = this.pos;
        if (!this.not(() => this.lit(quote) || this.EscapedChar())) return undefined;
        return this.any() ? this.text(start) : undefined;
      },
      () => (this.lit("\\") ? this.EscapeSequence() : undefined),
    );
  }

  private EscapedChar(): boolean {
    return this.cls((c) => c <= 0x1f || c === 0x5c);
  }

  protected EscapeSequence(): string | undefined {
    return this.choice<string>(() => this.SingleCharEscape(), () => this.UnicodeEscape());
  }

  private SingleCharEscape(): string | undefined {
    const map: [string, string][] = [
      ["'", "'"],
      ['"', '"'],
      ["\\", "\\"],
      ["b", "\b"],
      ["f", "\f"],
      ["n", "\n"],
      ["r", "\r"],
      ["t", "\t"],
      ["v", "\v"],
    ];
    for (const [c, v] of map) if (this.lit(c)) return v;
    return undefined;
  }

  private UnicodeEscape(): string | undefined {
    return this.choice<string>(
      () => {
        if (!this.lit("u")) return undefined;
        const start = this.pos;
        for (let i = 0; i < 4; i++) if (!this.cls(isHexDigit)) return undefined;
        return String.fromCodePoint(parseInt(this.text(start), 16));
      },
      () => {
        if (!this.lit("u") || !this.lit("{")) return undefined;
        const start = this.pos;
        if (!this.cls(isHexDigit)) return undefined;
        for (let i = 0; i < 5; i++) this.opt(() => this.t(this.cls(isHexDigit)));
        const hex = this.text(start);
        if (!this.lit("}")) return undefined;
        const n = parseInt(hex, 16);
        return n <= 0x10ffff ? String.fromCodePoint(n) : "\ufffd";
      },
    );
  }

  // Search keywords, globs and regexps.

  protected KeyWord(): string | undefined {
    const head = this.KeyWordStart();
    if (head === undefined) return undefined;
    return head + this.star(() => this.KeyWordRest()).join("");
  }

  protected KeyWordStart(): string | undefined {
    return this.choice<string>(() => this.KeyWordChars(), () => this.KeyWordEsc());
  }

  private KeyWordChars(): string | undefined {
    const start = this.pos;
    return this.cls(isKeyWordChar) ? this.text(start) : undefined;
  }

  protected KeyWordRest(): string | undefined {
    return this.choice<string>(
      () => this.KeyWordStart(),
      () => {
        const start = this.pos;
        return this.cls(isDigit) ? this.text(start) : undefined;
      },
    );
  }

  private KeyWordEsc(): string | undefined {
    if (!this.lit("\\")) return undefined;
    return this.choice<string>(
      () => {
        const start = this.pos;
        return this.cls((c) => c === 0x3d || c === 0x2a || c === 0x2b || c === 0x2d)
          ? this.text(start)
          : undefined;
      },
      () => this.EscapeSequence(),
    );
  }

  protected GlobPattern(): string | undefined {
    const proper = this.and(() =>
      this.choice<unknown>(
        () => this.KeyWordStart(),
        () => {
          if (this.plus(() => this.t(this.lit("*"))) === undefined) return undefined;
          return this.KeyWordRest();
        },
      )
    );
    if (!proper) return undefined;
    const hasStar = this.and(() => {
      this.star(() => this.KeyWordRest());
      return this.t(this.lit("*"));
    });
    if (!hasStar) return undefined;
    const head = this.GlobStart();
    if (head === undefined) return undefined;
    return head + this.star(() => this.GlobRest()).join("");
  }

  private GlobStart(): string | undefined {
    return this.choice<string>(
      () => this.KeyWordChars(),
      () => this.GlobEsc(),
      () => (this.lit("*") ? "*" : undefined),
    );
  }

  private GlobRest(): string | undefined {
    return this.choice<string>(
      () => this.GlobStart(),
      () => {
        const start = this.pos;
        return this.cls(isDigit) ? this.text(start) : undefined;
      },
    );
  }

  private GlobEsc(): string | undefined {
    if (!this.lit("\\")) return undefined;
    return this.choice<string>(
      () => (this.lit("=") ? "=" : undefined),
      () => (this.lit("*") ? "\\*" : undefined),
      () => {
        const start = this.pos;
        return this.cls((c) => c === 0x2b || c === 0x2d) ? this.text(start) : undefined;
      },
      () => this.EscapeSequence(),
    );
  }

  protected RegexpPattern(): string | undefined {
    if (!this.lit("/")) return undefined;
    const start = this.pos;
    const body = this.plus(() =>
      this.choice<true>(
        () => this.t(this.cls((c) => c !== 0x2f && c !== 0x5c)),
        () => this.t(this.lit("\\") && this.any()),
      )
    );
    if (body === undefined) return undefined;
    const text = this.text(start);
    if (!this.lit("/")) return undefined;
    return this.not(() => this.KeyWordStart()) ? text : undefined;
  }
}
