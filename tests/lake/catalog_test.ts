import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SqliteCatalog } from "../../lib/lake/catalog/sqlite.ts";
import type { Catalog } from "../../lib/lake/catalog/catalog.ts";
import { migrations, SCHEMA_VERSION } from "../../lib/lake/catalog/schema.ts";
import { CATALOG_FILE, Lake } from "../../lib/lake/lake.ts";
import { listPools } from "../../lib/lake/pools.ts";
import { keyedPool, lines, loadText, rejection, thrown, withDir } from "./helpers.ts";

function tables(cat: Catalog): string[] {
  return cat.all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
  ).map((r) => r.name);
}

Deno.test("catalog: a directory that does not exist becomes an empty lake", async () => {
  await withDir(async (dir) => {
    const root = `${dir}/a/b/lake`;
    const lake = await Lake.open(root);
    try {
      assert.ok((await Deno.stat(`${root}/pools`)).isDirectory);
      assert.ok((await Deno.stat(`${root}/${CATALOG_FILE}`)).isFile);
      assert.equal(lake.catalog.version(), SCHEMA_VERSION);
      const names = tables(lake.catalog);
      for (
        const t of [
          "actions",
          "branches",
          "commits",
          "index_objects",
          "index_rules",
          "objects",
          "pools",
          "seek_index",
        ]
      ) assert.ok(names.includes(t), `table ${t} in ${names}`);
      assert.deepEqual(listPools(lake.catalog), []);
      const mode = lake.catalog.get<{ journal_mode: string }>("PRAGMA journal_mode");
      assert.equal(mode?.journal_mode, "wal");
    } finally {
      lake.close();
    }
  });
});

Deno.test("catalog: reopening a lake keeps its pools, branches and data", async () => {
  await withDir(async (dir) => {
    let lake = await Lake.open(dir);
    const pool = keyedPool(lake, "keep", "x");
    await loadText(lake, pool, "{x:2}\n{x:1}\n");
    lake.close();
    lake = await Lake.open(dir);
    try {
      assert.deepEqual(listPools(lake.catalog).map((p) => p.name), ["keep"]);
      assert.equal(lake.catalog.version(), SCHEMA_VERSION);
      assert.deepEqual(await lines(lake, "from keep"), ["{x:1}", "{x:2}"]);
      assert.deepEqual(await lines(lake, "from keep:branches | yield branch.name"), ['"main"']);
    } finally {
      lake.close();
    }
  });
});

Deno.test("catalog: a catalog from a newer schema is refused, untouched", async () => {
  await withDir(async (dir) => {
    (await Lake.open(dir)).close();
    const db = new DatabaseSync(`${dir}/${CATALOG_FILE}`);
    db.prepare("UPDATE lake_meta SET value = ? WHERE key = 'schema'").run(
      String(SCHEMA_VERSION + 1),
    );
    db.close();
    const msg = await rejection(Lake.open(dir));
    assert.equal(
      msg,
      `lake catalog schema ${
        SCHEMA_VERSION + 1
      } is newer than this loch supports (${SCHEMA_VERSION})`,
    );
    const check = new DatabaseSync(`${dir}/${CATALOG_FILE}`);
    const row = check.prepare("SELECT value FROM lake_meta WHERE key = 'schema'").get();
    check.close();
    assert.equal(row?.value, String(SCHEMA_VERSION + 1));
  });
});

// Migrations that record the order they ran in; the second depends on the first.
const steps = [
  "CREATE TABLE ran (step INTEGER); INSERT INTO ran VALUES (0);",
  "ALTER TABLE ran ADD COLUMN note TEXT; INSERT INTO ran VALUES (1, 'after 0');",
  "INSERT INTO ran VALUES (2, (SELECT note FROM ran WHERE step = 1));",
];

function ran(cat: Catalog): unknown[] {
  return cat.all<{ step: number; note?: string | null }>("SELECT * FROM ran ORDER BY rowid")
    .map((r) => [r.step, r.note ?? null]);
}

Deno.test("catalog: an older catalog is migrated forward, each step once, in order", async () => {
  await withDir((dir) => {
    const path = `${dir}/c.sqlite`;
    let cat = new SqliteCatalog(path, steps.slice(0, 1));
    assert.equal(cat.version(), 1);
    assert.deepEqual(ran(cat), [[0, null]]);
    cat.close();

    cat = new SqliteCatalog(path, steps);
    assert.equal(cat.version(), 3);
    assert.deepEqual(ran(cat), [[0, null], [1, "after 0"], [2, "after 0"]]);
    cat.close();

    // Up to date: nothing runs again.
    cat = new SqliteCatalog(path, steps);
    assert.equal(cat.version(), 3);
    assert.equal(ran(cat).length, 3);
    cat.close();

    // Older software on this catalog refuses it.
    assert.equal(
      thrown(() => new SqliteCatalog(path, steps.slice(0, 2))),
      "lake catalog schema 3 is newer than this loch supports (2)",
    );
  });
});

Deno.test("catalog: a failing migration leaves the catalog at its old version", async () => {
  await withDir((dir) => {
    const path = `${dir}/c.sqlite`;
    new SqliteCatalog(path, steps.slice(0, 1)).close();
    const broken = [steps[0], "INSERT INTO ran VALUES (1); INSERT INTO nowhere VALUES (1);"];
    assert.match(thrown(() => new SqliteCatalog(path, broken)), /no such table: nowhere/);
    const cat = new SqliteCatalog(path, steps.slice(0, 1));
    assert.equal(cat.version(), 1);
    assert.deepEqual(ran(cat), [[0, null]]);
    cat.close();
  });
});

Deno.test("catalog: the real migrations take an empty catalog to SCHEMA_VERSION", async () => {
  await withDir((dir) => {
    assert.equal(SCHEMA_VERSION, migrations.length);
    const cat = new SqliteCatalog(`${dir}/c.sqlite`);
    assert.equal(cat.version(), SCHEMA_VERSION);
    assert.ok(tables(cat).includes("pools"));
    cat.close();
  });
});

Deno.test("catalog: transactions roll back on error and nested calls join the outer one", async () => {
  await withDir((dir) => {
    const cat = new SqliteCatalog(`${dir}/c.sqlite`, ["CREATE TABLE t (v INTEGER)"]);
    assert.throws(() =>
      cat.transaction(() => {
        cat.run("INSERT INTO t VALUES (1)");
        cat.transaction(() => cat.run("INSERT INTO t VALUES (2)"));
        throw new Error("boom");
      }), /boom/);
    assert.deepEqual(cat.all("SELECT v FROM t"), []);
    cat.transaction(() => {
      cat.run("INSERT INTO t VALUES (1)");
      cat.transaction(() => cat.run("INSERT INTO t VALUES (2)"));
    });
    assert.deepEqual(cat.all<{ v: number }>("SELECT v FROM t ORDER BY v").map((r) => r.v), [1, 2]);
    cat.close();
  });
});

Deno.test("catalog: integers come back as numbers when safe, else bigints", async () => {
  await withDir((dir) => {
    const cat = new SqliteCatalog(`${dir}/c.sqlite`, ["CREATE TABLE t (v INTEGER)"]);
    cat.run("INSERT INTO t VALUES (?), (?)", 42, 1700000000123456789n);
    const vs = cat.all<{ v: number | bigint }>("SELECT v FROM t ORDER BY v").map((r) => r.v);
    assert.deepEqual(vs, [42, 1700000000123456789n]);
    cat.close();
  });
});

Deno.test("catalog: a lake cannot be opened where a file is", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/file`, "not a lake");
    const msg = await rejection(Lake.open(`${dir}/file`));
    assert.match(msg, new RegExp(`^cannot open lake at ${dir}/file: `));
  });
});

Deno.test("catalog: a lake made by the first schema opens migrated, its data intact", async () => {
  await withDir(async (dir) => {
    // A lake as the first loch wrote it: schema 1 only.
    const old = new SqliteCatalog(`${dir}/${CATALOG_FILE}`, migrations.slice(0, 1));
    assert.equal(old.version(), 1);
    old.close();
    const lake = await Lake.open(dir);
    try {
      assert.equal(lake.catalog.version(), SCHEMA_VERSION);
      const p = keyedPool(lake, "p", "x");
      await loadText(lake, p, "{x:1}");
      assert.deepEqual(await lines(lake, "from p"), ["{x:1}"]);
      const cols = lake.catalog.all<{ name: string }>("PRAGMA table_info(index_rules)")
        .map((r) => r.name);
      assert.ok(cols.includes("dropped"));
      const idx = lake.catalog.all<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'actions_object'",
      );
      assert.equal(idx.length, 1);
    } finally {
      lake.close();
    }
  });
});

Deno.test("catalog: many connections opening one new catalog at once all succeed", async () => {
  // Workers give each opener its own SQLite connection without a process
  // start each; they race on every fresh catalog, as processes do.
  const OPENERS = 8, ROUNDS = 40;
  const url = new URL("./fixtures/open-catalog-worker.ts", import.meta.url);
  const workers = Array.from({ length: OPENERS }, () => new Worker(url, { type: "module" }));
  const next = (w: Worker) =>
    new Promise<string>((resolve) =>
      w.addEventListener("message", (e) => resolve(e.data), { once: true })
    );
  try {
    await withDir(async (dir) => {
      const failures: string[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const gate = new Int32Array(new SharedArrayBuffer(4));
        const ready = workers.map(next);
        workers.forEach((w) => w.postMessage({ path: `${dir}/c${r}.db`, gate: gate.buffer }));
        await Promise.all(ready);
        const results = workers.map(next);
        Atomics.store(gate, 0, 1);
        Atomics.notify(gate, 0);
        for (const res of await Promise.all(results)) if (res !== "opened") failures.push(res);
      }
      assert.deepEqual(failures, []);
    });
  } finally {
    workers.forEach((w) => w.terminate());
  }
});
