// Authentication and what each caller may do (SECURITY.md). Off by default,
// as in Zed. On (`-auth.enabled` with a JWKS, and/or `-auth.tokens`), every
// API route but GET /auth/method needs a bearer credential: a JWT as Zed
// validates it (jwt.ts), which may do anything, or an API token (tokens.ts),
// read-only or read-write and perhaps limited to some pools (whose events
// alone it then gets on /events). The auxiliary routes (/, /status,
// /version) stay open, as in Zed.

import { LochError } from "../../errors.ts";
import type { Lake } from "../../lake/lake.ts";
import { lookupPool } from "../../lake/pools.ts";
import { toBase62 } from "../../lake/ksuid.ts";
import { compileQuery } from "../../query/mod.ts";
import {
  ANONYMOUS_TENANT,
  ANONYMOUS_USER,
  AUDIENCE,
  bearerToken,
  type Identity,
  JwtValidator,
  unauthorized,
} from "./jwt.ts";
import { TOKEN_PREFIX, TokenStore } from "./tokens.ts";

export { addToken, readGrants, type TokenGrant } from "./tokens.ts";
export { AUDIENCE, type Identity } from "./jwt.ts";

/** Who is asking, and what they may do. */
export interface Principal {
  identity: Identity;
  access: "read" | "write";
  /** The pools they may touch (names or ids); null: all. */
  pools: string[] | null;
}

/** Everyone, when authentication is off. */
export const ANYONE: Principal = {
  identity: { tenantId: ANONYMOUS_TENANT, userId: ANONYMOUS_USER },
  access: "write",
  pools: null,
};

export interface AuthOptions {
  /** Zed's -auth.enabled: JWTs, validated with the JWKS at jwksPath. */
  enabled?: boolean;
  clientId?: string;
  domain?: string;
  jwksPath?: string;
  /** API tokens (tokens.ts). */
  tokensPath?: string;
}

export class Authenticator {
  private constructor(
    private opts: AuthOptions,
    private jwt: JwtValidator | null,
    private tokens: TokenStore | null,
  ) {}

  static async open(opts: AuthOptions = {}): Promise<Authenticator> {
    let jwt: JwtValidator | null = null;
    if (opts.enabled) {
      if (!opts.jwksPath) throw new LochError("invalid", "auth.enabled needs auth.jwkspath");
      jwt = await JwtValidator.open(opts.domain ?? "", opts.jwksPath);
    }
    const tokens = opts.tokensPath ? await TokenStore.open(opts.tokensPath) : null;
    return new Authenticator(opts, jwt, tokens);
  }

  get enabled(): boolean {
    return this.jwt !== null || this.tokens !== null;
  }

  /** GET /auth/method: "auth0" with its details when JWTs are on, else "". */
  get method(): {
    kind: string;
    auth0: { audience: string; clientId: string; domain: string } | null;
  } {
    return this.jwt === null ? { kind: "", auth0: null } : {
      kind: "auth0",
      auth0: {
        audience: AUDIENCE,
        clientId: this.opts.clientId ?? "",
        domain: this.opts.domain ?? "",
      },
    };
  }

  /** The caller of req, or a 401. */
  async authenticate(req: Request): Promise<Principal> {
    if (!this.enabled) return ANYONE;
    const token = bearerToken(req.headers.get("Authorization"));
    if (token === "") throw unauthorized();
    if (token.startsWith(TOKEN_PREFIX)) {
      const grant = await this.tokens?.lookup(token);
      if (grant === undefined) throw unauthorized("invalid token");
      return {
        identity: { tenantId: "tokens", userId: grant.name },
        access: grant.access,
        pools: grant.pools ?? null,
      };
    }
    if (this.jwt === null) throw unauthorized("invalid token");
    return { identity: await this.jwt.validate(token), access: "write", pools: null };
  }
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Throws a 403 unless p may make this request: route is the matched route's
 * pattern, params its path parameters. Queries are checked by
 * authorizeQuery (their pools are in their text).
 */
export function authorize(
  p: Principal,
  lake: Lake,
  method: string,
  route: string,
  params: Record<string, string>,
): void {
  const isQuery = route === "/query";
  if (p.access === "read" && !READS.has(method) && !isQuery) {
    throw forbidden("this token may only read");
  }
  if (p.pools === null || isQuery || route.startsWith("/auth/") || route === "/events") return;
  if (params.pool === undefined) {
    throw forbidden("this token may only use its pools");
  }
  if (!poolAllowed(p.pools, lake, params.pool)) {
    throw forbidden(`this token may not use pool ${params.pool}`);
  }
}

/**
 * For a pool-limited caller, which pools' events they get (by pool id;
 * a pool once seen allowed stays so, so that its deletion is announced);
 * undefined for everyone else.
 */
export function eventFilter(
  p: Principal,
  lake: Lake,
): ((poolId: Uint8Array) => boolean) | undefined {
  const allowed = p.pools;
  if (allowed === null) return undefined;
  const seen = new Set<string>();
  return (poolId) => {
    const id = toBase62(poolId);
    if (seen.has(id)) return true;
    if (poolAllowed(allowed, lake, id)) {
      seen.add(id);
      return true;
    }
    return false;
  };
}

/** Throws a 403 unless every pool a query reads is one p may use. */
export function authorizeQuery(p: Principal, lake: Lake, text: string, headPool: string): void {
  if (p.pools === null) return;
  const q = compileQuery(text.trim() === "" ? "*" : text);
  const sources = q.sources ?? [];
  if (sources.length === 0 && !poolAllowed(p.pools, lake, headPool)) {
    throw forbidden(`this token may not use pool ${headPool || "(none)"}`);
  }
  for (const plan of sources) {
    const src = plan.source;
    if (src.kind !== "Pool") continue;
    const name = src.spec.pool;
    if (name === null) throw forbidden("this token may not read the lake's metadata");
    if (name.kind !== "String") throw forbidden("this token may not name pools by pattern");
    const pool = name.text === "HEAD" ? headPool : name.text;
    if (!poolAllowed(p.pools, lake, pool)) throw forbidden(`this token may not use pool ${pool}`);
  }
}

function poolAllowed(allowed: string[], lake: Lake, nameOrId: string): boolean {
  if (nameOrId === "") return false;
  let pool;
  try {
    pool = lookupPool(lake.catalog, nameOrId);
  } catch {
    // A pool that does not exist: allowed only by its name (then it is a 404).
    return allowed.includes(nameOrId);
  }
  return allowed.includes(pool.name) || allowed.some((a) => {
    try {
      return toBase62(lookupPool(lake.catalog, a).id) === toBase62(pool.id);
    } catch {
      return false;
    }
  });
}

function forbidden(message: string): LochError {
  return new LochError("forbidden", message);
}
