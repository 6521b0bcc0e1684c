// count and dcount.

import { TypeString, TypeUint64, underId } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";
import { untaggedText } from "./value-key.ts";

/** Counts every value offered (nulls and errors too). */
class Count implements Aggregator {
  private n = 0;
  consume(_v: Value): void {
    this.n++;
  }
  consumeN(_v: Value, n: number): void {
    this.n += n;
  }
  result(): Value {
    return new Value(TypeUint64, this.n);
  }
  save(out: Value[]): void {
    out.push(new Value(TypeUint64, this.n));
  }
  restore(state: readonly Value[]): void {
    this.n += Number(state[0].body);
  }
}

/**
 * Counts distinct values. The reference feeds (underlying type id, untagged
 * body bytes) to a HyperLogLog sketch, which is exact for small counts; this
 * keeps the same keys in a Set, so it is exact at any count but holds every
 * distinct key in memory.
 */
class DCount implements Aggregator {
  private seen = new Set<string>();
  private bytes = 0;
  consume(v: Value): void {
    this.add(underId(v.type) + ":" + untaggedText(v.type, v.body));
  }
  private add(key: string): void {
    const n = this.seen.size;
    this.seen.add(key);
    if (this.seen.size !== n) this.bytes += 40 + key.length;
  }
  result(): Value {
    return new Value(TypeUint64, this.seen.size);
  }
  save(out: Value[]): void {
    for (const k of this.seen) out.push(new Value(TypeString, k));
  }
  restore(state: readonly Value[]): void {
    for (const v of state) this.add(v.body as string);
  }
  size(): number {
    return this.bytes;
  }
}

registerAggregate("count", { min: 0, max: 1, make: () => new Count(), mergeable: true });
registerAggregate("dcount", {
  min: 1,
  max: 1,
  make: () => new DCount(),
  mergeable: true,
  grows: true,
});
