// The PostgreSQL catalog (catalog/postgres.ts) on a throwaway server: the
// schema migrated once however many nodes open it at once, refused when
// newer, transactions run again when another node got there first, and the
// cross-process lock that makes nodes take turns on a branch. (The whole
// lake and service suites also run on it: LOCH_TEST_CATALOG in .ci/run.)

import assert from "node:assert/strict";
import { PostgresCatalog } from "../../lib/lake/catalog/postgres.ts";
import { migrations, SCHEMA_VERSION } from "../../lib/lake/catalog/schema.ts";
import { postgresBinaries, startPostgres } from "../infra/postgres.ts";

const HAVE_PG = postgresBinaries() !== null;
if (!HAVE_PG) console.warn("PostgreSQL catalog tests skipped: no PostgreSQL");

Deno.test({
  name: "postgres catalog: migrations, conflicts run again, locks between nodes",
  ignore: !HAVE_PG,
  fn: async (t) => {
    const pg = (await startPostgres())!;
    const a = PostgresCatalog.open(pg.url);
    const b = PostgresCatalog.open(pg.url);
    try {
      await t.step("the schema is made once and its version kept", () => {
        assert.equal(a.version(), SCHEMA_VERSION);
        assert.equal(b.version(), SCHEMA_VERSION);
        const tables = a.all<{ t: string }>(
          "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
        ).map((r) => r.t);
        assert.deepEqual(tables, [
          "actions",
          "branches",
          "commits",
          "index_objects",
          "index_rules",
          "lake_meta",
          "objects",
          "pools",
          "seek_index",
          "tip_indexes",
          "tip_objects",
        ]);
        // Integers come back as numbers when safe, bytes as bytes, text as text.
        a.run(
          "INSERT INTO index_rules (id, ts, name, kind, spec) VALUES (?, ?, ?, ?, ?)",
          new Uint8Array([1, 2]),
          2n ** 60n,
          "r",
          "field",
          "{}",
        );
        const r = a.get<{ id: Uint8Array; ts: bigint; dropped: number }>(
          "SELECT id, ts, dropped FROM index_rules",
        )!;
        assert.deepEqual([...r.id], [1, 2]);
        assert.equal(r.ts, 2n ** 60n);
        assert.equal(r.dropped, 0);
      });

      await t.step("a catalog newer than this loch is refused", () => {
        assert.throws(
          () => PostgresCatalog.open(pg.url, migrations.slice(0, 2)),
          /lake catalog schema 4 is newer than this loch supports \(2\)/,
        );
      });

      await t.step("a transaction that conflicts with another node's is run again", () => {
        a.run("INSERT INTO lake_meta (key, value) VALUES ('n', '0')");
        let runs = 0;
        const result = a.transaction(() => {
          runs++;
          const n = Number(
            a.get<{ value: string }>("SELECT value FROM lake_meta WHERE key = 'n'")!.value,
          );
          // Another node moves the value after this one read it, the first time.
          if (runs === 1) {
            b.transaction(() => b.run("UPDATE lake_meta SET value = '10' WHERE key = 'n'"));
          }
          a.run("UPDATE lake_meta SET value = ? WHERE key = 'n'", String(n + 1));
          return n + 1;
        });
        assert.equal(runs, 2);
        assert.equal(result, 11);
        assert.equal(
          b.get<{ value: string }>("SELECT value FROM lake_meta WHERE key = 'n'")!.value,
          "11",
        );
      });

      await t.step("a lock is held by one node at a time and let go on release", async () => {
        const releaseA = await a.lock("branch x");
        let bHas = false;
        const bWaits = b.lock("branch x").then((rel) => {
          bHas = true;
          return rel;
        });
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(bHas, false, "b waits while a holds it");
        // Another name is free.
        (await b.lock("branch y"))();
        releaseA();
        const releaseB = await bWaits;
        assert.equal(bHas, true);
        releaseB();
        releaseB();
      });
    } finally {
      a.close();
      b.close();
      await pg.stop();
    }
  },
});
