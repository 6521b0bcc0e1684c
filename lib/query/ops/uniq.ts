// `uniq [-c]`: drops adjacent duplicates (language.md §3.21). Values are
// compared by their encoded bodies only (a pool's as read, where it hands
// them so: compiler/from.ts), so the type is ignored: 1 and
// 1(int32) are duplicates (and so are null and "", whose bodies are both
// empty, as in the reference). With -c each output is
// {value:<v>,count:<n>(uint64)}, v being the first of its run.
//
// Only the previous value is held, so uniq needs no memory budget or
// spilling (unlike sort, summarize, fuse and join).

import { bytesEqual } from "../../zed/bytes.ts";
import { zctx } from "../../zed/context.ts";
import { Kind, type RecordType, type Type, TypeUint64, typeUnder } from "../../zed/types.ts";
import { type Batch, type Body, EncodedValue, Value } from "../../zed/value.ts";
import { encodeBody } from "../../zed/zcode.ts";
import { type Op, Unary } from "../runtime/op.ts";
import type { Ended } from "../runtime/work.ts";
import { bodiesEqual } from "../expr/equal.ts";

/** A value's encoded body: as read, or made. */
function encodingOf(v: Value): Uint8Array {
  return v instanceof EncodedValue ? v.encoded : encodeBody(v.type, v.body);
}

export class Uniq extends Unary {
  private last: Value | undefined = undefined;
  private lastBytes: Uint8Array | undefined = undefined;
  /** The encoding of the value same() last compared, when it made one. */
  private bytes: Uint8Array | undefined = undefined;
  private count = 0;
  private readonly countTypes = new Map<Type, RecordType>();

  constructor(next: Op, private readonly withCount: boolean) {
    super(next);
  }

  push(batch: Batch): void {
    const out: Value[] = [];
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      if (this.last !== undefined && this.same(v)) {
        this.count++;
        continue;
      }
      if (this.last !== undefined) out.push(this.wrap(this.last));
      this.last = v;
      // (Its encoding, when same() made it, serves the next comparison.)
      this.lastBytes = this.bytes;
      this.bytes = undefined;
      this.count = 1;
    }
    this.emit(out);
  }

  override end(): Ended {
    if (this.last !== undefined) {
      this.next.push([this.wrap(this.last)]);
      this.last = undefined;
    }
    return this.next.end();
  }

  private same(v: Value): boolean {
    this.bytes = undefined;
    const last = this.last!;
    // Values read with their encodings (a pool's, decoded only in part):
    // compare those.
    if (v instanceof EncodedValue || last instanceof EncodedValue) {
      return bytesEqual(encodingOf(v), encodingOf(last));
    }
    // Values of one type: compare the bodies directly.
    if (v.type === last.type && v.body !== null && last.body !== null) {
      return bodiesEqual(v.type, v.body, last.body);
    }
    // Records of other types: a record's body is its fields' tagged bodies
    // one after another, so records with more or fewer fields never encode
    // alike (logs of several kinds interleave: most neighbours differ so).
    if (
      v.body !== null && last.body !== null && typeUnder(v.type).kind === Kind.Record &&
      typeUnder(last.type).kind === Kind.Record &&
      (v.body as Body[]).length !== (last.body as Body[]).length
    ) return false;
    if (this.lastBytes === undefined) this.lastBytes = encodeBody(last.type, last.body);
    this.bytes = encodeBody(v.type, v.body);
    return bytesEqual(this.bytes, this.lastBytes);
  }

  private wrap(v: Value): Value {
    if (!this.withCount) return v;
    let t = this.countTypes.get(v.type);
    if (t === undefined) {
      t = zctx.lookupRecordOf(["value", "count"], [v.type, TypeUint64]);
      this.countTypes.set(v.type, t);
    }
    return new Value(t, [v.body, this.count]);
  }
}
