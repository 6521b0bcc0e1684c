// The ZSON parser: text to the syntax tree of ast.ts. It tries the value forms
// in the reference's order (record, array, set or map, type value, primitive,
// error, enum), then any decorators, and uses the reference's error texts
// (zson/parser*.go). Where the reference silently stops at the end of the
// input in the middle of a value, this parser reports the missing closer.

import { invalid } from "../../errors.ts";
import { lookupPrimitive, TypeString } from "../../zed/types.ts";
import {
  type AstAny,
  AstArray,
  AstEnum,
  AstError,
  AstMap,
  AstPrimitive,
  AstRecord,
  AstSet,
  type AstType,
  AstTypeValue,
  type AstValue,
  CastValue,
  DefValue,
  ImpliedValue,
  TypeArrayAst,
  TypeDefAst,
  TypeEnumAst,
  TypeErrorAst,
  TypeMapAst,
  TypeNameAst,
  TypePrimitiveAst,
  TypeRecordAst,
  TypeSetAst,
  TypeUnionAst,
} from "./ast.ts";
import { Lexer } from "./lexer.ts";
import { NeedMore } from "../io.ts";

const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LPAREN = 0x28;
const RPAREN = 0x29;
const PIPE = 0x7c;
const LT = 0x3c;
const GT = 0x3e;
const QUOTE = 0x22;
const BACKTICK = 0x60;
const EQUALS = 0x3d;
const COLON = 0x3a;
const COMMA = 0x2c;
const PERCENT = 0x25;

const STRING_LITERAL = "parse error: string literal: ";

function parseError(msg: string): Error {
  return invalid("parse error: " + msg);
}

function quote(s: string): string {
  return JSON.stringify(s);
}

export class Parser {
  readonly lx = new Lexer();

  /** Parses from text at pos; eof says whether text ends where the input does. */
  reset(text: string, pos: number, eof: boolean): void {
    this.lx.reset(text, pos, eof);
  }

  get pos(): number {
    return this.lx.pos;
  }

  /** Whether only space and comments remain. */
  atEnd(): boolean {
    return this.lx.peek() < 0;
  }

  /**
   * The next value (with its decorators), or null at the end of the input.
   * Text that starts no value is `ZSON syntax error`.
   */
  parseValue(): AstValue | null {
    const v = this.matchValue();
    if (v === null && this.lx.pos < this.lx.end) throw invalid("ZSON syntax error");
    return v;
  }

  /** A type, or `parse error: couldn't parse type`. */
  parseType(): AstType {
    const t = this.matchType();
    if (t === null) throw parseError("couldn't parse type");
    return t;
  }

  private matchValue(): AstValue | null {
    const lx = this.lx;
    let any: AstAny | null;
    switch (lx.peek()) {
      case -1:
        return null;
      case LBRACE:
        lx.pos++;
        any = this.record();
        break;
      case LBRACKET:
        lx.pos++;
        any = new AstArray(this.valueList());
        if (!lx.match(RBRACKET)) throw parseError("mismatched brackets while parsing array type");
        break;
      case PIPE:
        lx.pos++;
        any = this.setOrMap();
        break;
      case LT:
        lx.pos++;
        any = new AstTypeValue(this.parseType());
        if (!lx.match(GT)) throw parseError("mismatched parentheses while parsing type value");
        break;
      case QUOTE:
        lx.pos++;
        any = new AstPrimitive(TypeString, lx.scanString(STRING_LITERAL), undefined);
        break;
      case BACKTICK:
        lx.pos++;
        any = new AstPrimitive(TypeString, lx.scanBacktick(false), undefined);
        break;
      case EQUALS:
        if (!lx.atArrow()) return null;
        lx.pos += 2;
        if (!lx.match(BACKTICK)) throw invalid("no backtick found following '=>'");
        any = new AstPrimitive(TypeString, lx.scanBacktick(true), undefined);
        break;
      default:
        any = lx.scanPrimitive() ?? this.matchError() ?? this.matchEnum();
        if (any === null) return null;
    }
    return this.decorate(any);
  }

  private decorate(any: AstAny): AstValue {
    const lx = this.lx;
    if (!lx.match(LPAREN)) return new ImpliedValue(any);
    let val = this.decorator(any, null);
    while (lx.match(LPAREN)) val = this.decorator(null, val);
    return val;
  }

  /**
   * The decorator after `(`. The first one applies to the bare value `any`,
   * later ones to `val`; a later `(=name)` gets no value, as in the reference.
   */
  private decorator(any: AstAny | null, val: AstValue | null): AstValue {
    const lx = this.lx;
    let out: AstValue;
    if (lx.match(EQUALS)) {
      let name = "";
      try {
        name = lx.scanTypeName();
      } catch (e) {
        if (e instanceof NeedMore) throw e;
      }
      if (name === "") throw parseError("bad short-form type definition");
      out = new DefValue(any, name);
    } else {
      const type = this.parseType();
      out = new CastValue(any !== null ? new ImpliedValue(any) : val!, type);
    }
    if (!lx.match(RPAREN)) throw parseError("mismatched parentheses while parsing type decorator");
    return out;
  }

  private record(): AstRecord {
    const lx = this.lx;
    const names: string[] = [];
    const values: (AstValue | null)[] = [];
    let seen: Set<string> | null = null;
    for (;;) {
      const name = this.matchSymbol();
      if (name === null) break;
      if (!lx.match(COLON)) throw parseError(`no type name found for field ${quote(name)}`);
      const v = this.parseValue();
      // The first of duplicate fields wins.
      if (names.length < 16) {
        if (names.indexOf(name) < 0) {
          names.push(name);
          values.push(v);
        }
      } else {
        if (seen === null) seen = new Set(names);
        if (!seen.has(name)) {
          seen.add(name);
          names.push(name);
          values.push(v);
        }
      }
      if (!lx.match(COMMA)) break;
    }
    if (!lx.match(RBRACE)) throw parseError("mismatched braces while parsing record type");
    return new AstRecord(names, values);
  }

  /** A field name or enum symbol: a quoted string or an identifier, else null. */
  private matchSymbol(): string | null {
    const lx = this.lx;
    if (lx.match(QUOTE)) return lx.scanString(STRING_LITERAL);
    const id = lx.scanIdentifier();
    return id === "" ? null : id;
  }

  private valueList(): AstValue[] {
    const vals: AstValue[] = [];
    for (;;) {
      const v = this.matchValue();
      if (v === null) break;
      vals.push(v);
      if (!this.lx.match(COMMA)) break;
    }
    return vals;
  }

  private setOrMap(): AstAny {
    const lx = this.lx;
    let val: AstAny;
    let which: string;
    if (lx.matchTight(LBRACKET)) {
      which = "set";
      val = new AstSet(this.valueList());
      if (!lx.match(RBRACKET)) throw parseError("mismatched set value brackets");
    } else if (lx.matchTight(LBRACE)) {
      which = "map";
      val = this.mapEntries();
      if (!lx.match(RBRACE)) throw parseError("mismatched map value brackets");
    } else {
      throw parseError("no '|[' or '|{' type bracket at '|' character");
    }
    if (!lx.matchTight(PIPE)) {
      throw parseError(`mismatched closing bracket while parsing ${which} value`);
    }
    return val;
  }

  private mapEntries(): AstMap {
    const lx = this.lx;
    const keys: AstValue[] = [];
    const values: (AstValue | null)[] = [];
    for (;;) {
      const key = this.matchValue();
      if (key === null) break;
      if (!lx.match(COLON)) {
        throw parseError("no colon found after map key while parsing map entry");
      }
      keys.push(key);
      values.push(this.parseValue());
      if (!lx.match(COMMA)) break;
    }
    return new AstMap(keys, values);
  }

  /** `error(value)`; anything else leaves the cursor where it was. */
  private matchError(): AstError | null {
    const lx = this.lx;
    const start = lx.pos;
    if (lx.scanIdentifier() === "error" && lx.match(LPAREN)) {
      const v = this.matchValue();
      if (lx.match(RPAREN)) return new AstError(v);
    }
    lx.pos = start;
    return null;
  }

  /** `%symbol` (identifier symbols only, as in the reference). */
  private matchEnum(): AstEnum | null {
    const lx = this.lx;
    if (lx.peek() !== PERCENT) return null;
    const start = lx.pos++;
    const name = lx.scanIdentifier();
    if (name === "") {
      lx.pos = start;
      return null;
    }
    return new AstEnum(name);
  }

  // Types.

  private matchType(): AstType | null {
    const lx = this.lx;
    const c = lx.peek();
    if (c < 0) return null;
    if (lx.atTypeNameStart()) return this.typeName();
    switch (c) {
      case LBRACE:
        lx.pos++;
        return this.recordType();
      case LBRACKET: {
        lx.pos++;
        const elem = this.parseType();
        if (!lx.match(RBRACKET)) throw parseError("mismatched brackets while parsing array type");
        return new TypeArrayAst(elem);
      }
      case PIPE:
        lx.pos++;
        return this.setOrMapType();
      case LPAREN:
        lx.pos++;
        return this.unionType();
    }
    return null;
  }

  private typeName(): AstType {
    const lx = this.lx;
    const name = lx.scanTypeName();
    if (name === "error") {
      if (!lx.match(LPAREN)) throw invalid("no opening parenthesis in error type");
      const inner = this.matchType();
      if (!lx.match(RPAREN)) throw parseError("mismatched parentheses while parsing error type");
      return new TypeErrorAst(inner);
    }
    if (name === "enum") {
      if (!lx.match(LPAREN)) throw invalid("no opening parenthesis in enum type");
      const symbols = this.enumSymbols();
      if (!lx.match(RPAREN)) throw parseError("mismatched parentheses while parsing enum type");
      return new TypeEnumAst(symbols);
    }
    const prim = lookupPrimitive(name);
    if (prim !== undefined) return new TypePrimitiveAst(prim);
    if (lx.match(EQUALS)) return new TypeDefAst(name, this.parseType());
    return new TypeNameAst(name);
  }

  /** Symbols separated by commas; a trailing comma drops them all, as in the reference. */
  private enumSymbols(): string[] {
    const symbols: string[] = [];
    for (;;) {
      const s = this.matchSymbol();
      if (s === null) return [];
      symbols.push(s);
      if (!this.lx.match(COMMA)) return symbols;
    }
  }

  private recordType(): AstType {
    const lx = this.lx;
    const names: string[] = [];
    const types: AstType[] = [];
    for (;;) {
      const name = this.matchSymbol();
      if (name === null) break;
      if (!lx.match(COLON)) throw parseError(`no type name found for field ${quote(name)}`);
      names.push(name);
      types.push(this.parseType());
      if (!lx.match(COMMA)) break;
    }
    if (!lx.match(RBRACE)) throw parseError("mismatched braces while parsing record type");
    return new TypeRecordAst(names, types);
  }

  private setOrMapType(): AstType {
    const lx = this.lx;
    let t: AstType;
    let which: string;
    if (lx.matchTight(LBRACKET)) {
      which = "set";
      t = new TypeSetAst(this.parseType());
      if (!lx.match(RBRACKET)) throw parseError("mismatched set-brackets while parsing set type");
    } else if (lx.matchTight(LBRACE)) {
      which = "map";
      const key = this.parseType();
      if (!lx.match(COLON)) throw parseError("value type missing while parsing map type");
      t = new TypeMapAst(key, this.parseType());
      if (!lx.match(RBRACE)) throw parseError("mismatched set-brackets while parsing map type");
    } else {
      throw parseError("no '|[' or '|{' type token at '|' character");
    }
    if (!lx.matchTight(PIPE)) {
      throw parseError(`mismatched closing bracket while parsing type ${quote(which)}`);
    }
    return t;
  }

  private unionType(): AstType {
    const lx = this.lx;
    const types: AstType[] = [];
    for (;;) {
      const t = this.matchType();
      if (t === null) break;
      types.push(t);
      if (!lx.match(COMMA)) break;
    }
    if (types.length < 2) throw parseError("type list not found parsing union type at '('");
    if (!lx.match(RPAREN)) throw parseError("mismatched parentheses while parsing union type");
    return new TypeUnionAst(types);
  }
}
