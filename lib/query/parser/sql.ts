// The SQL-compatible SELECT operator's rules (language.md §3.23).

import type { Assignment, Expr, Op, SQLExpr, SQLJoin } from "../ast.ts";
import { Search } from "./search.ts";

export abstract class SQL extends Search {
  protected abstract JoinKey(): Expr | undefined;

  /** `_ WORD _` with a case-insensitive word. */
  private word(w: string): true | undefined {
    if (this._() === undefined || !this.litI(w) || this._() === undefined) return undefined;
    return true;
  }

  protected SQLOp(): Op | undefined {
    const select = this.SQLSelect();
    if (select === undefined) return undefined;
    const from = this.opt(() => this.SQLFrom());
    const joins = this.opt(() => this.plus(() => this.SQLJoin()));
    const where = this.opt(() => (this.word("where") ? this.LogicalOrExpr() : undefined));
    const group_by = this.opt(() =>
      this.word("group") && this.litI("by") && this._() ? this.FieldExprs() : undefined
    );
    const having = this.opt(() => (this.word("having") ? this.LogicalOrExpr() : undefined));
    const order_by = this.opt(() => {
      if (!this.word("order") || !this.litI("by") || this._() === undefined) return undefined;
      const keys = this.Exprs();
      if (keys === undefined) return undefined;
      const order = this.attempt(() =>
        this._() && (this.litI("asc") ? "asc" : this.litI("desc") ? "desc" : undefined)
      ) ?? "asc";
      return { kind: "SQLOrderBy" as const, keys, order: order as "asc" | "desc" };
    });
    const limit = this.attempt(() => (this.word("limit") ? this.UInt() : undefined)) ?? 0;
    const op: SQLExpr = {
      kind: "SQLExpr",
      select,
      from: from ?? null,
      joins,
      where,
      group_by,
      having,
      order_by,
      limit,
    };
    return op;
  }

  private SQLSelect(): Assignment[] | null | undefined {
    return this.choice<Assignment[] | null>(
      () => (this.litI("select") && this._() && this.lit("*") ? null : undefined),
      () => {
        if (!this.litI("select") || this._() === undefined) return undefined;
        const first = this.SQLAssignment();
        if (first === undefined) return undefined;
        const rest = this.star(() => {
          this.__();
          if (!this.lit(",")) return undefined;
          this.__();
          return this.SQLAssignment();
        });
        return [first, ...rest];
      },
    );
  }

  private SQLAssignment(): Assignment | undefined {
    const rhs = this.Expr();
    if (rhs === undefined) return undefined;
    const lhs = this.opt(() => (this.word("as") ? this.Lval() : undefined));
    return { kind: "Assignment", lhs, rhs };
  }

  private SQLFrom(): SQLExpr["from"] | undefined {
    return this.choice<SQLExpr["from"]>(
      () => {
        if (!this.word("from")) return undefined;
        const table = this.Expr();
        if (table === undefined) return undefined;
        const alias = this.opt(() => this.SQLAlias());
        return { table, alias };
      },
      () => (this.word("from") && this.lit("*") ? null : undefined),
    );
  }

  private SQLAlias(): Expr | undefined {
    return this.choice<Expr>(
      () => (this.word("as") ? this.Lval() : undefined),
      () => {
        if (this._() === undefined) return undefined;
        const guard = () => this.SQLTokenSentinels() !== undefined && this._() !== undefined;
        if (!this.not(guard)) return undefined;
        return this.Lval();
      },
    );
  }

  private SQLJoin(): SQLJoin | undefined {
    const style = this.choice<string>(
      () => {
        if (this._() === undefined) return undefined;
        for (const s of ["anti", "inner", "left", "right"]) if (this.litI(s)) return s;
        return undefined;
      },
      () => "inner",
    )!;
    if (!this.word("join")) return undefined;
    const table = this.Expr();
    if (table === undefined) return undefined;
    const alias = this.opt(() => this.SQLAlias());
    if (!this.word("on")) return undefined;
    const left_key = this.JoinKey();
    if (left_key === undefined) return undefined;
    this.__();
    if (!this.lit("=")) return undefined;
    this.__();
    const right_key = this.JoinKey();
    if (right_key === undefined) return undefined;
    return { table, style, left_key, right_key, alias };
  }
}
