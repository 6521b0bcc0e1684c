// The connection gate over real sockets, in front of a plain Deno server on a
// Unix socket: the cap, the header, idle and body timeouts, and what must
// pass untouched (pipelining, chunked bodies, long answers, disconnects).

import assert from "node:assert";
import {
  ConnectionGate,
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
} from "../../lib/service/gate.ts";
import { withServer } from "./helpers.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Setup {
  gate: ConnectionGate;
  aborted: string[];
  stop(): Promise<void>;
}

/** A gate with the given limits before a server whose answers tests steer by path. */
async function setup(limits: Partial<ConnectionLimits>): Promise<Setup> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/s.sock`;
  const aborted: string[] = [];
  const server = Deno.serve({ path, onListen: () => {} }, async (req) => {
    const url = new URL(req.url.replace(/^http\+unix:/, "http:"));
    req.signal.addEventListener("abort", () => aborted.push(url.pathname));
    if (url.pathname === "/slow") await sleep(Number(url.searchParams.get("ms")));
    if (url.pathname === "/hang") await new Promise((r) => req.signal.addEventListener("abort", r));
    const body = req.body === null ? "" : await req.text();
    return new Response(`${req.method} ${url.pathname} ${body}`);
  });
  const gate = ConnectionGate.listen("127.0.0.1", 0, { transport: "unix", path }, {
    ...DEFAULT_CONNECTION_LIMITS,
    ...limits,
  });
  return {
    gate,
    aborted,
    async stop() {
      await gate.close();
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Reads until the connection closes or `until` appears; what was read, and whether it closed. */
async function readConn(
  c: Deno.Conn,
  until?: string,
  ms = 5000,
): Promise<{ text: string; closed: boolean }> {
  let text = "";
  const buf = new Uint8Array(4096);
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const n = await Promise.race([c.read(buf).catch(() => null), sleep(deadline - Date.now())]);
    if (n === undefined) break; // timed out
    if (n === null) return { text, closed: true };
    text += dec(buf.subarray(0, n as number));
    if (until !== undefined && text.includes(until)) return { text, closed: false };
  }
  return { text, closed: false };
}

const connect = (g: ConnectionGate) => Deno.connect({ hostname: "127.0.0.1", port: g.addr.port });

Deno.test("gate: past the cap a connection is answered 503 and closed; freed places are reused", async () => {
  const s = await setup({ maxConnections: 2 });
  try {
    const a = await connect(s.gate), b = await connect(s.gate);
    await sleep(50);
    const c = await connect(s.gate);
    const refused = await readConn(c);
    assert.match(refused.text, /^HTTP\/1\.1 503 /);
    assert.match(refused.text, /too many open connections/);
    assert(refused.closed);
    assert.strictEqual(s.gate.counts.refused, 1);
    a.close();
    c.close();
    for (let i = 0; i < 100 && s.gate.counts.open > 1; i++) await sleep(20);
    const d = await connect(s.gate);
    await d.write(enc("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"));
    assert.match((await readConn(d, "GET /ok")).text, /200 OK/);
    b.close();
    d.close();
  } finally {
    await s.stop();
  }
});

Deno.test("gate: a head not sent within the header timeout is answered 408", async () => {
  const s = await setup({ headerTimeoutMs: 150 });
  try {
    const slow = await connect(s.gate);
    await slow.write(enc("GET /ok HTTP/1.1\r\nHost: x\r\n"));
    const silent = await connect(s.gate);
    for (const c of [slow, silent]) {
      const r = await readConn(c);
      assert.match(r.text, /^HTTP\/1\.1 408 /);
      assert(r.closed);
      c.close();
    }
    assert.strictEqual(s.gate.counts.headerTimeouts, 2);
  } finally {
    await s.stop();
  }
});

Deno.test("gate: an idle keep-alive connection is closed; one in use is not", async () => {
  const s = await setup({ idleTimeoutMs: 150, headerTimeoutMs: 150, bodyTimeoutMs: 150 });
  try {
    const c = await connect(s.gate);
    // An answer that takes four times every timeout still arrives.
    await c.write(enc("GET /slow?ms=600 HTTP/1.1\r\nHost: x\r\n\r\n"));
    const r = await readConn(c, "GET /slow");
    assert.match(r.text, /200 OK/);
    assert(!r.closed);
    // Then nothing: the connection is closed without a word.
    const idle = await readConn(c);
    assert.strictEqual(idle.text, "");
    assert(idle.closed);
    assert.strictEqual(s.gate.counts.idleTimeouts, 1);
    assert.strictEqual(s.gate.counts.headerTimeouts, 0);
    c.close();
  } finally {
    await s.stop();
  }
});

Deno.test("gate: a body that stalls is cut off after the body timeout", async () => {
  const s = await setup({ bodyTimeoutMs: 150 });
  try {
    const c = await connect(s.gate);
    await c.write(enc("POST /load HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789"));
    const r = await readConn(c);
    assert(r.closed);
    assert.strictEqual(s.gate.counts.bodyTimeouts, 1);
    c.close();
  } finally {
    await s.stop();
  }
});

Deno.test("gate: pipelined requests, chunked bodies and 100-continue pass through intact", async () => {
  const s = await setup({});
  try {
    const c = await connect(s.gate);
    await c.write(enc(
      "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" +
        "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi" +
        "HEAD /c HTTP/1.1\r\nHost: x\r\n\r\n" +
        "GET /d HTTP/1.1\r\nHost: x\r\n\r\n",
    ));
    const r = await readConn(c, "GET /d ");
    assert.match(r.text, /POST \/a abc/);
    assert.match(r.text, /POST \/b hi/);
    assert.match(r.text, /GET \/d /);
    // The HEAD answer had no body (else /d's answer would have been taken for it).
    assert.match(r.text, /HTTP\/1\.1 200 OK[^]*HTTP\/1\.1 200 OK[^]*HTTP\/1\.1 200 OK[^]*GET \/d/);
    const e = await connect(s.gate);
    await e.write(enc(
      "POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n",
    ));
    await sleep(50);
    await e.write(enc("body"));
    assert.match((await readConn(e, "POST /e body")).text, /POST \/e body/);
    c.close();
    e.close();
  } finally {
    await s.stop();
  }
});

Deno.test("gate: a client that goes away mid-answer aborts the server's request", async () => {
  const s = await setup({});
  try {
    const c = await connect(s.gate);
    await c.write(enc("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n"));
    await sleep(100);
    c.close();
    for (let i = 0; i < 100 && s.aborted.length === 0; i++) await sleep(20);
    assert.deepStrictEqual(s.aborted, ["/hang"]);
  } finally {
    await s.stop();
  }
});

Deno.test("gate: a head past the size limit is answered 431", async () => {
  const s = await setup({});
  try {
    const c = await connect(s.gate);
    await c.write(enc("GET / HTTP/1.1\r\nX-Big: " + "a".repeat(70 << 10) + "\r\n\r\n"));
    const r = await readConn(c);
    assert.match(r.text, /^HTTP\/1\.1 431 /);
    assert(r.closed);
    c.close();
  } finally {
    await s.stop();
  }
});

Deno.test("gate: a server whose address is taken fails to start and leaves nothing behind", () =>
  withServer(async (s) => {
    // In a process of its own: one whose inner server stayed up would not end.
    const server = new URL("../../lib/service/server.ts", import.meta.url).href;
    const lakeMod = new URL("../../lib/lake/lake.ts", import.meta.url).href;
    const routesMod = new URL("../../routes/mod.ts", import.meta.url).href;
    const script = `
      const { serve } = await import(${JSON.stringify(server)});
      const { Lake } = await import(${JSON.stringify(lakeMod)});
      const { routes } = await import(${JSON.stringify(routesMod)});
      const lake = await Lake.open(${JSON.stringify(`${s.dir}/other`)});
      try {
        await serve({ lake, hostname: "127.0.0.1", port: ${s.port}, logLevel: "error",
          version: "test", routes, workers: 0 });
        console.log("started");
      } catch (e) {
        console.log(e.name);
      }
      lake.close();
    `;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", script],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const out = await child.output();
    clearTimeout(timer);
    assert.strictEqual(new TextDecoder().decode(out.stdout).trim(), "AddrInUse");
    assert.strictEqual(out.code, 0, "the process ended on its own");
  }));
