// GET /events (lake-api.md §13): a server-sent event stream. The whole
// Accept header is one media type here (default ZSON), as in the reference;
// a browser's EventSource (Accept: text/event-stream) gets JSON. Streams
// with ids, which can be resumed with Last-Event-ID, are for those that ask
// (lib/service/events.ts).

import { invalid } from "../lib/errors.ts";
import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { negotiate } from "../lib/service/mime.ts";
import { eventFilter } from "../lib/service/auth/mod.ts";

function events(req: Request, ctx: RouteContext): Response {
  const accept = req.headers.get("Accept");
  const eventSource = /^\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? "");
  let format = eventSource ? "json" : negotiate(accept);
  if (format === "parquet" || format === "csv") {
    throw invalid(`events cannot be sent as ${format}`);
  }
  if (format === "ndjson") format = "json";
  // The Go client's frame reader cannot skip keep-alive comments.
  const ua = req.headers.get("User-Agent") ?? "";
  const keepalive = !ua.startsWith("Go-http-client");
  const h = ctx.headers;
  h.set("Content-Type", "text/event-stream");
  h.set("Cache-Control", "no-cache");
  const accepts = eventFilter(ctx.principal, ctx.service.lake);
  const url = ctx.url;
  const lastEventId = req.headers.get("Last-Event-ID") ?? url.searchParams.get("last_event_id") ??
    undefined;
  const ids = eventSource || lastEventId !== undefined || url.searchParams.get("ids") === "true";
  const start = { ids, lastEventId };
  return new Response(ctx.service.events.stream(format, keepalive, accepts, start), {
    status: 200,
    headers: h,
  });
}

export const eventRoutes: RouteDef[] = [{ method: "GET", path: "/events", handler: events }];
