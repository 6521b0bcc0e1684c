// Search-expression rules (language.md §5.1) and the data-source rules they
// refer to (a search stops before `<source> =>` and `case`).

import type { Expr, FileSource, HTTPSource, Layout, PoolName, PoolSource, Source } from "../ast.ts";
import { Exprs } from "./exprs.ts";
import { primitive } from "./tokens.ts";

function chain(first: Expr, op: string, rest: Expr[]): Expr {
  let e = first;
  for (const rhs of rest) e = { kind: "BinaryExpr", op, lhs: e, rhs };
  return e;
}

/** [0-9a-zA-Z!@$%^&*()_=<>,./?:[\]{}~|+-] */
const isPathChar = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
  "!@$%^&*()_=<>,./?:[]{}~|+-".includes(String.fromCharCode(c));
const isAlnum = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

export abstract class Search extends Exprs {
  protected SearchBoolean(): Expr | undefined {
    const first = this.SearchAnd();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      if (this._() === undefined || this.OrToken() === undefined || this._() === undefined) {
        return undefined;
      }
      return this.SearchAnd();
    });
    return chain(first, "or", rest);
  }

  private SearchAnd(): Expr | undefined {
    const first = this.SearchFactor();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      this.opt(() => (this._() !== undefined && this.AndToken() !== undefined) || undefined);
      if (this._() === undefined) return undefined;
      const guard = () =>
        this.choice<unknown>(() => this.OrToken(), () => this.SearchKeywordGuard());
      if (!this.not(guard)) return undefined;
      return this.SearchFactor();
    });
    return chain(first, "and", rest);
  }

  protected SearchKeywordGuard(): true | undefined {
    return this.choice<true>(
      () => {
        if (this.FromSource() === undefined) return undefined;
        this.__();
        if (!this.lit("=>")) return undefined;
        return this.__();
      },
      () => {
        if (this.Case() === undefined) return undefined;
        return this.__();
      },
    );
  }

  private SearchFactor(): Expr | undefined {
    return this.choice<Expr>(
      () => {
        const neg = this.choice<true>(
          () => (this.NotToken() !== undefined ? this._() : undefined),
          () => (this.lit("!") ? this.__() : undefined),
        );
        if (neg === undefined) return undefined;
        const e = this.SearchFactor();
        return e === undefined ? undefined : { kind: "UnaryExpr", op: "!", operand: e };
      },
      () => {
        if (!this.lit("(")) return undefined;
        this.__();
        const e = this.SearchBoolean();
        if (e === undefined) return undefined;
        this.__();
        return this.lit(")") ? e : undefined;
      },
      () => this.SearchExpr(),
    );
  }

  private SearchExpr(): Expr | undefined {
    return this.choice<Expr>(
      () => {
        const p = this.GlobPattern();
        return p === undefined ? undefined : { kind: "Glob", pattern: p };
      },
      () => {
        const p = this.RegexpPattern();
        return p === undefined ? undefined : { kind: "Regexp", pattern: p };
      },
      () => {
        const start = this.pos;
        const v = this.SearchValue();
        if (v === undefined) return undefined;
        const text = this.text(start);
        const ok = this.choice<true>(
          () => this.t(this.not(() => this.ExprGuard())),
          () => this.t(this.and(() => this._() !== undefined && this.GlobPattern() !== undefined)),
        );
        return ok === undefined ? undefined : { kind: "Term", text, value: v };
      },
      () => {
        if (!this.lit("*") || !this.not(() => this.ExprGuard())) return undefined;
        return primitive("bool", "true");
      },
      () => this.SearchPredicate(),
    );
  }

  private SearchPredicate(): Expr | undefined {
    return this.choice<Expr>(
      () => {
        const lhs = this.AdditiveExpr();
        if (lhs === undefined) return undefined;
        this.__();
        const op = this.Comparator();
        if (op === undefined) return undefined;
        this.__();
        const rhs = this.AdditiveExpr();
        return rhs === undefined ? undefined : { kind: "BinaryExpr", op, lhs, rhs };
      },
      () => {
        const first = this.Function();
        if (first === undefined) return undefined;
        let e = first;
        for (const [op, rhs] of this.star(() => this.Deref())) {
          e = { kind: "BinaryExpr", op, lhs: e, rhs };
        }
        return e;
      },
    );
  }

  private SearchValue(): Expr | undefined {
    return this.choice<Expr>(
      () => this.Literal(),
      () => {
        if (!this.not(() => this.RegexpPattern())) return undefined;
        const v = this.KeyWord();
        return v === undefined ? undefined : primitive("string", v);
      },
    );
  }

  /** Tokens that continue an expression, so a preceding value is no search term. */
  protected ExprGuard(): true | undefined {
    this.__();
    const ok = this.choice<unknown>(
      () => (this.not(() => this.lit("=>")) ? this.Comparator() : undefined),
      () => this.AdditiveOperator(),
      () => this.MultiplicativeOperator(),
      () => this.t(this.lit(":")),
      () => this.t(this.lit("(")),
      () => this.t(this.lit("[")),
      () => this.t(this.lit("~")),
    );
    return ok === undefined ? undefined : true;
  }

  protected Case(): Expr | null | undefined {
    return this.choice<Expr | null>(
      () => {
        if (!this.lit("case") || this._() === undefined) return undefined;
        return this.Expr();
      },
      () => (this.lit("default") ? null : undefined),
    );
  }

  // Data sources.

  protected FromSource(): Source | undefined {
    return this.choice<Source>(
      () => this.File(),
      () => this.Get(),
      () => this.Pool(),
      () => this.PassOp(),
    );
  }

  protected PassOp(): { kind: "Pass" } | undefined {
    return this.lit("pass") && this.and(() => this.EOKW()) ? { kind: "Pass" } : undefined;
  }

  protected File(): FileSource | undefined {
    if (!this.lit("file") || this._() === undefined) return undefined;
    const path = this.Path();
    if (path === undefined) return undefined;
    const format = this.opt(() => this.FormatArg());
    const layout = this.opt(() => this.LayoutArg());
    return { kind: "File", path, format, layout };
  }

  protected Get(): HTTPSource | undefined {
    if (!this.lit("get") || this._() === undefined) return undefined;
    const start = this.pos;
    if (!(this.lit("http:") || this.lit("https:")) || this.Path() === undefined) return undefined;
    const url = this.text(start);
    const format = this.opt(() => this.FormatArg());
    const layout = this.opt(() => this.LayoutArg());
    return { kind: "HTTP", url, format, layout };
  }

  private Path(): string | undefined {
    return this.choice<string>(
      () => this.QuotedString(),
      () => {
        const start = this.pos;
        return this.plus(() => this.t(this.cls(isPathChar))) === undefined
          ? undefined
          : this.text(start);
      },
    );
  }

  protected Pool(): PoolSource | undefined {
    if (!this.lit("pool") || this._() === undefined) return undefined;
    return this.PoolBody();
  }

  protected PoolBody(): PoolSource | undefined {
    const spec = this.PoolSpec();
    if (spec === undefined) return undefined;
    const at = this.opt(() => {
      if (this._() === undefined || !this.lit("at") || this._() === undefined) return undefined;
      // A time (time travel by commit dates), else what Zed takes: an id.
      return this.TimeText() ?? this.KSUID();
    });
    const range = this.opt(() => {
      if (this._() === undefined || !this.lit("range") || this._() === undefined) return undefined;
      const lower = this.Literal();
      if (lower === undefined) return undefined;
      if (this._() === undefined || !this.lit("to") || this._() === undefined) return undefined;
      const upper = this.Literal();
      return upper === undefined ? undefined : { kind: "Range" as const, lower, upper };
    });
    const order = this.opt(() =>
      this.choice<"asc" | "desc">(
        () => this.orderWord("asc"),
        () => this.orderWord("desc"),
      )
    );
    const diff = this.opt(() => this.DiffArg());
    const pool: PoolSource = { kind: "Pool", spec, at, range, scan_order: order };
    if (diff !== null) pool.diff = diff;
    return pool;
  }

  /** `diff A B`: two commits or branches of the pool. */
  private DiffArg(): [string, string] | undefined {
    if (this._() === undefined || !this.lit("diff") || this._() === undefined) return undefined;
    const a = this.PoolNameString();
    if (a === undefined || this._() === undefined) return undefined;
    const b = this.PoolNameString();
    return b === undefined ? undefined : [a, b];
  }

  private orderWord<T extends string>(w: T): T | undefined {
    if (this._() === undefined || !this.lit("order") || this._() === undefined) return undefined;
    return this.lit(w) ? w : undefined;
  }

  /** An RFC 3339 time's text, as in `at 2024-03-24T17:00:00Z`. */
  private TimeText(): string | undefined {
    TIME_TEXT.lastIndex = this.pos;
    const m = TIME_TEXT.exec(this.src);
    if (m === null) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  private KSUID(): string | undefined {
    const start = this.pos;
    return this.plus(() => this.t(this.cls(isAlnum))) === undefined ? undefined : this.text(start);
  }

  private PoolSpec(): PoolSource["spec"] | undefined {
    return this.choice<PoolSource["spec"]>(
      () => {
        const pool = this.PoolName();
        if (pool === undefined) return undefined;
        const commit = this.opt(() => (this.lit("@") ? this.PoolNameString() : undefined));
        const meta = this.opt(() => this.PoolMeta());
        const args = meta === null ? null : this.opt(() => this.MetaArgs());
        return args === null ? { pool, commit, meta } : { pool, commit, meta, meta_args: args };
      },
      () => {
        const meta = this.PoolMeta();
        return meta === undefined ? undefined : { pool: null, commit: null, meta };
      },
    );
  }

  /** `(a, b)` after a meta-query's name: names of branches or commits. */
  private MetaArgs(): string[] | undefined {
    if (!this.lit("(")) return undefined;
    const args: string[] = [];
    for (;;) {
      this.__();
      const a = this.PoolNameString();
      if (a === undefined) return undefined;
      args.push(a);
      this.__();
      if (this.lit(")")) return args;
      if (!this.lit(",")) return undefined;
    }
  }

  private PoolMeta(): string | undefined {
    return this.lit(":") ? this.PoolIdentifier() : undefined;
  }

  private PoolName(): PoolName | undefined {
    return this.choice<PoolName>(
      () => {
        const p = this.GlobPattern();
        return p === undefined ? undefined : { kind: "Glob", pattern: p };
      },
      () =>
        (this.lit("*") && this.not(() => this.ExprGuard()))
          ? { kind: "Glob", pattern: "*" }
          : undefined,
      () => {
        const p = this.RegexpPattern();
        return p === undefined ? undefined : { kind: "Regexp", pattern: p };
      },
      () => {
        const name = this.PoolNameString();
        return name === undefined ? undefined : { kind: "String", text: name };
      },
    );
  }

  private PoolNameString(): string | undefined {
    return this.choice<string>(
      () => this.PoolIdentifier(),
      () => this.KSUID(),
      () => this.QuotedString(),
    );
  }

  private PoolIdentifier(): string | undefined {
    const start = this.pos;
    if (!(this.IdentifierStart() || this.lit("."))) return undefined;
    this.star(() => this.t(this.IdentifierRest() || this.lit(".")));
    return this.text(start);
  }

  private FormatArg(): string | undefined {
    if (this._() === undefined || !this.lit("format") || this._() === undefined) return undefined;
    return this.IdentifierName();
  }

  private LayoutArg(): Layout | undefined {
    if (this._() === undefined || !this.lit("order") || this._() === undefined) return undefined;
    const keys = this.FieldExprs();
    if (keys === undefined) return undefined;
    let order: "asc" | "desc" = "asc";
    if (this.lit(":asc")) order = "asc";
    else if (this.lit(":desc")) order = "desc";
    return { kind: "Layout", keys, order };
  }
}

/** An RFC 3339 time, matched where the parser stands. */
const TIME_TEXT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/y;
