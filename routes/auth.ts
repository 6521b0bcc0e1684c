// GET /auth/method and /auth/identity (lake-api.md §5.1–5.2): how clients
// authenticate ("" when authentication is off, "auth0" with JWTs), and who
// the caller is (the anonymous identity when it is off).

import { ANYONE } from "../lib/service/auth/mod.ts";
import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { valueResponse } from "../lib/service/respond.ts";
import { authIdentityValue, authMethodValue } from "../lib/service/values.ts";

export const authRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/auth/method",
    handler: (_req: Request, ctx: RouteContext) =>
      valueResponse(
        ctx.format,
        authMethodValue(ctx.service.auth?.method ?? { kind: "", auth0: null }),
        ctx.headers,
      ),
  },
  {
    method: "GET",
    path: "/auth/identity",
    handler: (_req: Request, ctx: RouteContext) =>
      valueResponse(ctx.format, authIdentityValue((ctx.principal ?? ANYONE).identity), ctx.headers),
  },
];
