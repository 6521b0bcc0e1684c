// union: the distinct non-null values as a set (normalized order); a union
// element type when the values' types differ.

import { checkAggregate } from "../runtime/limits.ts";
import { zctx } from "../../zed/context.ts";
import { normalizeSet } from "../../zed/normalize.ts";
import type { Type } from "../../zed/types.ts";
import { type Body, UnionBody, Value } from "../../zed/value.ts";
import { NULL } from "../runtime/values.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";
import { bodyText } from "./value-key.ts";
import { bodySize } from "../spill/size.ts";

class Union implements Aggregator {
  /** Per type, its distinct bodies keyed by their text. */
  private byType = new Map<Type, Map<string, Body>>();
  private bytes = 0;
  private count = 0;

  consume(v: Value): void {
    if (v.body === null) return;
    let bodies = this.byType.get(v.type);
    if (bodies === undefined) this.byType.set(v.type, bodies = new Map());
    const key = bodyText(v.type, v.body);
    if (!bodies.has(key)) {
      bodies.set(key, v.body);
      this.bytes += 40 + key.length + bodySize(v.body);
      checkAggregate(++this.count, this.bytes);
    }
  }

  save(out: Value[]): void {
    for (const [t, bodies] of this.byType) {
      for (const b of bodies.values()) out.push(new Value(t, b));
    }
  }

  restore(state: readonly Value[]): void {
    for (const v of state) this.consume(v);
  }

  size(): number {
    return this.bytes;
  }

  result(): Value {
    if (this.byType.size === 0) return NULL;
    if (this.byType.size === 1) {
      const [[t, bodies]] = this.byType;
      return new Value(zctx.lookupSet(t), normalizeSet(t, [...bodies.values()]));
    }
    const union = zctx.lookupUnion([...this.byType.keys()]);
    const elems: Body[] = [];
    for (const [t, bodies] of this.byType) {
      const tag = union.tagOf(t);
      for (const b of bodies.values()) elems.push(new UnionBody(tag, b));
    }
    return new Value(zctx.lookupSet(union), normalizeSet(union, elems));
  }
}

registerAggregate("union", {
  min: 1,
  max: 1,
  make: () => new Union(),
  mergeable: true,
  grows: true,
});
