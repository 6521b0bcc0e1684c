// Several `loch serve` processes serving one lake: the catalog in
// PostgreSQL (a throwaway server, tests/infra/postgres.ts), the objects in
// one directory, or in S3 (OpenStack Swift's S3 API, tests/infra/s3.ts).
// Eight writers spread over three nodes, readers on every node, one node
// killed with SIGKILL while commits are in flight: every acknowledged load
// is there exactly once, every node answers the same, and each surviving
// node's event stream carried every acknowledged commit. Skipped, saying
// so, where PostgreSQL (or Swift) is not installed.

import assert from "node:assert/strict";
import { postgresBinaries, startPostgres } from "../infra/postgres.ts";
import { s3Binaries, s3Client, startS3 } from "../infra/s3.ts";
import { startServeProcess } from "../infra/serve_process.ts";

const HAVE_PG = postgresBinaries() !== null;
const HAVE_S3 = s3Binaries();
if (!HAVE_PG) console.warn("multi-node tests skipped: no PostgreSQL (apt-get install postgresql)");
if (!HAVE_S3) console.warn("multi-node S3 test skipped: no Swift (see tests/infra/s3.ts)");

/** Where the nodes keep the lake: their -lake or -storage flag, and environment. */
interface Where {
  args: string[];
  env: Record<string, string>;
}

interface Node {
  url: string;
  child: Deno.ChildProcess;
  events: string;
}

async function startNode(dir: string, where: Where, catalog: string, i: number): Promise<Node> {
  const args = [...where.args, "-catalog", catalog, "-workers", "1"];
  const { url, child } = await startServeProcess(args, `${dir}/port${i}`, { env: where.env });
  return { url, child, events: "" };
}

/** Reads a node's event stream into node.events until it ends or is cancelled. */
async function watchEvents(node: Node, ready: () => void): Promise<() => Promise<void>> {
  const res = await fetch(`${node.url}/events`, { headers: { Accept: "application/json" } });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  ready();
  const pump = (async () => {
    try {
      for (let c = await reader.read(); !c.done; c = await reader.read()) {
        node.events += dec.decode(c.value, { stream: true });
      }
    } catch {
      // the node went away, or we cancelled
    }
  })();
  return async () => {
    await reader.cancel().catch(() => {});
    await pump;
  };
}

async function json(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text);
}

async function count(node: Node, query: string): Promise<unknown> {
  return await json(
    await fetch(`${node.url}/query`, {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: JSON.stringify({ query }),
    }),
  );
}

/** Three nodes on one lake (objects where `where` says), eight writers, one node killed. */
async function threeNodes(where: (dir: string) => Where): Promise<void> {
  const pg = (await startPostgres())!;
  const dir = await Deno.makeTempDir({ prefix: "loch-nodes-" });
  const at = where(dir);
  const nodes: Node[] = [];
  const stops: (() => Promise<void>)[] = [];
  try {
    for (let i = 0; i < 3; i++) nodes.push(await startNode(dir, at, pg.url, i));
    await json(
      await fetch(`${nodes[0].url}/pool`, {
        method: "POST",
        headers: { Accept: "application/json", "Content-Type": "application/json" },
        body: JSON.stringify({ name: "p", layout: { order: "asc", keys: [["ts"]] } }),
      }),
    );
    // A pool made on node 0 is there on the others at once.
    for (const n of nodes) assert.deepEqual(await count(n, "from :pools | yield name"), ["p"]);
    for (const n of nodes) {
      await new Promise<void>((ready) => watchEvents(n, ready).then((s) => stops.push(s)));
    }
    // Each node listens for the others' events from its first subscriber on.
    await new Promise((r) => setTimeout(r, 500));

    const acked: { w: number; k: number; commit: string }[] = [];
    let failedOnKilled = 0;
    let killedNodeLoads = 0;
    // Writers on nodes 0 and 1 make six loads each; those on node 2 load
    // until it is killed under them.
    const writer = async (w: number) => {
      const node = nodes[w % 3];
      const doomed = node === nodes[2];
      for (let k = 0; k < (doomed ? 10_000 : 6); k++) {
        const body = Array.from(
          { length: 20 },
          (_, r) => `{ts:${w * 1e6 + k * 20 + r},w:${w},k:${k}}`,
        )
          .join("\n");
        try {
          const r = await fetch(`${node.url}/pool/p/branch/main`, {
            method: "POST",
            headers: { Accept: "application/json" },
            // Bytes: no Content-Type, so the format is detected.
            body: new TextEncoder().encode(body),
          });
          const text = await r.text();
          if (!r.ok) throw new Error(`writer ${w}: ${r.status} ${text}`);
          acked.push({ w, k, commit: (JSON.parse(text) as { commit: string }).commit });
          if (doomed) killedNodeLoads++;
        } catch (e) {
          if (!doomed) throw e;
          failedOnKilled++;
          return;
        }
      }
    };
    const readers = (async () => {
      for (let i = 0; i < 10; i++) {
        for (const n of nodes.slice(0, 2)) await count(n, "from p | count()");
      }
    })();
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    // Kill node 2 with loads (and their commits) in flight on it.
    while (killedNodeLoads < 6) await new Promise((r) => setTimeout(r, 5));
    nodes[2].child.kill("SIGKILL");
    await nodes[2].child.status;
    await Promise.all([...writers, readers]);
    assert.equal(failedOnKilled, 2, "both writers on the killed node saw it go");
    assert.ok(acked.length >= 6 * 6 + 6, `${acked.length} acknowledged`);

    // Every acknowledged load is there exactly once, and both surviving nodes agree.
    const expectCounts = (rows: unknown) => {
      const seen = new Map<string, number>();
      for (const r of rows as { w: number; k: number; count: number }[]) {
        seen.set(`${r.w}/${r.k}`, r.count);
      }
      for (const a of acked) assert.equal(seen.get(`${a.w}/${a.k}`), 20, `load ${a.w}/${a.k}`);
      for (const [key, c] of seen) assert.equal(c, 20, `load ${key} is whole, once`);
    };
    const q = "from p | count() by w, k | sort w, k";
    const a = await count(nodes[0], q), b = await count(nodes[1], q);
    assert.deepEqual(a, b);
    expectCounts(a);

    // Each surviving node's stream carried every acknowledged commit.
    await new Promise((r) => setTimeout(r, 500));
    for (const n of nodes.slice(0, 2)) {
      for (const x of acked) assert.ok(n.events.includes(x.commit), `${n.url} saw ${x.commit}`);
    }
    // A restarted node serves the same lake.
    nodes[2] = await startNode(dir, at, pg.url, 3);
    assert.deepEqual(await count(nodes[2], q), a);
  } finally {
    for (const s of stops) await s();
    for (const n of nodes) {
      try {
        n.child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await n.child.status;
    }
    await pg.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "nodes: three servers on one PostgreSQL catalog; eight writers; one node killed mid-commit",
  ignore: !HAVE_PG,
  fn: () => threeNodes((dir) => ({ args: ["-lake", `${dir}/lake`], env: {} })),
});

Deno.test({
  name: "nodes: the same with the lake's objects in S3",
  ignore: !HAVE_PG || !HAVE_S3,
  fn: async () => {
    const s3 = (await startS3())!;
    try {
      const aws = s3Client(s3);
      const made = await aws.fetch(`${s3.endpoint}/lakes`, { method: "PUT" });
      assert.equal(made.status, 200, await made.text());
      await threeNodes(() => ({
        args: ["-storage", "s3://lakes/shared"],
        env: {
          AWS_ENDPOINT_URL: s3.endpoint,
          AWS_REGION: s3.region,
          AWS_ACCESS_KEY_ID: s3.accessKeyId,
          AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
        },
      }));
      // The objects are in the bucket.
      const list = await aws.fetch(`${s3.endpoint}/lakes?list-type=2&prefix=shared/pools/`);
      assert.match(await list.text(), /<Key>shared\/pools\/\w+\/data\/\w+\.zng<\/Key>/);
    } finally {
      await s3.stop();
    }
  },
});
