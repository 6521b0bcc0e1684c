// CORS (lake-api.md §1.6, clients.md §3.5). Allowed origins come from
// `--cors-origin` (default Zed v1.3's: `*.observableusercontent.com` and
// `localhost`; Zui runs its own lake with `*`); a pattern may start with `*.`
// to allow a domain's subdomains, and `*` allows all. An allowed origin is
// reflected with credentials allowed. Preflight requests
// are answered on every route, and the headers clients send (Zed-Commit
// included) may be asked for.

const METHODS = new Set(["HEAD", "GET", "POST", "PUT", "PATCH", "DELETE"]);
const HEADERS = new Set([
  "authorization",
  "accept",
  "content-type",
  "x-requested-with",
  "origin",
  "zed-commit",
  "x-request-id",
]);

/** The origins Zed v1.3 allows. */
export const ZED_ORIGINS = ["*.observableusercontent.com", "localhost"];

export class Cors {
  constructor(private origins: string[] = ZED_ORIGINS) {}

  allowsOrigin(origin: string): boolean {
    for (const o of this.origins) {
      if (o === "*" || o === origin) return true;
      if (o.startsWith("*.") && origin.endsWith(o.slice(1))) return true;
    }
    return false;
  }

  /** Whether the request is a preflight (OPTIONS asking about a method). */
  isPreflight(req: Request): boolean {
    return req.method === "OPTIONS" && req.headers.has("Access-Control-Request-Method");
  }

  /** The answer to a preflight request. */
  preflight(req: Request): Response {
    const h = new Headers();
    h.append("Vary", "Origin");
    h.append("Vary", "Access-Control-Request-Method");
    h.append("Vary", "Access-Control-Request-Headers");
    const origin = req.headers.get("Origin");
    const method = (req.headers.get("Access-Control-Request-Method") ?? "").toUpperCase();
    const asked = (req.headers.get("Access-Control-Request-Headers") ?? "")
      .split(",").map((s) => s.trim()).filter((s) => s !== "");
    const headersOk = asked.every((x) => HEADERS.has(x.toLowerCase()));
    if (origin !== null && this.allowsOrigin(origin) && METHODS.has(method) && headersOk) {
      h.set("Access-Control-Allow-Origin", origin);
      h.set("Access-Control-Allow-Methods", method);
      if (asked.length > 0) h.set("Access-Control-Allow-Headers", asked.map(canonical).join(", "));
      h.set("Access-Control-Allow-Credentials", "true");
    }
    return new Response(null, { status: 204, headers: h });
  }

  /** Adds the headers of an actual (non-preflight) request's response. */
  decorate(req: Request, h: Headers): void {
    h.append("Vary", "Origin");
    const origin = req.headers.get("Origin");
    if (origin !== null && this.allowsOrigin(origin) && METHODS.has(req.method)) {
      h.set("Access-Control-Allow-Origin", origin);
      h.set("Access-Control-Allow-Credentials", "true");
    }
  }
}

/** Go's canonical header form: `content-type` → `Content-Type`. */
function canonical(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, d, c) => d + c.toUpperCase());
}
