// GET /metrics (lib/service/metrics.ts): the Prometheus text format. An API
// route, so that with authentication on it needs credentials like the rest.

import type { RouteContext, RouteDef } from "../lib/service/context.ts";

async function metrics(_req: Request, ctx: RouteContext): Promise<Response> {
  const m = ctx.service.metrics;
  const h = ctx.headers;
  h.set("Content-Type", m?.contentType ?? "text/plain; version=0.0.4; charset=utf-8");
  return new Response(m === undefined ? "" : await m.text(), { status: 200, headers: h });
}

export const metricsRoutes: RouteDef[] = [{ method: "GET", path: "/metrics", handler: metrics }];
