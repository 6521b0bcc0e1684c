// parse_zson (language.md §6): the first ZSON (or JSON) value in a string.

import { Analyzer } from "../../formats/zson/analyzer.ts";
import { Parser } from "../../formats/zson/parser.ts";
import { messageOf } from "../../errors.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import { TypeString, typeUnder } from "../../zed/types.ts";
import { errorValue, NULL } from "../runtime/values.ts";
import { unary } from "./define.ts";
import { ContextBindings } from "./types.ts";

unary("parse_zson", (a) => {
  if (typeUnder(a.type) !== TypeString) return errorValue("parse_zson: string arg required");
  if (a.body === null) return NULL;
  const s = a.body as string;
  const parser = new Parser();
  parser.reset(s, 0, true);
  let ast;
  try {
    ast = parser.parseValue();
  } catch (e) {
    return errorValue(`parse_zson: parse error: ${messageOf(e)} (${quoteGoString(s)})`);
  }
  if (ast === null) return NULL;
  try {
    return new Analyzer(new ContextBindings()).value(ast);
  } catch (e) {
    return errorValue(`parse_zson: semantic error: ${messageOf(e)} (${quoteGoString(s)})`);
  }
});
