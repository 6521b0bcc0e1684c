// Bearer JWTs as Zed v1.3 validates them (lake-api.md §1.7): RS256, signed by
// a key of the JWKS file named by the token's `kid`, an `exp` that is present
// and in the future, the issuer `<domain>/`, the audience
// https://lake.brimdata.io, and tenant and user claims that are set and not
// the anonymous ids. Each failure has Zed's message, checked in Zed's order.

import { decodeProtectedHeader, importJWK, importX509, type JWTPayload, jwtVerify } from "jose";
import { LochError } from "../../errors.ts";

export const AUDIENCE = "https://lake.brimdata.io";
const TENANT_CLAIM = `${AUDIENCE}/tenant_id`;
const USER_CLAIM = `${AUDIENCE}/user_id`;
export const ANONYMOUS_TENANT = "tenant_000000000000000000000000001";
export const ANONYMOUS_USER = "user_000000000000000000000000001";

/** Who a request comes from. */
export interface Identity {
  tenantId: string;
  userId: string;
}

/** An authentication failure: 401 with one of Zed's messages. */
export function unauthorized(message = "missing authentication credentials"): LochError {
  return new LochError("unauthorized", message);
}

type Key = Awaited<ReturnType<typeof importX509>>;

/** The RSA methods a key verifies (a WebCrypto key is bound to one hash). */
const METHODS = ["RS256", "RS384", "RS512"] as const;

export class JwtValidator {
  private constructor(private keys: Map<string, Map<string, Key>>, private issuer: string) {}

  /** A validator for tokens from domain, signed by the keys of the JWKS file at path. */
  static async open(domain: string, jwksPath: string): Promise<JwtValidator> {
    if (!URL.canParse(domain) && !/^[\w.-]+$/.test(domain)) {
      throw new LochError("invalid", `bad auth.domain URL: ${domain}`);
    }
    let jwks: { keys?: { kid?: string; kty?: string; n?: string; e?: string; x5c?: string[] }[] };
    try {
      jwks = JSON.parse(await Deno.readTextFile(jwksPath));
    } catch (e) {
      throw new LochError("invalid", `failed to load JWKS file: ${(e as Error).message}`);
    }
    const keys = new Map<string, Map<string, Key>>();
    for (const k of jwks.keys ?? []) {
      if (k.kid === undefined) continue;
      const byMethod = new Map<string, Key>();
      for (const alg of METHODS) {
        if (k.x5c !== undefined && k.x5c.length > 0) {
          const pem = `-----BEGIN CERTIFICATE-----\n${k.x5c[0]}\n-----END CERTIFICATE-----`;
          byMethod.set(alg, await importX509(pem, alg));
        } else if (k.kty === "RSA" && k.n !== undefined && k.e !== undefined) {
          byMethod.set(alg, (await importJWK({ kty: "RSA", n: k.n, e: k.e }, alg)) as Key);
        }
      }
      if (byMethod.size > 0) keys.set(k.kid, byMethod);
    }
    // Zed's issuer is the domain URL as Go prints it, with a "/" added.
    return new JwtValidator(keys, `${domain}/`);
  }

  /** The token's identity, or a 401 with Zed's reason. */
  async validate(token: string): Promise<Identity> {
    if (token === "") throw unauthorized();
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw unauthorized("invalid token");
    }
    const byMethod = typeof header.kid === "string" ? this.keys.get(header.kid) : undefined;
    // Any RSA signature verifies here (as in Zed); a method other than RS256 is refused after.
    const key = byMethod?.get(header.alg ?? "");
    if (key === undefined) throw unauthorized("invalid token");
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, key, { algorithms: [...METHODS] }));
    } catch {
      throw unauthorized("invalid token");
    }
    if (header.alg !== "RS256") throw unauthorized("invalid signing method");
    if (typeof claims.exp !== "number" || claims.exp <= Date.now() / 1000) {
      throw unauthorized("invalid expiration");
    }
    if (claims.iss !== this.issuer) throw unauthorized("invalid issuer");
    const aud = claims.aud;
    if (!(aud === AUDIENCE || (Array.isArray(aud) && aud.includes(AUDIENCE)))) {
      throw unauthorized("invalid audience");
    }
    const tenant = claims[TENANT_CLAIM];
    if (typeof tenant !== "string" || tenant === "" || tenant === ANONYMOUS_TENANT) {
      throw unauthorized("invalid tenant id");
    }
    const user = claims[USER_CLAIM];
    if (typeof user !== "string" || user === "" || user === ANONYMOUS_USER) {
      throw unauthorized("invalid user id");
    }
    return { tenantId: tenant, userId: user };
  }
}

/** The bearer token of an Authorization header ("" when there is none or it is garbled). */
export function bearerToken(header: string | null): string {
  if (header === null) return "";
  const fields = header.trim().split(/\s+/);
  if (fields.length !== 2 || fields[0].toLowerCase() !== "bearer") return "";
  return fields[1];
}
