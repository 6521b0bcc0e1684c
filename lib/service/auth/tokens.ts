// API tokens for scripts: long random secrets the operator hands out, kept
// on the server only as SHA-256 hashes in a JSON file (`-auth.tokens FILE`):
//
//   {"tokens": [{"name": "nightly", "sha256": "<hex>", "access": "read", "pools": ["logs"]}]}
//
// Each is read-only or read-write, and optionally limited to some pools (by
// name or id). `loch auth token` makes one and adds its hash to the file.

import { LochError } from "../../errors.ts";

export interface TokenGrant {
  name: string;
  sha256: string;
  access: "read" | "write";
  /** The pools it may touch (names or ids); absent: all. */
  pools?: string[];
}

/** Tokens start with this, so that they are told from JWTs (and found by secret scanners). */
export const TOKEN_PREFIX = "loch_";

export async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A new token: the prefix and 32 random bytes, base64url. */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const b64 = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
  return TOKEN_PREFIX + b64;
}

export class TokenStore {
  private constructor(private byHash: Map<string, TokenGrant>) {}

  static async open(path: string): Promise<TokenStore> {
    return new TokenStore(new Map((await readGrants(path)).map((g) => [g.sha256, g])));
  }

  /** The grant of a token, or undefined. */
  async lookup(token: string): Promise<TokenGrant | undefined> {
    return this.byHash.get(await hashToken(token));
  }
}

/** The grants of a tokens file (none when it does not exist). */
export async function readGrants(path: string): Promise<TokenGrant[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw new LochError("invalid", `auth.tokens: ${(e as Error).message}`);
  }
  let parsed: { tokens?: unknown };
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new LochError("invalid", `auth.tokens: ${path}: ${(e as Error).message}`);
  }
  const grants = Array.isArray(parsed.tokens) ? parsed.tokens : [];
  return grants.map((g, i) => {
    const ok = typeof g?.name === "string" && typeof g?.sha256 === "string" &&
      /^[0-9a-f]{64}$/.test(g.sha256) && (g.access === "read" || g.access === "write") &&
      (g.pools === undefined ||
        (Array.isArray(g.pools) && g.pools.every((p: unknown) => typeof p === "string")));
    if (!ok) throw new LochError("invalid", `auth.tokens: ${path}: token ${i} is malformed`);
    return g as TokenGrant;
  });
}

/** Makes a token, adds its grant to the file at path (made if missing); returns the token. */
export async function addToken(
  path: string,
  grant: Omit<TokenGrant, "sha256">,
): Promise<string> {
  const grants = await readGrants(path);
  if (grants.some((g) => g.name === grant.name)) {
    throw new LochError("conflict", `a token named ${JSON.stringify(grant.name)} exists`);
  }
  const token = newToken();
  grants.push({ ...grant, sha256: await hashToken(token) });
  const tmp = `${path}.tmp`;
  await Deno.writeTextFile(tmp, JSON.stringify({ tokens: grants }, null, 2) + "\n", {
    mode: 0o600,
  });
  await Deno.rename(tmp, path);
  return token;
}
