// A real S3 server for tests of lake storage in object stores: OpenStack
// Swift with its s3api and tempauth middlewares (Debian's swift-proxy,
// swift-account, swift-container, swift-object), one replica, on free
// 127.0.0.1 ports, all state in a fresh temp dir. startS3() is null when
// Swift is not installed; stop() ends the servers and removes the dir.

import { AwsClient } from "aws4fetch";
import {
  backendConf,
  proxyConf,
  S3_ACCESS_KEY,
  S3_REGION,
  S3_SECRET_KEY,
  SERVE,
  swiftConf,
  type SwiftLayout,
} from "./s3_config.ts";

export interface S3Server {
  /** http://127.0.0.1:port; buckets are path-style: `${endpoint}/${bucket}/${key}`. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

/**
 * A client signing requests to server with its credentials; it does not
 * retry (aws4fetch would retry 5xx answers for ~25 s by default).
 */
export function s3Client(server: S3Server): AwsClient {
  return new AwsClient({
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    region: server.region,
    service: "s3",
    retries: 0,
  });
}

const PYTHON = "/usr/bin/python3";
const PROGRAMS = ["account", "container", "object", "proxy"].map((k) =>
  `/usr/bin/swift-${k}-server`
);
const START_TIMEOUT_MS = 30_000;

/** Whether Debian's Swift servers (and the python3 they run on) are installed. */
export function s3Binaries(): boolean {
  return [PYTHON, ...PROGRAMS].every((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
}

function freePorts(n: number): number[] {
  const listeners = Array.from(
    { length: n },
    () => Deno.listen({ hostname: "127.0.0.1", port: 0 }),
  );
  const ports = listeners.map((l) => l.addr.port);
  for (const l of listeners) l.close();
  return ports;
}

async function tail(path: string): Promise<string> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.split("\n").slice(-20).join("\n");
}

/** Starts account, container, object and proxy servers; resolves once the proxy answers. */
export async function startS3(): Promise<S3Server | null> {
  if (!s3Binaries()) return null;
  const dir = await Deno.makeTempDir({ prefix: "loch-s3-" });
  const log = `${dir}/swift.log`;
  let child: Deno.ChildProcess | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      if (child) {
        // Closing stdin ends the server (see SERVE); SIGKILL if it lingers.
        await child.stdin.close().catch(() => {});
        const timer = setTimeout(() => kill(child!, "SIGKILL"), 3000);
        await child.status;
        clearTimeout(timer);
      }
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    })();

  try {
    const [proxy, account, container, object, memcache] = freePorts(5);
    const l: SwiftLayout = { dir, proxy, account, container, object, memcache };
    await Deno.writeTextFile(`${dir}/swift.conf`, swiftConf());
    await Deno.writeTextFile(`${dir}/proxy-server.conf`, proxyConf(l));
    for (const k of ["account", "container", "object"] as const) {
      await Deno.writeTextFile(`${dir}/${k}-server.conf`, backendConf(l, k));
    }
    // Through sh for the redirection: the log holds Python's own errors too.
    child = new Deno.Command("/bin/sh", {
      args: [
        "-c",
        `exec "$0" -c "$1" "$2" "$3" >"$4" 2>&1`,
        PYTHON,
        SERVE,
        dir,
        JSON.stringify({ account, container, object }),
        log,
      ],
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    let exited = false;
    child.status.then(() => exited = true);

    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (exited) {
        const { code } = await child.status;
        throw new Error(`swift exited (${code}):\n${await tail(log)}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`swift did not answer in time:\n${await tail(log)}`);
      }
      const ok = await fetch(`http://127.0.0.1:${proxy}/healthcheck`).then(async (r) => {
        await r.body?.cancel();
        return r.ok;
      }, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    return {
      endpoint: `http://127.0.0.1:${proxy}`,
      region: S3_REGION,
      accessKeyId: S3_ACCESS_KEY,
      secretAccessKey: S3_SECRET_KEY,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

function kill(child: Deno.ChildProcess, signal: Deno.Signal) {
  try {
    child.kill(signal);
  } catch {
    // Already gone.
  }
}
