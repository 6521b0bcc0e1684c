import assert from "node:assert/strict";
import {
  isNil,
  ksuidTime,
  newKSUID,
  NIL_ID,
  parseID,
  toBase62,
  toHex,
  tryParseID,
} from "../../lib/lake/ksuid.ts";
import { thrown } from "./helpers.ts";

Deno.test("ksuid: hex and base62 forms of the same id (lake-api.md §3)", () => {
  const hex = "0x0123456789012345678901234567890123456789";
  const b62 = "0A42ooXOWFkGit78ZjPVLpDkRgn";
  assert.equal(toBase62(parseID(hex)), b62);
  assert.equal(toHex(parseID(b62)), hex);
  assert.equal(toHex(parseID(hex.toUpperCase().replace("0X", "0x"))), hex);
  assert.equal(toBase62(NIL_ID), "000000000000000000000000000");
  assert.equal(toHex(NIL_ID), "0x" + "0".repeat(40));
  assert.equal(toBase62(new Uint8Array(20).fill(255)), "aWgEPTl1tmebfsQzFP4bxwgy80V");
  assert.ok(isNil(parseID("000000000000000000000000000")));
});

Deno.test("ksuid: invalid ids", () => {
  for (
    const s of [
      "",
      "abc",
      "0x0123",
      "0x012345678901234567890123456789012345678g",
      "aWgEPTl1tmebfsQzFP4bxwgy80W", // one more than the greatest
      "0A42ooXOWFkGit78ZjPVLpDkRg!",
      "0A42ooXOWFkGit78ZjPVLpDkRgnn",
    ]
  ) {
    assert.equal(tryParseID(s), undefined, s);
    assert.equal(thrown(() => parseID(s)), `invalid ID: ${s}`);
  }
});

Deno.test("ksuid: new ids carry their time and sort by it", () => {
  const t = Date.UTC(2023, 0, 2, 3, 4, 5);
  const a = newKSUID(t), b = newKSUID(t + 2000);
  assert.equal(a.length, 20);
  assert.equal(ksuidTime(a), t);
  assert.ok(toBase62(a) < toBase62(b));
  assert.ok(toHex(a) < toHex(b));
  assert.notEqual(toHex(newKSUID(t)), toHex(newKSUID(t)));
  assert.ok(!isNil(a));
  assert.deepEqual(parseID(toBase62(a)), a);
  assert.deepEqual(parseID(toHex(a)), a);
});
