// What a browser must not make the server do (SECURITY.md). Two checks run
// before any route:
//
// - Host: a page on another site can point a name it controls at 127.0.0.1
//   (DNS rebinding) and then read the lake as if same-origin. A server
//   listening on a loopback address therefore answers only requests whose
//   Host is a loopback name (localhost, 127.x.x.x, [::1]) or one the operator
//   allows (-allow-host); a server listening elsewhere checks Host only when
//   some are allowed.
// - Origin: a page may send "simple" cross-origin requests (form bodies,
//   text/plain) without asking first; a browser always says where they come
//   from. A request that changes the lake (any but GET, HEAD, OPTIONS and the
//   read-only POST /query) from an origin that is neither the server's own
//   nor one CORS allows is refused, whatever its content type. Clients that
//   are not browsers (curl, the Go CLI, Python, zed-js in Node) send no Origin.

import { LochError } from "../errors.ts";
import type { Cors } from "./cors.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export class RequestGuard {
  private readonly hosts: Set<string>;
  private readonly checkHost: boolean;

  /** listen is the address served on; allowHosts the names the operator added. */
  constructor(listen: string, allowHosts: readonly string[], private cors: Cors) {
    this.hosts = new Set(allowHosts.map((h) => h.toLowerCase()));
    this.checkHost = isLoopback(listen) || this.hosts.size > 0;
  }

  /** The reason to refuse req (a forbidden error), or null to serve it. */
  refusal(req: Request, url: URL): LochError | null {
    // The request URL's host is the Host header's (or HTTP/2's :authority).
    const host = url.host === "" ? null : url.host;
    if (this.checkHost && !this.hostAllowed(host)) {
      return new LochError("forbidden", `host not allowed: ${host ?? "(none)"}`);
    }
    const origin = req.headers.get("Origin");
    if (
      origin !== null && !SAFE_METHODS.has(req.method) &&
      !(req.method === "POST" && url.pathname === "/query") &&
      !this.cors.allowsOrigin(origin) && !sameOrigin(origin, host)
    ) {
      return new LochError("forbidden", `cross-origin request not allowed from ${origin}`);
    }
    return null;
  }

  private hostAllowed(host: string | null): boolean {
    if (host === null) return false;
    const name = hostName(host);
    return this.hosts.has(name) || isLoopback(name);
  }
}

/** The name of a Host header (without its port; an IPv6 address without brackets). */
function hostName(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") < 0 ? undefined : h.indexOf("]"));
  const colon = h.lastIndexOf(":");
  return colon < 0 ? h : h.slice(0, colon);
}

function isLoopback(name: string): boolean {
  return name === "localhost" || name.endsWith(".localhost") || name === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** Whether an Origin is this server's own (the same host and port as the request's Host). */
function sameOrigin(origin: string, host: string | null): boolean {
  if (host === null || !URL.canParse(origin)) return false;
  const o = new URL(origin);
  return (o.protocol === "http:" || o.protocol === "https:") && o.host === host.toLowerCase();
}
