// Program and operator rules (language.md §2, §3): sequences, declarations,
// the structural operators, keyword operators, implied operators and
// aggregations.

import type {
  Agg,
  Assignment,
  Decl,
  Expr,
  Join,
  Op,
  Sequential,
  Source,
  SwitchCase,
  Trunk,
} from "../ast.ts";
import { primitive } from "./tokens.ts";
import { RawParseError } from "./peg.ts";
import { SQL } from "./sql.ts";

const ID_THIS: Expr = { kind: "ID", name: "this" };

export class Operations extends SQL {
  protected Sequential(): Sequential | undefined {
    const consts = this.Consts();
    this.__();
    const first = this.Operation();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      this.__();
      if (!this.Pipe()) return undefined;
      this.__();
      return this.Operation();
    });
    return { kind: "Sequential", ops: [first, ...rest], consts };
  }

  private Pipe(): boolean {
    return this.lit("|") && this.not(() => this.lit("{") || this.lit("["));
  }

  private Consts(): Decl[] {
    const consts = this.plus(() => {
      this.__();
      return this.ConstDef();
    });
    if (consts !== undefined) return consts;
    this.__();
    return [];
  }

  private ConstDef(): Decl | undefined {
    return this.choice<Decl>(
      () => {
        if (!this.lit("const") || this._() === undefined) return undefined;
        const name = this.IdentifierName();
        if (name === undefined) return undefined;
        this.__();
        if (!this.lit("=")) return undefined;
        this.__();
        const expr = this.Expr();
        return expr === undefined ? undefined : { name, expr };
      },
      () => {
        if (!this.lit("type") || this._() === undefined) return undefined;
        const name = this.choice<string>(() => this.IdentifierName(), () => this.QuotedString());
        if (name === undefined) return undefined;
        this.__();
        if (!this.lit("=")) return undefined;
        this.__();
        const type = this.Type();
        if (type === undefined) return undefined;
        return {
          name,
          expr: { kind: "TypeValue", value: { kind: "TypeDef", name, type } },
        };
      },
    );
  }

  protected Operation(): Op | undefined {
    return this.choice<Op>(
      () => {
        if (!this.lit("fork")) return undefined;
        this.__();
        if (!this.lit("(")) return undefined;
        const ops = this.plus(() => this.Leg());
        if (ops === undefined) return undefined;
        this.__();
        return this.lit(")") ? { kind: "Parallel", ops } : undefined;
      },
      () => {
        if (!this.lit("switch") || this._() === undefined) return undefined;
        const expr = this.Expr();
        if (expr === undefined || this._() === undefined || !this.lit("(")) return undefined;
        const cases = this.plus(() => this.SwitchLeg());
        if (cases === undefined) return undefined;
        this.__();
        return this.lit(")") ? { kind: "Switch", expr, cases } : undefined;
      },
      () => {
        if (!this.lit("switch")) return undefined;
        this.__();
        if (!this.lit("(")) return undefined;
        const cases = this.plus(() => this.SwitchLeg());
        if (cases === undefined) return undefined;
        this.__();
        return this.lit(")") ? { kind: "Switch", expr: null, cases } : undefined;
      },
      () => {
        if (!this.lit("from")) return undefined;
        this.__();
        if (!this.lit("(")) return undefined;
        const trunks = this.plus(() => this.FromLeg());
        if (trunks === undefined) return undefined;
        this.__();
        return this.lit(")") ? { kind: "From", trunks } : undefined;
      },
      () => this.Operator(),
      () => {
        const a = this.Assignments();
        if (a === undefined || !this.and(() => this.EndOfOp())) return undefined;
        return { kind: "OpAssignment", assignments: a };
      },
      () => {
        if (!this.not(() => this.Function() !== undefined && this.EndOfOp())) return undefined;
        const a = this.Aggregation();
        return a !== undefined && this.and(() => this.EndOfOp()) ? a : undefined;
      },
      () => {
        if (!this.lit("search") || this._() === undefined) return undefined;
        const expr = this.SearchBoolean();
        return expr === undefined ? undefined : { kind: "Search", expr };
      },
      () => {
        const expr = this.SearchBoolean();
        return expr === undefined ? undefined : { kind: "OpExpr", expr };
      },
      () => {
        const expr = this.Cast();
        return expr === undefined ? undefined : { kind: "OpExpr", expr };
      },
      () => {
        const expr = this.Expr();
        return expr === undefined ? undefined : { kind: "OpExpr", expr };
      },
    );
  }

  private EndOfOp(): true | undefined {
    this.__();
    return this.choice<unknown>(
        () => this.t(this.Pipe()),
        () => this.SearchKeywordGuard(),
        () => this.t(this.lit("=>")),
        () => this.t(this.lit(")")),
        () => this.EOF(),
      ) === undefined
      ? undefined
      : true;
  }

  private Leg(): Sequential | undefined {
    this.__();
    if (!this.lit("=>")) return undefined;
    this.__();
    return this.Sequential();
  }

  private SwitchLeg(): SwitchCase | undefined {
    this.__();
    const expr = this.Case();
    if (expr === undefined) return undefined;
    this.__();
    if (!this.lit("=>")) return undefined;
    this.__();
    const op = this.Sequential();
    return op === undefined ? undefined : { expr, op };
  }

  private FromLeg(): Trunk | undefined {
    this.__();
    const source = this.FromSource();
    if (source === undefined) return undefined;
    const seq = this.opt(() => {
      this.__();
      if (!this.lit("=>")) return undefined;
      this.__();
      return this.Sequential();
    });
    return { kind: "Trunk", source, seq };
  }

  // Aggregations (implied or explicit summarize).

  private Aggregation(): Op | undefined {
    return this.choice<Op>(
      () => {
        this.opt(() => this.Summarize());
        const keys = this.GroupByKeys();
        if (keys === undefined) return undefined;
        const limit = this.LimitArg();
        return { kind: "Summarize", keys, aggs: null, limit };
      },
      () => {
        this.opt(() => this.Summarize());
        const aggs = this.AggAssignments();
        if (aggs === undefined) return undefined;
        const keys = this.opt(() => (this._() !== undefined ? this.GroupByKeys() : undefined));
        const limit = this.LimitArg();
        return { kind: "Summarize", keys, aggs, limit };
      },
    );
  }

  private Summarize(): true | undefined {
    return this.lit("summarize") ? this._() : undefined;
  }

  private GroupByKeys(): Assignment[] | undefined {
    if (this.ByToken() === undefined || this._() === undefined) return undefined;
    return this.FlexAssignments();
  }

  private LimitArg(): number {
    const n = this.attempt(() => {
      if (this._() === undefined || !this.lit("with") || this._() === undefined) return undefined;
      if (!this.lit("-limit") || this._() === undefined) return undefined;
      return this.UInt();
    });
    return n ?? 0;
  }

  protected FlexAssignments(): Assignment[] | undefined {
    const flex = () =>
      this.choice<Assignment>(
        () => this.Assignment(),
        () => {
          const rhs = this.Expr();
          return rhs === undefined ? undefined : { kind: "Assignment", lhs: null, rhs };
        },
      );
    const first = flex();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      this.__();
      if (!this.lit(",")) return undefined;
      this.__();
      return flex();
    });
    return [first, ...rest];
  }

  private AggAssignments(): Assignment[] | undefined {
    const one = () =>
      this.choice<Assignment>(
        () => {
          const lhs = this.Lval();
          if (lhs === undefined) return undefined;
          this.__();
          if (!this.lit(":=")) return undefined;
          this.__();
          const rhs = this.Agg();
          return rhs === undefined ? undefined : { kind: "Assignment", lhs, rhs };
        },
        () => {
          const rhs = this.Agg();
          return rhs === undefined ? undefined : { kind: "Assignment", lhs: null, rhs };
        },
      );
    const first = one();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      this.__();
      if (!this.lit(",")) return undefined;
      this.__();
      return one();
    });
    return [first, ...rest];
  }

  private Agg(): Agg | undefined {
    if (!this.not(() => this.FuncGuard())) return undefined;
    const name = this.choice<string>(
      () => this.IdentifierName(),
      () => this.AndToken(),
      () => this.OrToken(),
    );
    if (name === undefined) return undefined;
    this.__();
    if (!this.lit("(")) return undefined;
    this.__();
    const expr = this.opt(() => this.choice<Expr>(() => this.OverExpr(), () => this.Expr()));
    this.__();
    if (!this.lit(")")) return undefined;
    if (!this.not(() => this.__() && this.lit("."))) return undefined;
    const where = this.opt(() => this.WhereClause());
    return { kind: "Agg", name, expr, where };
  }

  // Keyword operators, in the order the reference tries them.

  private Operator(): Op | undefined {
    return this.choice<Op>(
      () => this.AssertOp(),
      () => this.SortOp(),
      () => this.TopOp(),
      () =>
        this.keywordArgs("cut", () => this.FlexAssignments(), (args) => ({ kind: "Cut", args })),
      () => this.keywordArgs("drop", () => this.FieldExprs(), (args) => ({ kind: "Drop", args })),
      () => this.countOp("head"),
      () => this.countOp("tail"),
      () => this.keywordArgs("where", () => this.Expr(), (expr) => ({ kind: "Where", expr })),
      () => this.UniqOp(),
      () => this.keywordArgs("put", () => this.Assignments(), (args) => ({ kind: "Put", args })),
      () => this.RenameOp(),
      () => this.bareOp("fuse", { kind: "Fuse" }),
      () => this.bareOp("shape", { kind: "Shape" }),
      () => this.JoinOp(),
      () => this.SampleOp(),
      () => this.SQLOp(),
      () => this.FromOp(),
      () => this.PassOp(),
      () => this.ExplodeOp(),
      () => this.keywordArgs("merge", () => this.Expr(), (expr) => ({ kind: "Merge", expr })),
      () => this.OverOp(),
      () => this.keywordArgs("yield", () => this.Exprs(), (exprs) => ({ kind: "Yield", exprs })),
    );
  }

  /** `keyword _ args`. */
  private keywordArgs<T>(
    word: string,
    args: () => T | undefined,
    make: (a: T) => Op,
  ): Op | undefined {
    if (!this.lit(word) || this._() === undefined) return undefined;
    const a = args();
    return a === undefined ? undefined : make(a);
  }

  /** `keyword !(__ "(") &EOKW` (fuse, shape: `fuse(` is the aggregate). */
  private bareOp(word: string, op: Op): Op | undefined {
    if (!this.lit(word)) return undefined;
    if (!this.not(() => this.__() && this.lit("("))) return undefined;
    return this.and(() => this.EOKW()) ? op : undefined;
  }

  private countOp(word: "head" | "tail"): Op | undefined {
    return this.choice<Op>(
      () => {
        if (!this.lit(word) || this._() === undefined) return undefined;
        const count = this.UInt();
        return count === undefined ? undefined : { kind: word === "head" ? "Head" : "Tail", count };
      },
      () => (this.lit(word) ? { kind: word === "head" ? "Head" : "Tail", count: 1 } : undefined),
    );
  }

  private AssertOp(): Op | undefined {
    if (!this.lit("assert") || this._() === undefined) return undefined;
    const start = this.pos;
    const cond = this.Expr();
    if (cond === undefined) return undefined;
    const text = this.text(start);
    return {
      kind: "Yield",
      exprs: [{
        kind: "Conditional",
        cond,
        then: ID_THIS,
        else: {
          kind: "Call",
          name: "error",
          args: [{
            kind: "RecordExpr",
            elems: [
              { kind: "Field", name: "message", value: primitive("string", "assertion failed") },
              { kind: "Field", name: "expr", value: primitive("string", text) },
              { kind: "Field", name: "on", value: ID_THIS },
            ],
          }],
          where: null,
        },
      }],
    };
  }

  private SortOp(): Op | undefined {
    if (!this.lit("sort") || !this.and(() => this.EOKW())) return undefined;
    const argsStart = this.pos;
    const args = this.star(() => {
      if (this._() === undefined) return undefined;
      return this.choice<[string, string | null]>(
        () => (this.lit("-r") ? ["r", null] : undefined),
        () => {
          if (!this.lit("-nulls") || this._() === undefined) return undefined;
          if (this.lit("first")) return ["nulls", "first"];
          if (this.lit("last")) return ["nulls", "last"];
          return undefined;
        },
      );
    });
    const list = this.opt(() => (this._() !== undefined ? this.Exprs() : undefined));
    const seen = new Set<string>();
    for (const [name] of args) {
      if (seen.has(name)) {
        // The reference reports the duplicate and then fails in the sort
        // action itself; both errors are printed raw.
        throw new RawParseError([
          [argsStart, `rule SortArgs: Duplicate argument -${name}`],
          [
            this.pos,
            "rule SortOp: interface conversion: interface {} is nil, not map[string]interface {}",
          ],
        ]);
      }
      seen.add(name);
    }
    const m = new Map(args);
    return {
      kind: "Sort",
      args: list,
      order: m.has("r") ? "desc" : "asc",
      nullsfirst: m.get("nulls") === "first",
    };
  }

  private TopOp(): Op | undefined {
    if (!this.lit("top") || !this.and(() => this.EOKW())) return undefined;
    const limit = this.opt(() => (this._() !== undefined ? this.UInt() : undefined));
    const flush = this.opt(() => (this._() !== undefined && this.lit("-flush")) || undefined);
    const fields = this.opt(() => (this._() !== undefined ? this.FieldExprs() : undefined));
    return { kind: "Top", limit: limit ?? 0, args: fields, flush: flush !== null };
  }

  private UniqOp(): Op | undefined {
    return this.choice<Op>(
      () => {
        if (!this.lit("uniq") || this._() === undefined || !this.lit("-c")) return undefined;
        return { kind: "Uniq", cflag: true };
      },
      () => (this.lit("uniq") ? { kind: "Uniq", cflag: false } : undefined),
    );
  }

  private RenameOp(): Op | undefined {
    if (!this.lit("rename") || this._() === undefined) return undefined;
    const first = this.Assignment();
    if (first === undefined) return undefined;
    const rest = this.star(() => {
      this.__();
      if (!this.lit(",")) return undefined;
      this.__();
      return this.Assignment();
    });
    return { kind: "Rename", args: [first, ...rest] };
  }

  private JoinOp(): Op | undefined {
    const style = this.choice<Join["style"]>(
      () => (this.lit("anti") && this._() ? "anti" : undefined),
      () => (this.lit("inner") && this._() ? "inner" : undefined),
      () => (this.lit("left") && this._() ? "left" : undefined),
      () => (this.lit("right") && this._() ? "right" : undefined),
      () => "inner",
    )!;
    if (!this.lit("join") || this._() === undefined) return undefined;
    if (!this.litI("on") || this._() === undefined) return undefined;
    const key = this.JoinKey();
    if (key === undefined) return undefined;
    const right = this.opt(() => {
      this.__();
      if (!this.lit("=")) return undefined;
      this.__();
      return this.JoinKey();
    });
    const args = this.opt(() => (this._() !== undefined ? this.FlexAssignments() : undefined));
    return { kind: "Join", style, left_key: key, right_key: right ?? key, args };
  }

  protected JoinKey(): Expr | undefined {
    return this.choice<Expr>(
      () => this.Lval(),
      () => {
        if (!this.lit("(")) return undefined;
        const e = this.Expr();
        return e !== undefined && this.lit(")") ? e : undefined;
      },
    );
  }

  private SampleOp(): Op | undefined {
    if (!this.lit("sample") || !this.and(() => this.EOKW())) return undefined;
    const e = this.choice<Expr>(
      () => (this._() !== undefined ? this.Lval() : undefined),
      () => ID_THIS,
    )!;
    return {
      kind: "Sequential",
      consts: [],
      ops: [
        {
          kind: "Summarize",
          keys: [{
            kind: "Assignment",
            lhs: { kind: "ID", name: "shape" },
            rhs: { kind: "Call", name: "typeof", args: [e], where: null },
          }],
          aggs: [{
            kind: "Assignment",
            lhs: { kind: "ID", name: "sample" },
            rhs: { kind: "Agg", name: "any", expr: e, where: null },
          }],
          limit: 0,
        },
        { kind: "Yield", exprs: [{ kind: "ID", name: "sample" }] },
      ],
    };
  }

  private FromOp(): Op | undefined {
    const source = this.choice<Source>(
      () => this.File(),
      () => this.Get(),
      () => (this.lit("from") && this._() ? this.PoolBody() : undefined),
    );
    if (source === undefined) return undefined;
    return { kind: "From", trunks: [{ kind: "Trunk", source, seq: null }] };
  }

  private ExplodeOp(): Op | undefined {
    if (!this.lit("explode") || this._() === undefined) return undefined;
    const args = this.Exprs();
    if (args === undefined) return undefined;
    if (this._() === undefined || !this.litI("by") || this._() === undefined) return undefined;
    const type = this.Type();
    if (type === undefined) return undefined;
    const as = this.opt(() => {
      if (this._() === undefined || !this.litI("as") || this._() === undefined) return undefined;
      return this.Lval();
    });
    return { kind: "Explode", args, as, type };
  }

  private OverOp(): Op | undefined {
    if (!this.lit("over") || this._() === undefined) return undefined;
    const exprs = this.Exprs();
    if (exprs === undefined) return undefined;
    const locals = this.opt(() => this.Locals());
    const scope = this.opt(() => {
      this.__();
      if (!this.lit("=>")) return undefined;
      this.__();
      if (!this.lit("(")) return undefined;
      this.__();
      const seq = this.Sequential();
      if (seq === undefined) return undefined;
      this.__();
      return this.lit(")") ? seq : undefined;
    });
    const over = { kind: "Over" as const, exprs, scope };
    return locals === null ? over : { kind: "Let", locals, over };
  }

  /** start = __ Sequential __ EOF */
  protected start(): Sequential | undefined {
    this.__();
    const seq = this.Sequential();
    if (seq === undefined) return undefined;
    this.__();
    return this.EOF() ? seq : undefined;
  }
}
