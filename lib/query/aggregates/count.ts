// count and dcount.

import { TypeUint64, underId } from "../../zed/types.ts";
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
}

/**
 * Counts distinct values. The reference feeds (underlying type id, untagged
 * body bytes) to a HyperLogLog sketch, which is exact for small counts; this
 * keeps the same keys in a Set, so it is exact at any count but holds every
 * distinct key in memory.
 */
class DCount implements Aggregator {
  private seen = new Set<string>();
  consume(v: Value): void {
    this.seen.add(underId(v.type) + ":" + untaggedText(v.type, v.body));
  }
  result(): Value {
    return new Value(TypeUint64, this.seen.size);
  }
}

registerAggregate("count", { min: 0, max: 1, make: () => new Count() });
registerAggregate("dcount", { min: 1, max: 1, make: () => new DCount() });
