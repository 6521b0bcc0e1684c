// compare(a, b [, nullsMax]): -1, 0 or 1 in the total value order of
// language.md §9.1; nulls sort last unless nullsMax is false.

import { compareValues } from "../../zed/compare.ts";
import { TypeBool, TypeInt64, typeUnder } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import { errorOn } from "../runtime/values.ts";
import { variadic } from "./define.ts";

const results = [new Value(TypeInt64, -1), new Value(TypeInt64, 0), new Value(TypeInt64, 1)];

variadic("compare", 2, 3, (args) => {
  let nullsMax = true;
  if (args.length === 3) {
    const n = args[2];
    if (typeUnder(n.type) !== TypeBool) return errorOn("compare: nullsMax arg is not bool", n);
    nullsMax = n.body === true;
  }
  const [a, b] = args;
  const c = compareValues(a.type, a.body, b.type, b.body, nullsMax);
  return results[c < 0 ? 0 : c > 0 ? 2 : 1];
});
