// Every route of the service, one module per resource.

import type { RouteDef } from "../lib/service/context.ts";
import { authRoutes } from "./auth.ts";
import { branchRoutes } from "./branch.ts";
import { eventRoutes } from "./events.ts";
import { indexRoutes } from "./index.ts";
import { opsRoutes } from "./ops.ts";
import { poolRoutes } from "./pool.ts";
import { queryRoutes } from "./query.ts";
import { metricsRoutes } from "./metrics.ts";
import { transactionRoutes } from "./transaction.ts";

export const routes: RouteDef[] = [
  ...authRoutes,
  ...eventRoutes,
  ...poolRoutes,
  ...branchRoutes,
  ...opsRoutes,
  ...indexRoutes,
  ...queryRoutes,
  ...metricsRoutes,
  ...transactionRoutes,
];

/** Routes whose handlers read Accept themselves. */
export const rawAcceptRoutes = new Set(["/events", "/metrics"]);
