// The type context holds its types weakly: types nobody uses any more leave
// the table, a type still in use stays the one object for its structure.

import assert from "node:assert/strict";
import { Field, TypeInt64, TypeString } from "../../lib/zed/types.ts";
import { withTypeBindings, zctx } from "../../lib/zed/context.ts";

Deno.test("context: structurally identical types are one object", () => {
  const a = zctx.lookupRecord([new Field("a", TypeInt64), new Field("b", TypeString)]);
  const b = zctx.lookupRecordOf(["a", "b"], [TypeInt64, TypeString]);
  assert.equal(a, b);
  assert.equal(zctx.lookupArray(a), zctx.lookupArray(b));
});

Deno.test("context: types no longer used are collected; used ones keep their identity", async () => {
  // In a process of its own, where garbage collection can be forced.
  const script = `
    import { zctx } from ${
    JSON.stringify(new URL("../../lib/zed/context.ts", import.meta.url).href)
  };
    import { TypeInt64 } from ${
    JSON.stringify(new URL("../../lib/zed/types.ts", import.meta.url).href)
  };
    const kept = zctx.lookupRecordOf(["kept"], [TypeInt64]);
    const keptId = kept.id;
    const before = zctx.size;
    for (let i = 0; i < 20000; i++) zctx.lookupArray(zctx.lookupRecordOf(["f" + i], [TypeInt64]));
    const grown = zctx.size;
    for (let i = 0; i < 20 && zctx.size > before + 100; i++) {
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 10));
    }
    const again = zctx.lookupRecordOf(["kept"], [TypeInt64]);
    console.log(JSON.stringify({ before, grown, after: zctx.size, same: again === kept && again.id === keptId }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(r.grown >= r.before + 40000, JSON.stringify(r));
  assert.ok(r.after <= r.before + 100, JSON.stringify(r));
  assert.equal(r.same, true);
});

Deno.test("context: name bindings are per scope, the process's outside any", async () => {
  const inner = zctx.lookupNamed("ctx_test_outer", TypeInt64);
  await withTypeBindings(async () => {
    assert.equal(zctx.latestNamed("ctx_test_outer"), undefined);
    const s = zctx.lookupNamed("ctx_test_scoped", TypeString);
    await Promise.resolve();
    assert.equal(zctx.latestNamed("ctx_test_scoped"), s);
  });
  assert.equal(zctx.latestNamed("ctx_test_scoped"), undefined);
  assert.equal(zctx.latestNamed("ctx_test_outer"), inner);
});
