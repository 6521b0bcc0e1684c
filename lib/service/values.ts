// Response values of the service with the reference's type names
// (lake-api.md §14): the commit response and the auth responses.

import { ksuidType } from "../lake/records.ts";
import type { KSUID } from "../lake/ksuid.ts";
import { zctx } from "../zed/context.ts";
import { Field, type Type, TypeString } from "../zed/types.ts";
import { Value } from "../zed/value.ts";

function named(name: string, fields: [string, Type][]): Type {
  return zctx.lookupNamed(name, zctx.lookupRecord(fields.map(([n, t]) => new Field(n, t))));
}

/** `api.CommitResponse`: warnings is [] after a load, null for other operations. */
export function commitResponseValue(commit: KSUID, warnings: string[] | null): Value {
  const t = named("api.CommitResponse", [
    ["commit", ksuidType()],
    ["warnings", zctx.lookupArray(TypeString)],
  ]);
  return new Value(t, [commit, warnings]);
}

/** `api.AuthMethodResponse` with authentication off: kind "" and no auth0 details. */
export function authMethodValue(
  method: { kind: string; auth0: { audience: string; clientId: string; domain: string } | null },
): Value {
  const details = named("api.AuthMethodAuth0Details", [
    ["audience", TypeString],
    ["client_id", TypeString],
    ["domain", TypeString],
  ]);
  const t = named("api.AuthMethodResponse", [
    ["kind", zctx.lookupNamed("api.AuthMethod", TypeString)],
    ["auth0", details],
  ]);
  const a = method.auth0;
  return new Value(t, [method.kind, a === null ? null : [a.audience, a.clientId, a.domain]]);
}

/** `api.AuthIdentityResponse`: the caller (the anonymous identity when authentication is off). */
export function authIdentityValue(id: { tenantId: string; userId: string }): Value {
  const t = named("api.AuthIdentityResponse", [["tenant_id", TypeString], ["user_id", TypeString]]);
  return new Value(t, [id.tenantId, id.userId]);
}
