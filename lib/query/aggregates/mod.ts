// Importing this module registers every aggregate function.

import "./any.ts";
import "./avg.ts";
import "./collect.ts";
import "./count.ts";
import "./fuse.ts";
import "./logical.ts";
import "./map.ts";
import "./math.ts";
import "./union.ts";

export { fuseTypes } from "./fuse-type.ts";
export { isAggregateName, lookupAggregate } from "./registry.ts";
export type { AggregateDef, Aggregator } from "./registry.ts";
