// The query layer's front door: compile a query (parse, plan, build), run it,
// and what sources need to carry out their plans — expressions, operators,
// the vectorized filters and summaries over columns. The lake, the CLI and
// the service import the query layer through here only.

import "./aggregates/mod.ts";
import "./functions/mod.ts";

export type * as ast from "./ast.ts";
export { ParseError, parseQuery } from "./parser/parse.ts";
export {
  type CompiledQuery,
  compileQuery,
  type EncodedValues,
  type SourcePlan,
  withinStack,
} from "./compiler/compile.ts";
export { ExprCompiler, literalValue } from "./compiler/expr.ts";
export { OpCompiler } from "./compiler/ops.ts";
export { Scope } from "./compiler/scope.ts";
export { fieldPathOf } from "./compiler/demand.ts";
export type { HeadCut, HeadThrough, Pushdown } from "./planner/pushdown.ts";
export { type ChannelWriter, type RunOptions, runQuery, runScoped } from "./run.ts";
export { PartRun, SplitQuery } from "./split.ts";
export { isFromQuery, isYieldQuery } from "./compiler/inputs.ts";
export {
  LOCAL_ACCESS,
  NO_ACCESS,
  openFileSource,
  openSources,
  openURLSources,
  SERVICE_FETCH_TIMEOUT_MS,
  type SourceAccess,
  urlAllowed,
} from "./sources.ts";
export { parseByteSize, setMemoryBudget } from "./spill/config.ts";
export {
  queryMemoryLimit,
  setQueryMemory,
  setThreadMemoryLimit,
  threadMemoryHeld,
  threadMemoryLimit,
} from "./spill/memory.ts";
export type { Expr } from "./runtime/expr.ts";
export { Collector, type Op, type OpFactory } from "./runtime/op.ts";
export { BatchesReader, LimitReader, OpReader } from "./runtime/opreader.ts";
export { buildPausing, enterWork, maybeYield, shareEventLoop } from "./runtime/turns.ts";
export { FALSE, isError, isMissing, isQuiet, MISSING, NULL, TRUE } from "./runtime/values.ts";
export { filterOne, scanKeeps, throughFilters } from "./ops/where.ts";
export { Summarize } from "./ops/summarize.ts";
export { NotRecordable } from "./aggregates/recorder.ts";
export { compileFieldPath } from "./expr/access.ts";
export { walkValue } from "./expr/contain.ts";
export { globToRegexp } from "./expr/glob.ts";
export { compileRegexp } from "./expr/regexp.ts";
export { valueKey } from "./aggregates/value-key.ts";
export { type Selection, VectorFilter } from "./vector/filter.ts";
export type { ColumnarObject, ColumnRef } from "./vector/object.ts";
export { VectorSummarize } from "./vector/summarize.ts";
export { mergeRows, RunKeys, type TieOrder } from "./vector/keymerge.ts";
export { type PathValues, pathValues } from "./vector/pathvalues.ts";
export { derivedKeys } from "./vector/derivedkeys.ts";
export { LeastK } from "./runtime/leastk.ts";
export type { PreparedGroups } from "./vector/grouping.ts";
export { lookupPath } from "./vector/paths.ts";
export { asciiSetOf } from "./vector/asciiset.ts";
export { fuseTypes } from "./aggregates/fuse-type.ts";
export { CAST, constShaper, FILL, ORDER } from "./expr/shaper.ts";
export { heapDown, type HeapPlaces, heapUp } from "./ops/goheap.ts";
