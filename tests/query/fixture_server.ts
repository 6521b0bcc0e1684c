// A local HTTP server (127.0.0.1, port 0) serving fixture data for the tests
// of `get` sources, and a port that refuses connections.

export interface Fixture {
  body: string | Uint8Array<ArrayBuffer> | null;
  status?: number;
  headers?: Record<string, string>;
}

export interface FixtureServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The paths requested so far, in order. */
  requests: string[];
}

/** Runs fn with a server answering each path of `files` (404 for others), then stops it. */
export async function withFixtureServer(
  files: Record<string, Fixture>,
  fn: (s: FixtureServer) => Promise<void>,
): Promise<void> {
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    requests.push(path);
    const f = files[path];
    if (f === undefined) return new Response("not here", { status: 404 });
    return new Response(f.body, { status: f.status ?? 200, headers: f.headers });
  });
  try {
    await fn({ url: `http://127.0.0.1:${server.addr.port}`, requests });
  } finally {
    await server.shutdown();
  }
}

/** A loopback port nothing listens on. */
export function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
