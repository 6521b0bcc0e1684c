// The abstract syntax tree of a Zed query. Node shapes follow the reference
// parser's AST (kind names and fields), so the semantic pass reads like the
// language reference and the tree can be compared with the reference's.

// deno-lint-ignore-file no-explicit-any

export interface Sequential {
  kind: "Sequential";
  ops: Op[];
  consts: Decl[];
}

/** A `const` or `type` declaration at the head of a sequence. */
export interface Decl {
  name: string;
  expr: Expr;
}

export type Op =
  | Sequential
  | { kind: "Parallel"; ops: Sequential[] }
  | { kind: "Switch"; expr: Expr | null; cases: SwitchCase[] }
  | { kind: "From"; trunks: Trunk[] }
  | { kind: "OpAssignment"; assignments: Assignment[] }
  | Summarize
  | { kind: "Search"; expr: Expr }
  | { kind: "OpExpr"; expr: Expr }
  | { kind: "Yield"; exprs: Expr[] }
  | { kind: "Sort"; args: Expr[] | null; order: "asc" | "desc"; nullsfirst: boolean }
  | { kind: "Top"; limit: number; args: Expr[] | null; flush: boolean }
  | { kind: "Cut"; args: Assignment[] }
  | { kind: "Drop"; args: Expr[] }
  | { kind: "Head"; count: number }
  | { kind: "Tail"; count: number }
  | { kind: "Where"; expr: Expr }
  | { kind: "Uniq"; cflag: boolean }
  | { kind: "Put"; args: Assignment[] }
  | { kind: "Rename"; args: Assignment[] }
  | { kind: "Fuse" }
  | { kind: "Shape" }
  | Join
  | { kind: "Pass" }
  | { kind: "Explode"; args: Expr[]; as: Expr | null; type: TypeNode }
  | { kind: "Merge"; expr: Expr }
  | Over
  | { kind: "Let"; locals: Local[]; over: Over }
  | SQLExpr;

export interface Summarize {
  kind: "Summarize";
  keys: Assignment[] | null;
  aggs: Assignment[] | null;
  limit: number;
}

export interface SwitchCase {
  expr: Expr | null;
  op: Sequential;
}

export interface Trunk {
  kind: "Trunk";
  source: Source;
  seq: Sequential | null;
}

export type Source = PoolSource | FileSource | HTTPSource | { kind: "Pass" };

export interface PoolSource {
  kind: "Pool";
  spec: {
    pool: PoolName | null;
    commit: string | null;
    meta: string | null;
    /** A meta-query's arguments (loch's `:conflicts(child, parent)`). */
    meta_args?: string[];
  };
  at: string | null;
  range: { kind: "Range"; lower: Expr; upper: Expr } | null;
  scan_order: "asc" | "desc" | null;
  /** `diff A B` (loch's): what changed between two commits or branches. */
  diff?: [string, string];
}

export type PoolName =
  | { kind: "Glob"; pattern: string }
  | { kind: "Regexp"; pattern: string }
  | { kind: "String"; text: string };

export interface Layout {
  kind: "Layout";
  keys: Expr[];
  order: "asc" | "desc";
}

export interface FileSource {
  kind: "File";
  path: string;
  format: string | null;
  layout: Layout | null;
}

export interface HTTPSource {
  kind: "HTTP";
  url: string;
  format: string | null;
  layout: Layout | null;
}

export interface Join {
  kind: "Join";
  style: "anti" | "inner" | "left" | "right";
  left_key: Expr;
  right_key: Expr;
  args: Assignment[] | null;
}

export interface Over {
  kind: "Over";
  exprs: Expr[];
  scope: Sequential | null;
}

export interface Local {
  name: string;
  expr: Expr;
}

export interface SQLExpr {
  kind: "SQLExpr";
  select: Assignment[] | null;
  from: { table: Expr; alias: Expr | null } | null;
  joins: SQLJoin[] | null;
  where: Expr | null;
  group_by: Expr[] | null;
  having: Expr | null;
  order_by: { kind: "SQLOrderBy"; keys: Expr[]; order: "asc" | "desc" } | null;
  limit: number;
}

export interface SQLJoin {
  table: Expr;
  style: string;
  left_key: Expr;
  right_key: Expr;
  alias: Expr | null;
}

export interface Assignment {
  kind: "Assignment";
  lhs: Expr | null;
  rhs: Expr;
}

export type Expr =
  | BinaryExpr
  | { kind: "UnaryExpr"; op: "!" | "-"; operand: Expr }
  | { kind: "Conditional"; cond: Expr; then: Expr; else: Expr }
  | Call
  | Agg
  | { kind: "Cast"; expr: Expr; type: TypeValue }
  | { kind: "Grep"; pattern: Pattern; expr: Expr }
  | ID
  | Primitive
  | TypeValue
  | { kind: "Term"; text: string; value: Expr }
  | { kind: "Glob"; pattern: string }
  | { kind: "Regexp"; pattern: string }
  | { kind: "RecordExpr"; elems: RecordElem[] }
  | { kind: "ArrayExpr"; elems: VectorElem[] }
  | { kind: "SetExpr"; elems: VectorElem[] }
  | { kind: "MapExpr"; entries: { key: Expr; value: Expr }[] }
  | { kind: "OverExpr"; locals: Local[] | null; exprs: Expr[]; scope: Sequential };

export interface BinaryExpr {
  kind: "BinaryExpr";
  op: string;
  lhs: Expr;
  /** Null only for the missing bound of a slice (op ":"). */
  rhs: Expr;
}

export interface Call {
  kind: "Call";
  name: string;
  args: Expr[];
  where: Expr | null;
}

export interface Agg {
  kind: "Agg";
  name: string;
  expr: Expr | null;
  where: Expr | null;
}

export interface ID {
  kind: "ID";
  name: string;
}

export interface Primitive {
  kind: "Primitive";
  type: string;
  text: string;
}

export interface TypeValue {
  kind: "TypeValue";
  value: TypeNode;
}

export type Pattern =
  | { kind: "Glob"; pattern: string }
  | { kind: "Regexp"; pattern: string }
  | { kind: "String"; text: string };

export type RecordElem =
  | { kind: "Spread"; expr: Expr }
  | { kind: "Field"; name: string; value: Expr }
  | ID;

export type VectorElem = { kind: "Spread"; expr: Expr } | { kind: "VectorValue"; expr: Expr };

export type TypeNode =
  | { kind: "TypePrimitive"; name: string }
  | { kind: "TypeName"; name: string }
  | { kind: "TypeDef"; name: string; type: TypeNode }
  | { kind: "TypeRecord"; fields: { name: string; type: TypeNode }[] | null }
  | { kind: "TypeArray"; type: TypeNode }
  | { kind: "TypeSet"; type: TypeNode }
  | { kind: "TypeMap"; key_type: TypeNode; val_type: TypeNode }
  | { kind: "TypeUnion"; types: TypeNode[] }
  | TypeValue;

/** Any node, for generic walks. */
export type AnyNode = { kind: string; [field: string]: any };
