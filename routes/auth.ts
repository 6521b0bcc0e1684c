// GET /auth/method and /auth/identity (lake-api.md §5.1–5.2). Authentication
// is not enabled in loch: the method is "" and the identity anonymous.

import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { valueResponse } from "../lib/service/respond.ts";
import { authIdentityValue, authMethodValue } from "../lib/service/values.ts";

export const authRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/auth/method",
    handler: (_req: Request, ctx: RouteContext) =>
      valueResponse(ctx.format, authMethodValue(), ctx.headers),
  },
  {
    method: "GET",
    path: "/auth/identity",
    handler: (_req: Request, ctx: RouteContext) =>
      valueResponse(ctx.format, authIdentityValue(), ctx.headers),
  },
];
