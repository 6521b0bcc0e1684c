// Entries of a fixed number of values (a sort's keys and value, say),
// written to spill files one after another.

import type { Value } from "../../zed/value.ts";
import type { ValueIn, ValueOut } from "./file.ts";
import type { EntryCodec } from "./merge.ts";

export function tupleCodec(width: number): EntryCodec<Value[]> {
  return {
    read(r: ValueIn): Value[] | undefined {
      const first = r.next();
      if (first === undefined) return undefined;
      const t = new Array<Value>(width);
      t[0] = first;
      for (let i = 1; i < width; i++) {
        const v = r.next();
        if (v === undefined) throw new Error("spill file ends inside an entry");
        t[i] = v;
      }
      return t;
    },
    write(w: ValueOut, t: Value[]): void {
      for (let i = 0; i < width; i++) w.write(t[i]);
    },
  };
}
