// Which catalog the suite's lakes use. By default each test lake has its
// SQLite catalog in its directory. With LOCH_TEST_CATALOG set to a
// PostgreSQL server's URL (.ci/run starts one with scripts/pg-test-server.ts
// and runs the lake and service suites again), each lake gets a database of
// its own on that server instead, so the same tests check the PostgreSQL
// catalog.

import postgres from "postgres";

function serverURL(): string | undefined {
  const url = Deno.env.get("LOCH_TEST_CATALOG");
  return url === undefined || url === "" ? undefined : url;
}

/**
 * Where a test lake keeps its objects: its directory, or with
 * LOCH_TEST_STORAGE set to an S3 bucket's URL (`s3://bucket`, the AWS_*
 * variables naming the server) a fresh prefix in that bucket.
 */
export function testStorage(dir: string): string {
  const bucket = Deno.env.get("LOCH_TEST_STORAGE");
  if (bucket === undefined || bucket === "") return dir;
  return `${bucket.replace(/\/+$/, "")}/${crypto.randomUUID()}`;
}

/** A fresh catalog for a test lake: a new database's URL, or undefined for SQLite. */
export async function testCatalog(): Promise<string | undefined> {
  const server = serverURL();
  if (server === undefined) return undefined;
  const name = `lake_${crypto.randomUUID().replaceAll("-", "")}`;
  const sql = postgres(server, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await sql.end();
  }
  const u = new URL(server);
  u.pathname = `/${name}`;
  return u.href;
}
