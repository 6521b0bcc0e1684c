// Warming the service's own code before it serves: the lake's warm-up
// (lake/warmup.ts) runs queries in-process; this sends some of them, and the
// requests clients make around them, to a server of the warm-up lake over a
// loopback connection — the connection gate, Deno's HTTP server, routing,
// parameters, Accept negotiation and the streamed response bodies in each
// format, through the server's workers when given them (opts.pool) — so a
// client's first requests to the served lake do not run that code cold.
// (Sent to the handler directly, the gate and the HTTP server stayed cold:
// a fresh server's first query took ~8 ms more on this thread than its
// later ones.) Where the server cannot listen, straight to its handler.

import type { Lake } from "../lake/lake.ts";
import { LakeServer, type ServeOptions } from "./server.ts";

const FORMATS = [
  "application/x-zson",
  "application/json",
  "application/x-zjson",
  "application/x-ndjson",
  "application/x-zng",
];

/**
 * Sends warm-up requests to a handler over lake (the warm-up lake, with pools
 * "asc" and "desc"); errors are ignored. Returns how many were answered 2xx.
 */
export async function warmRequests(
  lake: Lake,
  queries: readonly string[],
  opts: Omit<ServeOptions, "lake" | "hostname" | "port" | "logLevel">,
  rounds = 2,
): Promise<number> {
  const server = new LakeServer({
    ...opts,
    lake,
    keepLakeOpen: true,
    hostname: "127.0.0.1",
    port: 0,
    logLevel: "error",
  });
  let base: string | null = null;
  try {
    await server.start();
    base = `http://127.0.0.1:${server.addr.port}`;
  } catch {
    // Straight to the handler.
  }
  const send = async (method: string, path: string, body?: string, accept?: string) => {
    const headers: Record<string, string> = {};
    if (accept !== undefined) headers.Accept = accept;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const req = new Request(`${base ?? "http://127.0.0.1"}${path}`, { method, body, headers });
    const res = base === null ? await server.handle(req) : await fetch(req);
    await res.arrayBuffer();
    if (res.ok) ok++;
  };
  let ok = 0;
  try {
    for (let r = 0; r < rounds; r++) {
      for (const q of queries) {
        for (const pool of ["asc", "desc"]) {
          const accept = FORMATS[(r + q.length + pool.length) % FORMATS.length];
          const body = JSON.stringify({ query: `from ${pool} | ${q}` });
          const ctrl = accept === "application/x-zjson" ? "?ctrl=true" : "";
          await send("POST", `/query${ctrl}`, body, accept);
        }
      }
      // What Zui asks around its queries: the pools, a branch tip, stats.
      await send("POST", "/query", JSON.stringify({ query: "from :pools" }), "application/json");
      await send("GET", "/pool/asc/branch/main", undefined, "application/json");
      await send("GET", "/pool/desc/stats", undefined, "application/json");
      await send("GET", "/status");
    }
  } catch {
    // Only time is lost.
  } finally {
    if (base !== null) await server.shutdown().catch(() => {});
    else server.service.events.close();
    // Workers shared with the served lake's server let go of the warm-up lake.
    server.service.pool?.release(lake.root);
  }
  return ok;
}
