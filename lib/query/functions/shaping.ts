// The shaping functions cast, crop, fill, fit, order and shape (language.md
// §4.14 and §6). Each takes (value, type) or just (type), which shapes `this`.

import { CAST, compileShaper, CROP, FILL, ORDER } from "../expr/shaper.ts";
import type { Expr } from "../runtime/expr.ts";
import type { CallInfo } from "./registry.ts";
import { define, thisExpr } from "./define.ts";

function shaping(name: string, transforms: number): void {
  define(name, {
    min: 1,
    max: 2,
    compile(args: Expr[], info: CallInfo): Expr {
      if (args.length === 1) return compileShaper(transforms, thisExpr, args[0], info.consts[0]);
      return compileShaper(transforms, args[0], args[1], info.consts[1]);
    },
  });
}

shaping("cast", CAST);
shaping("crop", CROP);
shaping("fill", FILL);
shaping("fit", CROP | FILL);
shaping("order", ORDER);
shaping("shape", CAST | FILL | ORDER);
