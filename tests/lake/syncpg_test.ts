// SyncPostgres (lib/lake/catalog/syncpg.ts), the synchronous bridge to
// PostgreSQL the catalog will use: values come back as node:sqlite gives
// them (bigints, plain Uint8Arrays), `?` placeholders work, statements on one
// connection form transactions, server errors keep their SQLSTATE, answers
// of many MB arrive whole, and a stuck or dead worker is an error, not a
// hang. Against a throwaway server; skipped, saying so, where PostgreSQL is
// not installed. Also measures the cost of a call (SELECT 1).

import assert from "node:assert/strict";
import { SyncPostgres, type SyncPostgresError, translate } from "../../lib/lake/catalog/syncpg.ts";
import { postgresBinaries, startPostgres } from "../infra/postgres.ts";

const ABSENT = postgresBinaries() === null;
if (ABSENT) {
  console.warn("SyncPostgres tests skipped: no server binaries (apt-get install postgresql)");
}

/** The error fn throws, checked to be an Error with the given code. */
function fails(fn: () => unknown, code: string): SyncPostgresError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof Error, String(e));
    assert.equal((e as SyncPostgresError).code, code, String(e));
    return e as SyncPostgresError;
  }
  assert.fail(`no error (expected ${code})`);
}

Deno.test("translate: ? to $n, except in literals, quoted names and comments", () => {
  assert.deepEqual(translate("SELECT ?, ?"), { text: "SELECT $1, $2", count: 2 });
  const sql = `SELECT 'a?''?', E'\\'?', "b?""?", ? -- c?
    /* d? */ FROM t WHERE x = ?`;
  const want = `SELECT 'a?''?', E'\\'?', "b?""?", $1 -- c?
    /* d? */ FROM t WHERE x = $2`;
  assert.deepEqual(translate(sql), { text: want, count: 2 });
  // Outside E'…' a backslash is an ordinary character.
  assert.deepEqual(translate("SELECT '\\', ?"), { text: "SELECT '\\', $1", count: 1 });
});

Deno.test({
  name: "SyncPostgres against a throwaway server",
  ignore: ABSENT,
  async fn(t) {
    const server = await startPostgres();
    assert.ok(server !== null);
    const pg = SyncPostgres.open(server.url);
    const other = SyncPostgres.open(server.url);
    try {
      await t.step("blocks on the main thread", () => {
        assert.equal("WorkerGlobalScope" in globalThis, false);
        assert.deepEqual(pg.query("SELECT 1 AS one", []), { rows: [{ one: 1n }], count: 1 });
      });

      await t.step("values of each kind in and out", () => {
        pg.exec(`
          CREATE TABLE items (id bigint PRIMARY KEY, n integer, s smallint, b bytea,
                              t text, f double precision, ok boolean, note text);
          CREATE INDEX items_t ON items (t);
        `);
        const big = 2n ** 53n + 1n;
        const bytes = new Uint8Array([0, 1, 127, 128, 255]);
        const insert = "INSERT INTO items (id, n, s, b, t, f, ok, note) " +
          "VALUES (?, ?, ?, ?, ?, ?, true, 'what? this ? stays')";
        assert.equal(pg.query(insert, [big, 42, 7, bytes, "héllo 🦆 it's", 1.5]).count, 1);
        assert.equal(
          pg.query(insert, [-(2n ** 63n), -1, 0, new Uint8Array(0), "", -0.25]).count,
          1,
        );
        assert.equal(pg.query(insert, [3, null, null, null, null, null]).count, 1);

        const { rows } = pg.query("SELECT * FROM items ORDER BY id DESC", []);
        assert.deepEqual(rows, [
          {
            id: big,
            n: 42n,
            s: 7n,
            b: bytes,
            t: "héllo 🦆 it's",
            f: 1.5,
            ok: true,
            note: "what? this ? stays",
          },
          {
            id: 3n,
            n: null,
            s: null,
            b: null,
            t: null,
            f: null,
            ok: true,
            note: "what? this ? stays",
          },
          {
            id: -(2n ** 63n),
            n: -1n,
            s: 0n,
            b: new Uint8Array(0),
            t: "",
            f: -0.25,
            ok: true,
            note: "what? this ? stays",
          },
        ]);
        const b = rows[0].b;
        assert.ok(b instanceof Uint8Array);
        assert.equal(Object.getPrototypeOf(b), Uint8Array.prototype);
        assert.equal(typeof rows[0].id, "bigint");

        // Parameters compare as they would in SQLite: integers exactly, bytes as bytes.
        const byId = pg.query<{ t: string }>("SELECT t FROM items WHERE id = ?", [big]);
        assert.deepEqual(byId.rows, [{ t: "héllo 🦆 it's" }]);
        const byBytes = pg.query("SELECT id FROM items WHERE b = ?", [bytes]);
        assert.deepEqual(byBytes.rows, [{ id: big }]);
        const count = pg.query("SELECT count(*) AS c, sum(n) AS s FROM items WHERE n > ?", [-5]);
        assert.deepEqual(count.rows, [{ c: 2n, s: 41n }]); // sum(int4) is int8
        assert.throws(() => pg.query("SELECT ?", []), /1 placeholders but 0 parameters/);
      });

      await t.step("count of rows changed", () => {
        assert.equal(pg.query("UPDATE items SET note = ? WHERE id > ?", ["x", 0]).count, 2);
        assert.equal(pg.query("UPDATE items SET note = 'y' WHERE id = 12345", []).count, 0);
        assert.equal(pg.query("DELETE FROM items WHERE n IS NULL", []).count, 1);
        assert.equal(pg.query("BEGIN", []).count, 0);
        assert.equal(pg.query("ROLLBACK", []).count, 0);
      });

      await t.step("transactions: ROLLBACK leaves nothing, COMMIT keeps", () => {
        const ids = () => pg.query<{ id: bigint }>("SELECT id FROM items ORDER BY id", []).rows;
        const before = ids();
        pg.query("BEGIN ISOLATION LEVEL SERIALIZABLE", []);
        pg.query("INSERT INTO items (id) VALUES (?)", [100]);
        assert.equal(ids().length, before.length + 1);
        assert.equal(other.query("SELECT id FROM items WHERE id = 100", []).count, 0);
        pg.query("ROLLBACK", []);
        assert.deepEqual(ids(), before);

        pg.query("BEGIN", []);
        pg.query("INSERT INTO items (id) VALUES (?)", [100]);
        pg.query("COMMIT", []);
        assert.deepEqual(other.query("SELECT id FROM items WHERE id = 100", []).rows, [{
          id: 100n,
        }]);
      });

      await t.step("a unique violation is SQLSTATE 23505", () => {
        const err = fails(() => pg.query("INSERT INTO items (id) VALUES (?)", [100n]), "23505");
        assert.match(err.message, /duplicate key value violates unique constraint "items_pkey"/);
        assert.equal(err.constraint_name, "items_pkey");
        assert.equal(err.query, "INSERT INTO items (id) VALUES (?)");
        // Statements after an error in a transaction fail until ROLLBACK, as PostgreSQL has it.
        pg.query("BEGIN", []);
        fails(() => pg.query("INSERT INTO items (id) VALUES (100)", []), "23505");
        fails(() => pg.query("SELECT 1", []), "25P02");
        pg.query("ROLLBACK", []);
        assert.equal(pg.query("SELECT 1", []).count, 1);
      });

      await t.step(
        "two SERIALIZABLE read-then-writes of a row: the second fails with 40001",
        () => {
          pg.exec("CREATE TABLE branches (name text PRIMARY KEY, tip text NOT NULL)");
          pg.query("INSERT INTO branches VALUES ('main', 'c0')", []);
          const read = (c: SyncPostgres) =>
            c.query<{ tip: string }>("SELECT tip FROM branches WHERE name = ?", ["main"]).rows[0]
              .tip;
          const move = "UPDATE branches SET tip = ? WHERE name = 'main'";
          for (const c of [pg, other]) c.query("BEGIN ISOLATION LEVEL SERIALIZABLE", []);
          assert.equal(read(pg), "c0");
          assert.equal(read(other), "c0");
          // One thread drives both, so the first commits before the second
          // writes (a second write waiting on the first's row lock would block
          // this thread until the call's timeout).
          pg.query(move, ["c1a"]);
          pg.query("COMMIT", []);
          fails(() => other.query(move, ["c1b"]), "40001");
          other.query("ROLLBACK", []);
          assert.equal(read(other), "c1a");

          // Write skew: each reads both rows and writes one; the second COMMIT fails.
          pg.query("INSERT INTO branches VALUES ('dev', 'd0')", []);
          const both = "SELECT string_agg(tip, ',' ORDER BY name) AS tips FROM branches";
          for (const c of [pg, other]) c.query("BEGIN ISOLATION LEVEL SERIALIZABLE", []);
          assert.deepEqual(pg.query(both, []).rows, [{ tips: "d0,c1a" }]);
          assert.deepEqual(other.query(both, []).rows, [{ tips: "d0,c1a" }]);
          pg.query("UPDATE branches SET tip = 'c2' WHERE name = 'main'", []);
          other.query("UPDATE branches SET tip = 'd1' WHERE name = 'dev'", []);
          pg.query("COMMIT", []);
          fails(() => other.query("COMMIT", []), "40001");
        },
      );

      await t.step("a 20 MB answer comes back whole", () => {
        const t0 = performance.now();
        const { rows, count } = pg.query<{ x: string }>(
          "SELECT repeat('x', 1000) || g AS x FROM generate_series(1, ?) AS g",
          [20_000],
        );
        const ms = performance.now() - t0;
        assert.equal(count, 20_000);
        assert.equal(rows.length, 20_000);
        assert.equal(rows[19_999].x, "x".repeat(1000) + "20000");
        assert.ok(rows.every((r, i) => r.x.length === 1000 + String(i + 1).length));
        console.log(`  20 MB in ${Math.round(ms)} ms`);
      });

      await t.step("requests and answers larger than the buffer go in chunks", () => {
        const small = SyncPostgres.open(server.url, { bufferBytes: 64 });
        try {
          const blob = crypto.getRandomValues(new Uint8Array(50_000));
          const { rows } = small.query<{ b: Uint8Array; n: bigint }>(
            "SELECT ?::bytea AS b, length(?::bytea)::int AS n",
            [blob, blob],
          );
          assert.deepEqual(rows, [{ b: blob, n: 50_000n }]);
        } finally {
          small.close();
        }
      });

      await t.step("per-call latency of SELECT 1", () => {
        for (let i = 0; i < 100; i++) pg.query("SELECT 1", []);
        const n = 1000;
        const t0 = performance.now();
        for (let i = 0; i < n; i++) pg.query("SELECT 1", []);
        const us = (performance.now() - t0) * 1000 / n;
        console.log(`  SELECT 1 through the bridge: ${us.toFixed(0)} µs a call (${n} calls)`);
      });
    } finally {
      pg.close();
      other.close();
      await server.stop();
    }
  },
});

Deno.test({
  name: "SyncPostgres: timeouts, a dead worker, close and connect failures are errors",
  ignore: ABSENT,
  async fn(t) {
    const server = await startPostgres();
    assert.ok(server !== null);
    try {
      await t.step("a call past its timeout throws and closes the connection", () => {
        const pg = SyncPostgres.open(server.url, { timeoutMs: 300 });
        const t0 = performance.now();
        fails(() => pg.query("SELECT pg_sleep(5)", []), "SYNCPG_TIMEOUT");
        assert.ok(performance.now() - t0 < 2000);
        assert.throws(() => pg.query("SELECT 1", []), /connection is closed/);
        pg.close();
      });

      await t.step("a worker that fails is an error on the next call", async () => {
        const pg = SyncPostgres.open(server.url);
        (pg as unknown as { call(r: unknown): unknown }).call({ op: "crash" });
        await new Promise((resolve) => setTimeout(resolve, 100));
        const err = fails(() => pg.query("SELECT 1", []), "SYNCPG_CRASH");
        assert.match(err.message, /crash requested/);
        pg.close();
      });

      await t.step("a connection the server ends stays failed: no silent reconnect", async () => {
        const pg = SyncPostgres.open(server.url);
        const other = SyncPostgres.open(server.url);
        const { pid } = pg.query<{ pid: bigint }>("SELECT pg_backend_pid() AS pid", []).rows[0];
        // Integer parameters are int8: a function taking int4 needs a cast.
        fails(() => other.query("SELECT pg_terminate_backend(?)", [pid]), "42883");
        other.query("SELECT pg_terminate_backend(?::int4)", [pid]);
        other.close();
        await new Promise((resolve) => setTimeout(resolve, 100));
        // A new session would have lost the transaction this one may have had open.
        fails(() => pg.query("SELECT 1", []), "CONNECTION_CLOSED");
        fails(() => pg.query("COMMIT", []), "CONNECTION_CLOSED");
        pg.close();
      });

      await t.step("a call after close() throws; close() again is harmless", () => {
        const pg = SyncPostgres.open(server.url);
        pg.close();
        assert.throws(() => pg.query("SELECT 1", []), /connection is closed/);
        assert.throws(() => pg.exec("SELECT 1"), /connection is closed/);
        pg.close();
      });

      await t.step("no server: open() throws, saying where", () => {
        const url = `postgres://postgres:secret@127.0.0.1:${freePort()}/postgres`;
        const err = fails(() => SyncPostgres.open(url, { timeoutMs: 5000 }), "ECONNREFUSED");
        assert.match(err.message, /cannot connect to PostgreSQL at postgres:\/\/postgres:\*\*\*@/);
      });
    } finally {
      await server.stop();
    }
  },
});

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
