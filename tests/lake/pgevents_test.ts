// Lake events as PostgreSQL notification payloads (catalog/pgevents.ts).

import assert from "node:assert/strict";
import { decodeEvent, encodeEvent } from "../../lib/lake/catalog/pgevents.ts";
import { newKSUID } from "../../lib/lake/ksuid.ts";
import type { LakeEvent } from "../../lib/lake/lake.ts";

Deno.test("pg events: every kind survives the payload; foreign payloads are ignored", () => {
  const events: LakeEvent[] = [
    { kind: "pool-new", poolId: newKSUID() },
    { kind: "pool-update", poolId: newKSUID() },
    { kind: "pool-delete", poolId: newKSUID() },
    { kind: "branch-update", poolId: newKSUID(), branch: "dev" },
    { kind: "branch-delete", poolId: newKSUID(), branch: "x\ny" },
    {
      kind: "branch-commit",
      poolId: newKSUID(),
      branch: "main",
      commitId: newKSUID(),
      parent: newKSUID(),
      parentBranch: undefined,
    },
    {
      kind: "branch-commit",
      poolId: newKSUID(),
      branch: "child",
      commitId: newKSUID(),
      parent: newKSUID(),
      parentBranch: "main",
    },
  ];
  for (const e of events) {
    const text = encodeEvent("node-a", e);
    assert.ok(new TextEncoder().encode(text).length < 8000, "fits a notification");
    assert.deepEqual(decodeEvent(text), { node: "node-a", event: e });
  }
  assert.equal(decodeEvent("not json"), undefined);
  assert.equal(decodeEvent('{"node":"n","kind":"something-else"}'), undefined);
});
