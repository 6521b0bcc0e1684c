// Expression rules of the query grammar (language.md §4.1): precedence
// climbing written as the reference's PEG rules, calls, casts, grep,
// dereferences, container literals and lateral `(over ...)` expressions.

import type {
  Assignment,
  Expr,
  ID,
  Local,
  Pattern,
  RecordElem,
  Sequential,
  VectorElem,
} from "../ast.ts";
import { Literals } from "./literals.ts";
import { primitive } from "./tokens.ts";

type Link = ["[" | ".", Expr];

function chain(first: Expr, rest: [string, Expr][]): Expr {
  let e = first;
  for (const [op, rhs] of rest) e = { kind: "BinaryExpr", op, lhs: e, rhs };
  return e;
}

export abstract class Exprs extends Literals {
  protected abstract Sequential(): Sequential | undefined;

  protected Expr(): Expr | undefined {
    const cond = this.LogicalOrExpr();
    if (cond === undefined) return undefined;
    const rest = this.opt(() => {
      this.__();
      if (!this.lit("?")) return undefined;
      this.__();
      const then = this.Expr();
      if (then === undefined) return undefined;
      this.__();
      if (!this.lit(":")) return undefined;
      this.__();
      const els = this.Expr();
      return els === undefined ? undefined : [then, els] as [Expr, Expr];
    });
    if (rest === null) return cond;
    return { kind: "Conditional", cond, then: rest[0], else: rest[1] };
  }

  /** A left-associative chain of binary operators. */
  private binaryChain(
    operand: () => Expr | undefined,
    operator: () => string | undefined,
  ): Expr | undefined {
    const first = operand();
    if (first === undefined) return undefined;
    const rest = this.star<[string, Expr]>(() => {
      this.__();
      const op = operator();
      if (op === undefined) return undefined;
      this.__();
      const e = operand();
      return e === undefined ? undefined : [op, e];
    });
    return chain(first, rest);
  }

  protected LogicalOrExpr(): Expr | undefined {
    return this.binaryChain(() => this.LogicalAndExpr(), () => this.OrToken());
  }

  protected LogicalAndExpr(): Expr | undefined {
    return this.binaryChain(() => this.ComparisonExpr(), () => this.AndToken());
  }

  protected Comparator(): string | undefined {
    const start = this.pos;
    for (const op of ["==", "!="]) {
      if (this.lit(op)) return op;
    }
    if (
      this.attempt(() => (this.lit("in") && this.not(() => this.IdentifierRest())) || undefined)
    ) {
      return this.text(start);
    }
    for (const op of ["<=", "<", ">=", ">"]) {
      if (this.lit(op)) return op;
    }
    return undefined;
  }

  protected ComparisonExpr(): Expr | undefined {
    const lhs = this.AdditiveExpr();
    if (lhs === undefined) return undefined;
    const rest = this.opt(() =>
      this.choice<[string, Expr]>(
        () => {
          this.__();
          const op = this.Comparator();
          if (op === undefined) return undefined;
          this.__();
          const rhs = this.AdditiveExpr();
          return rhs === undefined ? undefined : [op, rhs];
        },
        () => {
          this.__();
          if (!this.lit("~")) return undefined;
          this.__();
          const re = this.RegexpPattern();
          return re === undefined ? undefined : ["~", { kind: "Regexp", pattern: re }];
        },
      )
    );
    if (rest === null) return lhs;
    return { kind: "BinaryExpr", op: rest[0], lhs, rhs: rest[1] };
  }

  protected AdditiveOperator(): string | undefined {
    if (this.lit("+")) return "+";
    if (this.lit("-")) return "-";
    return undefined;
  }

  protected MultiplicativeOperator(): string | undefined {
    for (const op of ["*", "/", "%"]) if (this.lit(op)) return op;
    return undefined;
  }

  protected AdditiveExpr(): Expr | undefined {
    return this.binaryChain(() => this.MultiplicativeExpr(), () => this.AdditiveOperator());
  }

  protected MultiplicativeExpr(): Expr | undefined {
    return this.binaryChain(() => this.NotExpr(), () => this.MultiplicativeOperator());
  }

  protected NotExpr(): Expr | undefined {
    return this.choice<Expr>(
      () => {
        if (!this.lit("!")) return undefined;
        this.__();
        const e = this.NotExpr();
        return e === undefined ? undefined : { kind: "UnaryExpr", op: "!", operand: e };
      },
      () => this.NegationExpr(),
    );
  }

  protected NegationExpr(): Expr | undefined {
    return this.choice<Expr>(
      () => {
        if (!this.not(() => this.Literal())) return undefined;
        if (!this.lit("-")) return undefined;
        this.__();
        const e = this.FuncExpr();
        return e === undefined ? undefined : { kind: "UnaryExpr", op: "-", operand: e };
      },
      () => this.FuncExpr(),
    );
  }

  protected FuncExpr(): Expr | undefined {
    return this.choice<Expr>(
      () => {
        const first = this.Cast();
        return first === undefined ? undefined : chain(first, this.star(() => this.Deref()));
      },
      () => {
        const first = this.Function();
        return first === undefined ? undefined : chain(first, this.star(() => this.Deref()));
      },
      () => this.DerefExpr(),
      () => this.Primary(),
    );
  }

  /** FuncGuard: `not (` and `select (` are not function calls. */
  protected FuncGuard(): true | undefined {
    if (!(this.lit("not") || this.lit("select"))) return undefined;
    this.__();
    return this.t(this.lit("("));
  }

  protected Cast(): Expr | undefined {
    const type = this.CastType();
    if (type === undefined) return undefined;
    this.__();
    if (!this.lit("(")) return undefined;
    this.__();
    const expr = this.choice<Expr>(() => this.OverExpr(), () => this.Expr());
    if (expr === undefined) return undefined;
    this.__();
    if (!this.lit(")")) return undefined;
    return { kind: "Cast", expr, type };
  }

  protected Function(): Expr | undefined {
    return this.choice<Expr>(
      () => this.Grep(),
      () => {
        // regexp(/re/, e): the pattern is a regexp literal.
        if (!this.lit("regexp")) return undefined;
        this.__();
        if (!this.lit("(")) return undefined;
        this.__();
        const re = this.RegexpPattern();
        if (re === undefined) return undefined;
        this.__();
        if (!this.lit(",")) return undefined;
        this.__();
        const arg = this.Expr();
        if (arg === undefined) return undefined;
        this.__();
        if (!this.lit(")")) return undefined;
        const where = this.opt(() => this.WhereClause());
        return { kind: "Call", name: "regexp", args: [primitive("string", re), arg], where };
      },
      () => {
        if (!this.not(() => this.FuncGuard())) return undefined;
        const name = this.IdentifierName();
        if (name === undefined) return undefined;
        this.__();
        if (!this.lit("(")) return undefined;
        this.__();
        const args = this.FunctionArgs();
        if (args === undefined) return undefined;
        this.__();
        if (!this.lit(")")) return undefined;
        const where = this.opt(() => this.WhereClause());
        return { kind: "Call", name, args, where };
      },
    );
  }

  private FunctionArgs(): Expr[] | undefined {
    return this.choice<Expr[]>(
      () => {
        const o = this.OverExpr();
        return o === undefined ? undefined : [o];
      },
      () => this.OptionalExprs(),
    );
  }

  protected Grep(): Expr | undefined {
    if (!this.lit("grep")) return undefined;
    this.__();
    if (!this.lit("(")) return undefined;
    this.__();
    const pattern = this.Pattern();
    if (pattern === undefined) return undefined;
    this.__();
    const arg = this.opt(() => {
      if (!this.lit(",")) return undefined;
      this.__();
      const e = this.choice<Expr>(() => this.OverExpr(), () => this.Expr());
      if (e === undefined) return undefined;
      this.__();
      return e;
    });
    if (!this.lit(")")) return undefined;
    return { kind: "Grep", pattern, expr: arg ?? { kind: "ID", name: "this" } };
  }

  protected Pattern(): Pattern | undefined {
    return this.choice<Pattern>(
      () => {
        const p = this.RegexpPattern();
        return p === undefined ? undefined : { kind: "Regexp", pattern: p };
      },
      () => {
        const p = this.GlobPattern();
        return p === undefined ? undefined : { kind: "Glob", pattern: p };
      },
      () => {
        const s = this.QuotedString();
        return s === undefined ? undefined : { kind: "String", text: s };
      },
    );
  }

  protected OptionalExprs(): Expr[] {
    const list = this.attempt(() => this.Exprs());
    if (list !== undefined) return list;
    this.__();
    return [];
  }

  protected Exprs(): Expr[] | undefined {
    const first = this.Expr();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      this.__();
      if (!this.lit(",")) return undefined;
      this.__();
      return this.Expr();
    });
    return [first, ...rest];
  }

  protected DerefExpr(): Expr | undefined {
    if (!this.not(() => this.IP6())) return undefined;
    const first = this.Identifier();
    if (first === undefined) return undefined;
    return chain(first, this.star(() => this.Deref()));
  }

  protected Deref(): Link | undefined {
    return this.choice<Link>(
      () => {
        if (!this.lit("[")) return undefined;
        const from = this.AdditiveExpr();
        if (from === undefined) return undefined;
        this.__();
        if (!this.lit(":")) return undefined;
        this.__();
        const to = this.opt(() => this.AdditiveExpr());
        if (!this.lit("]")) return undefined;
        return ["[", { kind: "BinaryExpr", op: ":", lhs: from, rhs: to as Expr }];
      },
      () => {
        if (!this.lit("[")) return undefined;
        this.__();
        if (!this.lit(":")) return undefined;
        this.__();
        const to = this.AdditiveExpr();
        if (to === undefined || !this.lit("]")) return undefined;
        return ["[", { kind: "BinaryExpr", op: ":", lhs: null as unknown as Expr, rhs: to }];
      },
      () => {
        if (!this.lit("[")) return undefined;
        const e = this.Expr();
        if (e === undefined || !this.lit("]")) return undefined;
        return ["[", e];
      },
      () => {
        if (!this.lit(".")) return undefined;
        const id = this.Identifier();
        return id === undefined ? undefined : [".", id];
      },
    );
  }

  protected Primary(): Expr | undefined {
    return this.choice<Expr>(
      () => this.Record(),
      () => this.ArrayLit(),
      () => this.SetLit(),
      () => this.MapLit(),
      () => this.Literal(),
      () => this.parenthesized(() => this.OverExpr()),
      () => this.parenthesized(() => this.Expr()),
    );
  }

  private parenthesized(inner: () => Expr | undefined): Expr | undefined {
    if (!this.lit("(")) return undefined;
    this.__();
    const e = inner();
    if (e === undefined) return undefined;
    this.__();
    return this.lit(")") ? e : undefined;
  }

  protected OverExpr(): Expr | undefined {
    if (!this.lit("over")) return undefined;
    if (this._() === undefined) return undefined;
    const exprs = this.Exprs();
    if (exprs === undefined) return undefined;
    const locals = this.opt(() => this.Locals());
    this.__();
    if (!this.lit("|")) return undefined;
    this.__();
    const scope = this.Sequential();
    if (scope === undefined) return undefined;
    return { kind: "OverExpr", locals, exprs, scope };
  }

  protected Locals(): Local[] | undefined {
    if (this._() === undefined || !this.lit("with") || this._() === undefined) return undefined;
    const first = this.LocalsAssignment();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      this.__();
      if (!this.lit(",")) return undefined;
      this.__();
      return this.LocalsAssignment();
    });
    return [first, ...rest];
  }

  private LocalsAssignment(): Local | undefined {
    const name = this.IdentifierName();
    if (name === undefined) return undefined;
    const e = this.opt(() => {
      this.__();
      if (!this.lit("=")) return undefined;
      this.__();
      return this.Expr();
    });
    return { name, expr: e ?? { kind: "ID", name } };
  }

  protected WhereClause(): Expr | undefined {
    if (this._() === undefined || !this.lit("where") || this._() === undefined) return undefined;
    return this.LogicalOrExpr();
  }

  // Container literals.

  private Record(): Expr | undefined {
    if (!this.lit("{")) return undefined;
    this.__();
    const elems = this.listOr(() => this.RecordElem());
    this.__();
    return this.lit("}") ? { kind: "RecordExpr", elems } : undefined;
  }

  /** `first (__ "," __ next)*` or, failing that, `__` with an empty list. */
  private listOr<T>(elem: () => T | undefined): T[] {
    const list = this.attempt(() => {
      const first = elem();
      if (first === undefined) return undefined;
      const rest = this.star(() => {
        this.__();
        if (!this.lit(",")) return undefined;
        this.__();
        return elem();
      });
      return [first, ...rest];
    });
    if (list !== undefined) return list;
    this.__();
    return [];
  }

  private RecordElem(): RecordElem | undefined {
    return this.choice<RecordElem>(
      () => this.Spread(),
      () => {
        const name = this.FieldName();
        if (name === undefined) return undefined;
        this.__();
        if (!this.lit(":")) return undefined;
        this.__();
        const value = this.Expr();
        return value === undefined ? undefined : { kind: "Field", name, value };
      },
      () => this.Identifier(),
    );
  }

  private Spread(): { kind: "Spread"; expr: Expr } | undefined {
    if (!this.lit("...")) return undefined;
    this.__();
    const expr = this.Expr();
    return expr === undefined ? undefined : { kind: "Spread", expr };
  }

  private ArrayLit(): Expr | undefined {
    if (!this.lit("[")) return undefined;
    this.__();
    const elems = this.listOr(() => this.VectorElem());
    this.__();
    return this.lit("]") ? { kind: "ArrayExpr", elems } : undefined;
  }

  private SetLit(): Expr | undefined {
    if (!this.lit("|[")) return undefined;
    this.__();
    const elems = this.listOr(() => this.VectorElem());
    this.__();
    return this.lit("]|") ? { kind: "SetExpr", elems } : undefined;
  }

  private VectorElem(): VectorElem | undefined {
    return this.choice<VectorElem>(
      () => this.Spread(),
      () => {
        const e = this.Expr();
        return e === undefined ? undefined : { kind: "VectorValue", expr: e };
      },
    );
  }

  private MapLit(): Expr | undefined {
    if (!this.lit("|{")) return undefined;
    this.__();
    const entries = this.listOr(() => {
      const key = this.Expr();
      if (key === undefined) return undefined;
      this.__();
      if (!this.lit(":")) return undefined;
      this.__();
      const value = this.Expr();
      return value === undefined ? undefined : { key, value };
    });
    this.__();
    return this.lit("}|") ? { kind: "MapExpr", entries } : undefined;
  }

  // Assignments.

  protected Lval(): Expr | undefined {
    return this.DerefExpr();
  }

  protected Assignment(): Assignment | undefined {
    const lhs = this.Lval();
    if (lhs === undefined) return undefined;
    this.__();
    if (!this.lit(":=")) return undefined;
    this.__();
    const rhs = this.Expr();
    return rhs === undefined ? undefined : { kind: "Assignment", lhs, rhs };
  }

  protected Assignments(): Assignment[] | undefined {
    const first = this.Assignment();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      this.__();
      if (!this.lit(",")) return undefined;
      this.__();
      return this.Assignment();
    });
    return [first, ...rest];
  }

  protected FieldExprs(): Expr[] | undefined {
    const first = this.Lval();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      this.__();
      if (!this.lit(",")) return undefined;
      this.__();
      return this.Lval();
    });
    return [first, ...rest];
  }

  protected isID(e: Expr): e is ID {
    return e.kind === "ID";
  }
}
