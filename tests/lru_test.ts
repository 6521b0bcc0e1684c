import assert from "node:assert/strict";
import { LruMap } from "../lib/lru.ts";

Deno.test("an LruMap keeps max entries, dropping the least recently used", () => {
  const m = new LruMap<string, number>(3);
  m.set("a", 1);
  m.set("b", 2);
  m.set("c", 3);
  assert.equal(m.get("a"), 1); // a is now the most recently used: b goes next
  m.set("d", 4);
  assert.equal(m.size, 3);
  assert.equal(m.get("b"), undefined);
  assert.deepEqual([m.get("a"), m.get("c"), m.get("d")], [1, 3, 4]);
  m.set("c", 30); // setting again makes c the most recently used
  m.set("e", 5); // a was used before d, c: a goes
  assert.equal(m.get("a"), undefined);
  assert.deepEqual([m.get("c"), m.get("d"), m.get("e")], [30, 4, 5]);
  assert.ok(m.delete("d"));
  assert.equal(m.size, 2);
  m.clear();
  assert.equal(m.size, 0);
});
