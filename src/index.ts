/** The xbench library: what bench files and tools import from "xbench". */
export { VERSION } from "./version.ts";
export { metric, command, isolate } from "./bench/api.ts";
export type { MetricUnit, CommandOptions } from "./bench/api.ts";
export { trace, readAccessLog } from "./tracer/index.ts";
export type { Access, AccessMode, TraceBackend, TraceOptions, TraceResult, AccessLog } from "./tracer/index.ts";
