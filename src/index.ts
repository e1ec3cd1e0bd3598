/** The xbench library: what bench files and tools import from "xbench". */
export { VERSION } from "./version.ts";
export { metric, command, isolate } from "./bench/api.ts";
export type { CommandOptions } from "./bench/api.ts";
export type { Unit } from "./model/result.ts";
/** The name `Unit` had in 0.1 releases, kept so bench files that import it still compile. */
export type { Unit as MetricUnit } from "./model/result.ts";
export { trace, readAccessLog } from "./tracer/index.ts";
export type { Access, AccessMode, TraceBackend, TraceOptions, TraceResult, AccessLog } from "./tracer/index.ts";
export { XbenchError } from "./errors.ts";
export type { ErrorKind } from "./errors.ts";
