// The syntax tree of ZSON text, before type analysis. Values carry their
// decorators as wrappers (ImpliedValue, DefValue, CastValue) exactly as the
// reference parser nests them; the analyzer (analyzer.ts) gives everything its
// type. The query language reuses these nodes for literals and type syntax.

import type { PrimitiveType } from "../../zed/types.ts";
import type { Body } from "../../zed/value.ts";

export enum AstKind {
  // Value wrappers: how a value is decorated.
  Implied,
  Def,
  Cast,
  // Undecorated values.
  Primitive,
  Record,
  Array,
  Set,
  Map,
  Enum,
  TypeValue,
  Error,
}

/** A value with no decorator. */
export class ImpliedValue {
  readonly kind = AstKind.Implied;
  constructor(readonly of: AstAny) {}
}

/**
 * A value followed by `(=name)`. `of` is null when the short form follows
 * another decorator, which the reference parses but cannot analyze.
 */
export class DefValue {
  readonly kind = AstKind.Def;
  constructor(readonly of: AstAny | null, readonly name: string) {}
}

/** A value followed by `(type)`; chains of decorators nest left to right. */
export class CastValue {
  readonly kind = AstKind.Cast;
  constructor(readonly of: AstValue, readonly type: AstType) {}
}

export type AstValue = ImpliedValue | DefValue | CastValue;

/**
 * A primitive literal: its syntactic type and text (for strings, the decoded
 * text). `body` is filled in when the parser already computed it.
 */
export class AstPrimitive {
  readonly kind = AstKind.Primitive;
  constructor(
    readonly type: PrimitiveType,
    readonly text: string,
    readonly body: Body | undefined,
  ) {}
}

/** Field values are null only when the input ended in the middle of a field. */
export class AstRecord {
  readonly kind = AstKind.Record;
  constructor(readonly names: string[], readonly values: (AstValue | null)[]) {}
}

export class AstArray {
  readonly kind = AstKind.Array;
  constructor(readonly elems: AstValue[]) {}
}

export class AstSet {
  readonly kind = AstKind.Set;
  constructor(readonly elems: AstValue[]) {}
}

export class AstMap {
  readonly kind = AstKind.Map;
  constructor(readonly keys: AstValue[], readonly values: (AstValue | null)[]) {}
}

/** `%symbol` */
export class AstEnum {
  readonly kind = AstKind.Enum;
  constructor(readonly name: string) {}
}

/** `<type>` */
export class AstTypeValue {
  readonly kind = AstKind.TypeValue;
  constructor(readonly type: AstType) {}
}

/** `error(value)`; value is null for `error()`, which the analyzer rejects. */
export class AstError {
  readonly kind = AstKind.Error;
  constructor(readonly value: AstValue | null) {}
}

export type AstAny =
  | AstPrimitive
  | AstRecord
  | AstArray
  | AstSet
  | AstMap
  | AstEnum
  | AstTypeValue
  | AstError;

// Types.

export enum TypeAstKind {
  Primitive,
  /** A reference to a bound name. */
  Name,
  /** `name=type` */
  Def,
  Record,
  Array,
  Set,
  Map,
  Union,
  Enum,
  Error,
}

export class TypePrimitiveAst {
  readonly kind = TypeAstKind.Primitive;
  constructor(readonly type: PrimitiveType) {}
}

export class TypeNameAst {
  readonly kind = TypeAstKind.Name;
  constructor(readonly name: string) {}
}

export class TypeDefAst {
  readonly kind = TypeAstKind.Def;
  constructor(readonly name: string, readonly type: AstType) {}
}

export class TypeRecordAst {
  readonly kind = TypeAstKind.Record;
  constructor(readonly names: string[], readonly types: AstType[]) {}
}

export class TypeArrayAst {
  readonly kind = TypeAstKind.Array;
  constructor(readonly elem: AstType) {}
}

export class TypeSetAst {
  readonly kind = TypeAstKind.Set;
  constructor(readonly elem: AstType) {}
}

export class TypeMapAst {
  readonly kind = TypeAstKind.Map;
  constructor(readonly key: AstType, readonly value: AstType) {}
}

export class TypeUnionAst {
  readonly kind = TypeAstKind.Union;
  constructor(readonly types: AstType[]) {}
}

export class TypeEnumAst {
  readonly kind = TypeAstKind.Enum;
  constructor(readonly symbols: string[]) {}
}

/** `error(type)`; inner is null for `error()`, which the analyzer rejects. */
export class TypeErrorAst {
  readonly kind = TypeAstKind.Error;
  constructor(readonly inner: AstType | null) {}
}

export type AstType =
  | TypePrimitiveAst
  | TypeNameAst
  | TypeDefAst
  | TypeRecordAst
  | TypeArrayAst
  | TypeSetAst
  | TypeMapAst
  | TypeUnionAst
  | TypeEnumAst
  | TypeErrorAst;
