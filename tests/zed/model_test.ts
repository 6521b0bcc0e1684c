import assert from "node:assert/strict";
import { compareTypes, uniqueTypes, zctx } from "../../lib/zed/context.ts";
import {
  Field,
  type Type,
  TypeBytes,
  TypeFloat32,
  TypeFloat64,
  TypeInt32,
  TypeInt64,
  TypeIP,
  TypeNull,
  TypeString,
  TypeTime,
  TypeUint8,
} from "../../lib/zed/types.ts";
import { encodeTagged } from "../../lib/zed/zcode.ts";
import { encodeTypeValue, TypeValueDecoder } from "../../lib/zed/typevalue.ts";
import { normalizeMap, normalizeSet } from "../../lib/zed/normalize.ts";
import { compareValues } from "../../lib/zed/compare.ts";
import { type Body, UnionBody } from "../../lib/zed/value.ts";
import { formatType, formatTypeValue } from "../../lib/zed/typetext.ts";

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");
}

Deno.test("the context interns types structurally", () => {
  const a = zctx.lookupRecord([new Field("a", TypeInt64), new Field("b", TypeString)]);
  const b = zctx.lookupRecordOf(["a", "b"], [TypeInt64, TypeString]);
  assert.equal(a, b);
  assert.notEqual(a, zctx.lookupRecordOf(["b", "a"], [TypeString, TypeInt64]));
  assert.equal(zctx.lookupArray(a), zctx.lookupArray(b));
  assert.notEqual(zctx.lookupArray(TypeInt64), zctx.lookupSet(TypeInt64));
  const named = zctx.lookupNamed("port", TypeUint8);
  assert.equal(named, zctx.lookupNamed("port", TypeUint8));
  assert.notEqual(named, zctx.lookupNamed("port", TypeInt32));
  assert.throws(
    () => zctx.lookupRecordOf(["a", "a"], [TypeInt64, TypeInt64]),
    /duplicate field: "a"/,
  );
  assert.throws(() => zctx.lookupNamed("int64", TypeString), /primitive type name/);
});

Deno.test("union members are kept in canonical order", () => {
  const u = zctx.lookupUnion([TypeString, TypeInt64]);
  assert.deepEqual(u.types, [TypeInt64, TypeString]);
  assert.equal(u, zctx.lookupUnion([TypeInt64, TypeString]));
  const rec1 = zctx.lookupRecordOf(["x"], [TypeInt64]);
  const rec2 = zctx.lookupRecordOf(["x", "y"], [TypeInt64, TypeInt64]);
  const arr = zctx.lookupArray(TypeInt64);
  const u2 = zctx.lookupUnion([arr, rec2, TypeBytes, rec1, TypeNull]);
  assert.equal(formatType(u2), "(bytes,null,{x:int64},{x:int64,y:int64},[int64])");
  assert.ok(compareTypes(TypeTime, TypeFloat32) < 0);
  const foo = zctx.lookupNamed("foo", TypeInt64);
  assert.deepEqual(uniqueTypes([TypeString, foo, TypeInt64, TypeString]), [
    foo,
    TypeInt64,
    TypeString,
  ]);
});

Deno.test("zcode bodies match the reference's bytes", () => {
  assert.equal(hex(encodeTagged(TypeInt64, 1)), "02 02");
  assert.equal(hex(encodeTagged(TypeInt64, 0)), "01");
  assert.equal(hex(encodeTagged(TypeInt64, -1)), "02 03");
  assert.equal(hex(encodeTagged(TypeInt64, -9223372036854775808n)), "02 01");
  assert.equal(hex(encodeTagged(TypeInt64, 128)), "03 00 01");
  assert.equal(hex(encodeTagged(TypeFloat64, 1.5)), "09 00 00 00 00 00 00 f8 3f");
  assert.equal(hex(encodeTagged(TypeFloat32, 1.5)), "05 00 00 c0 3f");
  assert.equal(hex(encodeTagged(TypeTime, 1000000000)), "05 00 94 35 77");
  assert.equal(hex(encodeTagged(TypeString, "x")), "02 78");
  assert.equal(hex(encodeTagged(TypeNull, null)), "00");
  assert.equal(hex(encodeTagged(TypeIP, new Uint8Array([10, 0, 0, 1]))), "05 0a 00 00 01");
  const rec = zctx.lookupRecordOf(["a", "b"], [TypeInt64, TypeString]);
  assert.equal(hex(encodeTagged(rec, [1, "x"])), "05 02 02 02 78");
  assert.equal(hex(encodeTagged(zctx.lookupArray(TypeInt64), [1, 2])), "05 02 02 02 04");
  assert.equal(hex(encodeTagged(zctx.lookupArray(TypeNull), [])), "01");
  const u = zctx.lookupUnion([TypeInt64, TypeString]);
  assert.equal(hex(encodeTagged(u, new UnionBody(0, 1))), "04 01 02 02");
  assert.equal(hex(encodeTagged(u, new UnionBody(1, "a"))), "05 02 02 02 61");
  assert.equal(hex(encodeTagged(u, new UnionBody(1, null))), "04 02 02 00");
  const m = zctx.lookupMap(TypeString, TypeInt64);
  assert.equal(hex(encodeTagged(m, ["a", 2, "b", 1])), "09 02 61 02 04 02 62 02 02");
  const e = zctx.lookupEnum(["a", "b"]);
  assert.equal(hex(encodeTagged(e, 1)), "02 01");
  assert.equal(hex(encodeTagged(e, 0)), "01");
});

Deno.test("type values encode per formats.md §4.6", () => {
  const foo = zctx.lookupNamed("foo", TypeInt64);
  assert.equal(hex(encodeTypeValue(TypeInt64)), "09");
  assert.equal(hex(encodeTypeValue(zctx.lookupRecordOf(["a"], [TypeInt64]))), "1e 01 01 61 09");
  assert.equal(hex(encodeTypeValue(zctx.lookupArray(TypeString))), "1f 19");
  assert.equal(hex(encodeTypeValue(zctx.lookupMap(TypeString, TypeInt64))), "21 19 09");
  assert.equal(hex(encodeTypeValue(zctx.lookupEnum(["a", "b"]))), "23 02 01 61 01 62");
  assert.equal(hex(encodeTypeValue(foo)), "25 03 66 6f 6f 09");
  const rec = zctx.lookupRecordOf(["a", "b"], [foo, foo]);
  const tv = encodeTypeValue(rec);
  assert.equal(hex(tv), "1e 02 01 61 25 03 66 6f 6f 09 01 62 26 03 66 6f 6f");
  assert.equal(TypeValueDecoder.decode(zctx, tv), rec);
  assert.equal(formatTypeValue(rec), "{a:foo=int64,b:foo}");
});

Deno.test("sets and maps normalize by encoded bytes", () => {
  const u = zctx.lookupUnion([TypeFloat64, TypeString]);
  const set = normalizeSet(u, [
    new UnionBody(0, 1.5),
    new UnionBody(1, "foo"),
    new UnionBody(0, 1.5),
  ]);
  assert.deepEqual(set, [new UnionBody(1, "foo"), new UnionBody(0, 1.5)]);
  assert.deepEqual(normalizeSet(TypeInt64, [1, 1, 1, 5, 1]), [1, 5]);
  assert.deepEqual(normalizeSet(TypeInt32, [8, 2, -1, 1]), [1, -1, 2, 8]);
  assert.deepEqual(normalizeSet(TypeString, ["strawberry", "dates", "banana"]), [
    "dates",
    "banana",
    "strawberry",
  ]);
  assert.deepEqual(normalizeMap(TypeInt64, [2, "2", 1, "1", 3, "3", 1, "x"]), [
    1,
    "1",
    2,
    "2",
    3,
    "3",
  ]);
});

Deno.test("the total order over values", () => {
  const cmp = (at: Type, a: Body, bt: Type, b: Body) => Math.sign(compareValues(at, a, bt, b));
  assert.equal(cmp(TypeInt64, 1, TypeInt64, 2), -1);
  assert.equal(cmp(TypeInt64, null, TypeInt64, 2), 1); // nulls last by default
  assert.equal(Math.sign(compareValues(TypeInt64, null, TypeInt64, 2, false)), -1);
  assert.equal(cmp(TypeInt64, 2, TypeFloat64, 1.5), 1); // numbers compare across types
  assert.equal(cmp(TypeInt64, 1, TypeIP, new Uint8Array([1, 1, 1, 1])), -1); // "int64" < "ip"
  assert.equal(cmp(TypeIP, new Uint8Array([1, 1, 1, 1]), TypeString, "a"), -1);
  assert.equal(cmp(TypeString, "a", TypeString, "b"), -1);
  assert.equal(cmp(TypeTime, 9007199254740993n, TypeTime, 9007199254740992), 1);
  const ip4 = new Uint8Array([192, 168, 1, 10]);
  const ip6 = new Uint8Array(16);
  assert.equal(cmp(TypeIP, ip6, TypeIP, ip4), 1); // IPv4 before IPv6
  const arr = zctx.lookupArray(TypeInt64);
  assert.equal(cmp(arr, [1, 2], arr, [1, 2, 3]), -1); // a proper prefix first
});
