// Tokens as Zed's `gentoken` makes them, signed with Zed's own test key pair
// (tests/fixtures/auth), for the authentication tests.

import { createPrivateKey } from "node:crypto";
import { importPKCS8, type JWTPayload, SignJWT } from "jose";
import { AUDIENCE } from "../../lib/service/auth/mod.ts";

export const AUTH_FIXTURES = new URL("../fixtures/auth/", import.meta.url);

export type SigningKey = Parameters<SignJWT["sign"]>[0];

/** Zed's test private key, for the method given (RS256 unless told). */
export async function zedTestKey(alg = "RS256"): Promise<SigningKey> {
  const pem = await Deno.readTextFile(new URL("auth-private-key", AUTH_FIXTURES));
  const pkcs8 = createPrivateKey(pem).export({ type: "pkcs8", format: "pem" }) as string;
  return await importPKCS8(pkcs8, alg);
}

/**
 * A token for issuer `<domain>/`, the lake's audience, an hour's expiry and
 * the tenant and user claims; claims override (undefined removes one).
 */
export async function gentoken(
  key: SigningKey,
  domain: string,
  tenant: string,
  user: string,
  claims: JWTPayload = {},
  alg = "RS256",
  kid = "testkey",
): Promise<string> {
  const payload: JWTPayload = {
    iss: `${domain}/`,
    aud: AUDIENCE,
    exp: Math.floor(Date.now() / 1000) + 3600,
    [`${AUDIENCE}/tenant_id`]: tenant,
    [`${AUDIENCE}/user_id`]: user,
    ...claims,
  };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
  return await new SignJWT(payload).setProtectedHeader({ alg, kid }).sign(key);
}
