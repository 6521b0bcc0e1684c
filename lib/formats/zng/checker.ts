// Checks ZNG value bodies as the decoder (decoder.ts) reads them, without
// making their values: a load that copies a ZNG input's bodies as they are
// (lake/load.ts) must refuse the bodies decoding would refuse, with the same
// errors. Each case here is the decoder's check for the same plan; what the
// decoder accepts as it finds it (any int, string or bytes body) is not looked at.

import { invalid } from "../../errors.ts";
import {
  compareRanges,
  decodeInt,
  decodeTypeValue,
  decodeUint,
  lastTagEnd,
  malformed,
  readTag,
} from "./decoder.ts";
import {
  C_ARRAY,
  C_ENUM,
  C_ENUM_CHECKED,
  C_MAP,
  C_RECORD,
  C_SET,
  C_SET_CHECKED,
  C_UNION,
  P_BOOL,
  P_FLOAT32,
  P_FLOAT64,
  P_IP,
  P_NET,
  P_TYPE,
  type Plan,
} from "./plan.ts";

/** Checks bodies in one buffer (a frame's). */
export class BodyChecker {
  private buf: Uint8Array = new Uint8Array(0);

  setBuffer(buf: Uint8Array): void {
    this.buf = buf;
  }

  /** Throws what decoding plan's body buf[p, p+len) would throw. */
  check(plan: Plan, p: number, len: number): void {
    switch (plan.code) {
      case P_FLOAT64:
        if (len !== 8) throw malformed();
        return;
      case P_FLOAT32:
        if (len !== 4) throw malformed();
        return;
      case P_BOOL:
        if (len === 0) throw malformed();
        return;
      case P_IP:
        if (len !== 4 && len !== 16) throw malformed();
        return;
      case P_NET:
        if (len !== 8 && len !== 32) throw malformed();
        return;
      case P_TYPE:
        decodeTypeValue(this.buf, p, len);
        return;
      case C_RECORD:
        return this.record(plan.parts, p, p + len);
      case C_ARRAY:
      case C_SET:
        return this.elements(plan.elem as Plan, p, p + len, false);
      case C_SET_CHECKED:
        return this.elements(plan.elem as Plan, p, p + len, true);
      case C_MAP:
        return this.map(plan.elem as Plan, plan.value as Plan, p, p + len);
      case C_UNION:
        return this.union(plan.parts, p, p + len);
      case C_ENUM_CHECKED: {
        const i = decodeUint(this.buf, p, len);
        if (typeof i !== "number" || i >= plan.count) throw invalid("enum selector out of range");
        return;
      }
      case C_ENUM:
        return;
    }
  }

  private record(parts: readonly Plan[], p: number, end: number): void {
    for (let i = 0; i < parts.length; i++) {
      const tag = readTag(this.buf, p, end);
      p = lastTagEnd();
      if (tag === 0) continue;
      const len = tag - 1;
      if (len > end - p) throw malformed();
      this.check(parts[i], p, len);
      p += len;
    }
    if (p !== end) throw malformed();
  }

  private elements(elem: Plan, p: number, end: number, ordered: boolean): void {
    let prev = -1, prevLen = 0;
    while (p < end) {
      const start = p;
      const tag = readTag(this.buf, p, end);
      p = lastTagEnd();
      const len = tag === 0 ? 0 : tag - 1;
      if (len > end - p) throw malformed();
      if (ordered) {
        const whole = p + len - start;
        if (prev >= 0) {
          const c = compareRanges(this.buf, prev, prevLen, start, whole);
          if (c === 0) throw invalid("invalid ZNG: duplicate set element");
          if (c > 0) throw invalid("invalid ZNG: set elements not sorted");
        }
        prev = start;
        prevLen = whole;
      }
      if (tag !== 0) this.check(elem, p, len);
      p += len;
    }
  }

  private map(key: Plan, value: Plan, p: number, end: number): void {
    let k = 0;
    while (p < end) {
      const tag = readTag(this.buf, p, end);
      p = lastTagEnd();
      const plan = (k++ & 1) === 0 ? key : value;
      if (tag === 0) continue;
      const len = tag - 1;
      if (len > end - p) throw malformed();
      this.check(plan, p, len);
      p += len;
    }
    if ((k & 1) !== 0) throw malformed();
  }

  private union(parts: readonly Plan[], p: number, end: number): void {
    if (p >= end) throw malformed();
    let tag = readTag(this.buf, p, end);
    p = lastTagEnd();
    // A null selector reads as 0, as the reference decodes it.
    let sel: number | bigint = 0;
    if (tag !== 0) {
      const len = tag - 1;
      if (len > end - p) throw malformed();
      sel = decodeInt(this.buf, p, len);
      p += len;
    }
    if (typeof sel !== "number" || sel < 0 || sel >= parts.length) {
      throw invalid("invalid union tag");
    }
    if (p >= end) throw malformed();
    tag = readTag(this.buf, p, end);
    p = lastTagEnd();
    if (tag !== 0) {
      const len = tag - 1;
      if (len > end - p) throw malformed();
      this.check(parts[sel], p, len);
      p += len;
    }
    if (p !== end) throw malformed();
  }
}
