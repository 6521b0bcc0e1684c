// count and dcount.

import { ID_COMPLEX, type Type, TypeBytes, TypeUint64, typeUnder } from "../../zed/types.ts";
import { formatType } from "../../zed/typetext.ts";
import { ByteWriter } from "../../zed/bytes.ts";
import { Value } from "../../zed/value.ts";
import { ABSENT, VALUE } from "../../zed/vector.ts";
import { appendTagged } from "../../zed/zcode.ts";
import { Sketch } from "./hll.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";

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
 * Counts distinct values as the reference does: each value's underlying
 * type id (as a ZNG int body) and untagged body bytes go into a HyperLogLog
 * sketch (hll.ts), whose estimate is exact for small counts and the
 * reference's estimate beyond. (So null and an empty body of one type, as
 * null(int64) and 0, count as one value there too.) Its memory stays under
 * about 16 KB however many values it sees.
 */
class DCount implements Aggregator {
  private sketch = new Sketch();
  consume(v: Value): void {
    writeKey(v);
    this.sketch.insert(key.buf, key.pos);
  }
  consumeBinary(
    t: Type,
    v: { data: Uint8Array; offsets: Int32Array; state: Uint8Array },
    rows: Int32Array,
    from: number,
    to: number,
  ): void {
    // The key is the type id, then the body (as writeKey writes it): a
    // string's or bytes' body is its bytes, a null's nothing.
    key.reset();
    writeTypeId(t);
    const idLength = key.pos;
    const { data, offsets, state } = v;
    for (let r = from; r < to; r++) {
      const i = rows[r], s = state[i];
      if (s === ABSENT) continue;
      key.pos = idLength;
      if (s === VALUE) key.range(data, offsets[i], offsets[i + 1]);
      this.sketch.insert(key.buf, key.pos);
    }
  }
  result(): Value {
    return new Value(TypeUint64, this.sketch.estimate());
  }
  save(out: Value[]): void {
    out.push(new Value(TypeBytes, this.sketch.save()));
  }
  restore(state: readonly Value[]): void {
    this.sketch = Sketch.restore(state[0].body as Uint8Array);
  }
  size(): number {
    return this.sketch.size();
  }
}

/** Ids of complex types for sketch keys, by their underlying type. */
const complexIds = new WeakMap<Type, number>();

/**
 * The id a value's type has in its sketch key: a primitive's fixed id, as the
 * reference's; for a complex type, one made from its structure. (The
 * reference uses the id its query's type context gave the type, which
 * follows the order types were first seen; this process's ids follow all it
 * has seen, so an estimate would change with the server's past.)
 */
function sketchTypeId(t: Type): number {
  const u = typeUnder(t);
  if (u.id < ID_COMPLEX) return u.id;
  let id = complexIds.get(u);
  if (id === undefined) {
    const text = formatType(u);
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    id = ID_COMPLEX + ((h >>> 0) % 0x100000);
    complexIds.set(u, id);
  }
  return id;
}

/** The type whose sketch id was written last, and that id's bytes. */
let lastType: Type | null = null;
const lastId = new Uint8Array(8);
let lastIdLength = 0;

/** Writes t's sketch id to `key`, as a ZNG int body (counted, zigzag). */
function writeTypeId(t: Type): void {
  if (t !== lastType) {
    let n = sketchTypeId(t) * 2; // zigzag of a non-negative id
    lastIdLength = 0;
    while (n > 0) {
      lastId[lastIdLength++] = n & 0xff;
      n = Math.floor(n / 256);
    }
    lastType = t;
  }
  for (let i = 0; i < lastIdLength; i++) key.byte(lastId[i]);
}

/** Where a value's sketch key is written. */
const key = new ByteWriter(256);

/** Writes v's sketch key into `key`: its type id as a ZNG int body (counted, zigzag), then its body. */
function writeKey(v: Value): void {
  key.reset();
  writeTypeId(v.type);
  // The value's tagged encoding, then its tag taken out (null: nothing).
  const at = key.pos;
  appendTagged(key, v.type, v.body);
  let tag = at;
  while (key.buf[tag] & 0x80) tag++;
  const tagLen = tag + 1 - at;
  key.buf.copyWithin(at, at + tagLen, key.pos);
  key.pos -= tagLen;
}

registerAggregate("count", { min: 0, max: 1, make: () => new Count(), mergeable: true });
// (Not mergeable: the reference's sketch merged gives a different estimate
// than the same values inserted into one, past the sparse form's size.)
registerAggregate("dcount", { min: 1, max: 1, make: () => new DCount(), grows: true });
