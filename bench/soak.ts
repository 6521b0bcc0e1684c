// A soak of `loch serve` with a hostile client: for --seconds (default 60),
// --clients loops (default 8) send bad input to every route (random methods,
// paths, headers, bodies), fuzzed load bodies of every format and fuzzed
// queries (tests/fuzz), then check the server is still up and answering.
// Every request here is a client's fault, so a 5xx is a bug; a request with
// no answer within --timeout seconds (default 30) is a hang. Prints the
// counts and samples, and exits 1 on any crash, hang or 5xx.
//
//   deno run -A bench/soak.ts [--seconds N] [--clients N] [--timeout S]

import { parseArgs } from "node:util";
import { FUZZED, Mutator, validBody } from "../tests/fuzz/formats.ts";
import { QueryMutator } from "../tests/fuzz/queries.ts";
import { ServerProcess } from "./httpclient.ts";

const PATHS = [
  "/pool",
  "/pool/p",
  "/pool/p/branch/main",
  "/pool/p/branch/main/delete",
  "/pool/p/branch/main/compact",
  "/pool/p/branch/main/merge/dev",
  "/pool/p/branch/main/revert/0x0000000000000000000000000000000000000000",
  "/pool/p/branch/main/index",
  "/pool/p/stats",
  "/pool/nosuch/branch/x",
  "/pool/%ZZ",
  "/pool/p%00x",
  "/index",
  "/query",
  "/events",
  "/auth/identity",
  "/auth/method",
  "/version",
  "/status",
  "/nope",
  "//pool/../pool",
];
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];
const TYPES = [
  "",
  "application/json",
  "application/x-zson",
  "application/x-zng",
  "application/x-parquet",
  "text/csv",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "garbage/",
  "*/*",
];
const ACCEPTS = ["", "application/json", "application/x-zjson", "text/csv", "nope/nope", "*/*"];

interface Tally {
  requests: number;
  byStatus: Map<number, number>;
  serverErrors: string[];
  hangs: string[];
}

export async function soak(seconds: number, clients: number, timeoutS: number): Promise<number> {
  const tmp = await Deno.makeTempDir({ prefix: "loch-soak-" });
  const server = await ServerProcess.start(`${tmp}/lake`, tmp, [], ["-warmup=false"]);
  const tally: Tally = { requests: 0, byStatus: new Map(), serverErrors: [], hangs: [] };
  const bodies = await Promise.all(Object.keys(FUZZED).map((f) => validBody(f)));
  await fetch(`${server.url}/pool`, { method: "POST", body: '{"name":"p"}' }).then((r) => r.text());
  const deadline = performance.now() + seconds * 1000;
  const loop = async (k: number) => {
    const m = new Mutator(k + 1);
    const q = new QueryMutator(k + 101);
    let seed = k * 7919 + 1;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    while (performance.now() < deadline && server.running) {
      let method: string, path: string, body: BodyInit | undefined;
      const headers: Record<string, string> = {};
      const kind = rand(3);
      if (kind === 0) {
        method = METHODS[rand(METHODS.length)];
        path = PATHS[rand(PATHS.length)];
        const b = bodies[rand(bodies.length)];
        body = method === "GET" || method === "HEAD" ? undefined : m.mutate(b) as BodyInit;
        const t = TYPES[rand(TYPES.length)];
        if (t !== "") headers["Content-Type"] = t;
      } else if (kind === 1) {
        method = "POST";
        path = "/pool/p/branch/main";
        body = m.mutate(bodies[rand(bodies.length)]) as BodyInit;
      } else {
        method = "POST";
        path = "/query";
        body = JSON.stringify({ query: `from p | ${q.mutate()}` });
        headers["Content-Type"] = "application/json";
      }
      const a = ACCEPTS[rand(ACCEPTS.length)];
      if (a !== "") headers.Accept = a;
      const what = `${method} ${path}`;
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(), timeoutS * 1000);
      try {
        const res = await fetch(server.url + path, { method, headers, body, signal: ctl.signal });
        // Events never end: their headers are the answer.
        const text = path === "/events" && res.ok
          ? await res.body!.cancel().then(() => "")
          : await res.text();
        tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
        if (res.status >= 500) {
          tally.serverErrors.push(`${what}: ${res.status} ${text.slice(0, 160)}`);
        }
      } catch (e) {
        if (ctl.signal.aborted) tally.hangs.push(what);
        else if (server.running) tally.serverErrors.push(`${what}: ${String(e).slice(0, 120)}`);
      } finally {
        clearTimeout(timer);
      }
      tally.requests++;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, k) => loop(k)));
  const crashed = !server.running;
  const answers = !crashed &&
    await fetch(`${server.url}/status`).then((r) => r.text(), () => "") === "ok";
  console.log(`soak: ${seconds} s, ${clients} clients, ${tally.requests} requests`);
  console.log(
    `  statuses: ${
      [...tally.byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(" ")
    }`,
  );
  console.log(
    `  crashes: ${
      crashed ? 1 : 0
    }, hangs: ${tally.hangs.length}, 5xx: ${tally.serverErrors.length}`,
  );
  for (const e of tally.serverErrors.slice(0, 10)) console.log(`    ${e}`);
  for (const h of tally.hangs.slice(0, 5)) console.log(`    hang: ${h}`);
  if (crashed) console.log(server.log.slice(-2000));
  else await server.stop().catch(() => {});
  await Deno.remove(tmp, { recursive: true }).catch(() => {});
  return crashed || !answers || tally.hangs.length > 0 || tally.serverErrors.length > 0 ? 1 : 0;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      seconds: { type: "string", default: "60" },
      clients: { type: "string", default: "8" },
      timeout: { type: "string", default: "30" },
    },
  });
  Deno.exit(await soak(Number(values.seconds), Number(values.clients), Number(values.timeout)));
}
