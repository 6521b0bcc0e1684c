// The throwaway PostgreSQL server (tests/infra/postgres.ts) with the pinned
// client npm:postgres: it starts, takes connections, gives SERIALIZABLE
// transactions the behaviour the PostgreSQL catalog relies on (of two
// commits that read and move the same branch tip, one fails with SQLSTATE
// 40001 and its retry succeeds), delivers LISTEN/NOTIFY payloads, and is
// gone after stop(). Skipped, saying so, where PostgreSQL is not installed.

import assert from "node:assert/strict";
import postgres from "postgres";
import { postgresBinaries, startPostgres } from "./postgres.ts";

const ABSENT = postgresBinaries() === null;
if (ABSENT) {
  console.warn("PostgreSQL tests skipped: no server binaries (apt-get install postgresql)");
}

type Sql = ReturnType<typeof postgres>;

/** Moves the tip of `branch` from what it read to `next`, in one SERIALIZABLE transaction. */
function moveTip(sql: Sql, branch: string, next: string, afterRead: () => Promise<void>) {
  return sql.begin("isolation level serializable", async (tx) => {
    const [row] = await tx`select tip from branches where name = ${branch}`;
    await afterRead();
    await tx`update branches set tip = ${next} where name = ${branch}`;
    return row.tip as string;
  });
}

Deno.test({
  name: "throwaway PostgreSQL server with npm:postgres",
  ignore: ABSENT,
  async fn(t) {
    const t0 = performance.now();
    const server = await startPostgres();
    assert.ok(server !== null);
    console.log(`  started in ${Math.round(performance.now() - t0)} ms`);
    const port = Number(new URL(server.url).port);
    const sql = postgres(server.url, { onnotice: () => {} });
    const other = postgres(server.url, { onnotice: () => {} });
    try {
      await t.step("connects and makes a table", async () => {
        const [{ v }] = await sql`select current_setting('server_version_num')::int as v`;
        assert.ok(v >= 120000, `server version ${v}`);
        await sql`create table branches (name text primary key, tip text not null)`;
        await sql`insert into branches values ('main', 'c0')`;
        const rows = await sql`select name, tip from branches`;
        assert.deepEqual([...rows], [{ name: "main", tip: "c0" }]);
      });

      await t.step("two SERIALIZABLE read-then-writes: one fails with 40001", async () => {
        // Both transactions read the tip before either writes.
        let reads = 0;
        const bothRead = Promise.withResolvers<void>();
        const barrier = () => {
          if (++reads === 2) bothRead.resolve();
          return bothRead.promise;
        };
        const results = await Promise.allSettled([
          moveTip(sql, "main", "c1a", barrier),
          moveTip(other, "main", "c1b", barrier),
        ]);
        const ok = results.filter((r) => r.status === "fulfilled");
        const failed = results.filter((r) => r.status === "rejected");
        assert.equal(ok.length, 1, JSON.stringify(results));
        assert.equal(failed.length, 1);
        assert.equal((ok[0] as PromiseFulfilledResult<string>).value, "c0");
        const err = (failed[0] as PromiseRejectedResult).reason;
        assert.equal(err.code, "40001", String(err));
        const loser = results[0].status === "rejected" ? "c1a" : "c1b";
        const winner = loser === "c1a" ? "c1b" : "c1a";
        assert.equal((await sql`select tip from branches where name = 'main'`)[0].tip, winner);

        // The retry reads the winner's tip and moves it on.
        const read = await moveTip(sql, "main", loser, () => Promise.resolve());
        assert.equal(read, winner);
        assert.equal((await other`select tip from branches where name = 'main'`)[0].tip, loser);
      });

      await t.step("LISTEN/NOTIFY between two connections", async () => {
        const got = Promise.withResolvers<string>();
        const { unlisten } = await other.listen("tips", (payload) => got.resolve(payload));
        await sql.notify("tips", JSON.stringify({ branch: "main", tip: "c2" }));
        const timeout = setTimeout(() => got.reject(new Error("no notification in 5 s")), 5000);
        try {
          assert.deepEqual(JSON.parse(await got.promise), { branch: "main", tip: "c2" });
        } finally {
          clearTimeout(timeout);
        }
        await unlisten();
      });
    } finally {
      await Promise.all([sql.end({ timeout: 1 }), other.end({ timeout: 1 })]);
      await server.stop();
    }

    await t.step("the port refuses connections after stop()", async () => {
      await assert.rejects(
        () => Deno.connect({ hostname: "127.0.0.1", port }),
        Deno.errors.ConnectionRefused,
      );
      const late = postgres(server.url, { connect_timeout: 2, max: 1 });
      try {
        await assert.rejects(() => late`select 1`, (e: Error & { code?: string }) => {
          assert.equal(e.code, "ECONNREFUSED", String(e));
          return true;
        });
      } finally {
        await late.end({ timeout: 1 });
      }
    });
  },
});
