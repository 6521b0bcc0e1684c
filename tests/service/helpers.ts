// Shared pieces of the service tests: a real server on 127.0.0.1 (port 0)
// over a lake in a temporary directory, and requests to it whose bodies are
// always read to the end (so no response resource outlives a test).

import { Lake } from "../../lib/lake/lake.ts";
import { testCatalog } from "../infra/test_catalog.ts";
import type { QueryRun } from "../../lib/service/context.ts";
import { type LakeServer, serve, type ServeOptions } from "../../lib/service/server.ts";
import { rawAcceptRoutes, routes } from "../../routes/mod.ts";

export const VERSION = "v1.3.0+loch.test";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface TestServer {
  /** The base URL, `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  server: LakeServer;
  lake: Lake;
  dir: string;
  /**
   * Every query the server started, in order: tracked when the test runs
   * queries on the server's thread (workers: 0, or an onQuery of its own).
   */
  queries: QueryRun[];
}

export type ServerOptions = Partial<Omit<ServeOptions, "lake" | "routes" | "hostname" | "port">>;

/** Runs fn against a fresh server and lake; then shuts the server down and removes the lake. */
export async function withServer(
  fn: (s: TestServer) => void | Promise<void>,
  opts: ServerOptions = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "loch-service-test-" });
  const lake = await Lake.open(dir, { catalog: await testCatalog() });
  const queries: QueryRun[] = [];
  let server: LakeServer | undefined;
  try {
    server = await serve({
      lake,
      hostname: "127.0.0.1",
      port: 0,
      logLevel: "error",
      version: VERSION,
      routes,
      rawAccept: rawAcceptRoutes,
      // The suite runs with the workers LOCH_WORKERS asks for (else the cores').
      ...opts,
      onQuery: opts.onQuery === undefined && opts.workers !== 0 ? undefined : (run) => {
        queries.push(run);
        opts.onQuery?.(run);
      },
    });
    const port = server.addr.port;
    await fn({ url: `http://127.0.0.1:${port}`, port, server, lake, dir, queries });
  } finally {
    if (server !== undefined) await server.shutdown();
    else lake.close();
    await Deno.remove(dir, { recursive: true });
  }
}

export interface Reply {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
}

export interface RequestInit {
  /**
   * A string is sent as its UTF-8 bytes (with no Content-Type unless given);
   * a stream without a length (chunked).
   */
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
}

/** Sends a request and reads the whole response. */
export async function call(
  s: TestServer,
  method: string,
  path: string,
  init: RequestInit = {},
): Promise<Reply> {
  const body = typeof init.body === "string" ? encoder.encode(init.body) : init.body;
  const res = await fetch(s.url + path, {
    method,
    body: body as BodyInit | undefined,
    headers: init.headers,
    redirect: "manual",
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: decoder.decode(bytes) };
}

export const get = (s: TestServer, path: string, headers?: Record<string, string>) =>
  call(s, "GET", path, { headers });

export const post = (
  s: TestServer,
  path: string,
  body?: string | Uint8Array,
  headers?: Record<string, string>,
) => call(s, "POST", path, { body, headers });

/** A JSON reply's value (after checking the status). */
export function jsonOf(r: Reply, status = 200): unknown {
  if (r.status !== status) throw new Error(`status ${r.status}, want ${status}: ${r.text}`);
  return JSON.parse(r.text);
}

/** Fails unless the reply has the status; returns its text. */
export function expect(r: Reply, status: number): string {
  if (r.status !== status) throw new Error(`status ${r.status}, want ${status}: ${r.text}`);
  return r.text;
}

/** The reference's error body. */
export function errorBody(kind: string, error: string, info?: unknown): string {
  const v: Record<string, unknown> = { type: "Error", kind, error };
  if (info !== undefined) v.info = info;
  return JSON.stringify(v) + "\n";
}

/** Creates a pool over HTTP; returns its id as 0x-hex. */
export async function createPool(
  s: TestServer,
  name: string,
  layout: { order: string; keys: string[][] } | null = { order: "desc", keys: [["ts"]] },
): Promise<string> {
  const body = JSON.stringify(layout === null ? { name } : { name, layout });
  const r = await post(s, "/pool", body, { Accept: "application/json" });
  return (jsonOf(r) as { pool: { id: string } }).pool.id;
}

/** Loads text (any detectable format) into a branch; returns the commit id as 0x-hex. */
export async function load(
  s: TestServer,
  pool: string,
  text: string | Uint8Array,
  branch = "main",
  headers: Record<string, string> = {},
): Promise<string> {
  const r = await post(s, `/pool/${pool}/branch/${branch}`, text, {
    Accept: "application/json",
    ...headers,
  });
  return (jsonOf(r) as { commit: string }).commit;
}

/** Runs a query; the reply as sent. */
export function query(
  s: TestServer,
  q: string,
  accept?: string,
  params = "",
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (accept !== undefined) headers.Accept = accept;
  return post(s, `/query${params}`, JSON.stringify({ query: q }), headers);
}

/** A query's ZSON output lines (fails unless 200). */
export async function zsonLines(s: TestServer, q: string): Promise<string[]> {
  const text = expect(await query(s, q), 200);
  return text.split("\n").filter((l) => l !== "");
}

/** Replaces every 0x-hex id with 0x<id>. */
export function hideIds(text: string): string {
  return text.replace(/0x[0-9a-f]{40}/g, "0x<id>");
}

/** A 0x-hex id as base62 (as paths and messages show it). */
export function base62(hex: string): string {
  const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let n = BigInt(hex);
  let s = "";
  while (n > 0n) {
    s = ALPHABET[Number(n % 62n)] + s;
    n /= 62n;
  }
  return s.padStart(27, "0");
}

/**
 * Sends raw bytes over TCP and returns the raw response (status line,
 * headers and body), for requests fetch cannot make.
 */
export async function rawRequest(s: TestServer, request: Uint8Array): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
  try {
    await conn.write(request);
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    let len = 0;
    for (const c of chunks) len += c.length;
    const all = new Uint8Array(len);
    len = 0;
    for (const c of chunks) {
      all.set(c, len);
      len += c.length;
    }
    return decoder.decode(all);
  } finally {
    conn.close();
  }
}

/** The bytes of an HTTP/1.1 request that closes its connection. */
export function rawHTTP(
  method: string,
  path: string,
  headers: [string, Uint8Array | string][],
  body: Uint8Array = new Uint8Array(),
  host = "localhost",
): Uint8Array {
  const parts: Uint8Array[] = [encoder.encode(`${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n`)];
  for (const [k, v] of headers) {
    parts.push(encoder.encode(`${k}: `), typeof v === "string" ? encoder.encode(v) : v);
    parts.push(encoder.encode("\r\n"));
  }
  parts.push(encoder.encode(`Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`), body);
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  len = 0;
  for (const p of parts) {
    out.set(p, len);
    len += p.length;
  }
  return out;
}

/** Rejects after ms unless p settles first. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Bytes as lower-case hex. */
export const hex = (b: Uint8Array) =>
  Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
