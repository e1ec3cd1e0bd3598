/**
 * The file-access tracer: runs a command under xbench-supervisor (preload shim and/or
 * seccomp supervisor, see native/) and reports which files its process tree touched.
 */
export type { Access, AccessMode, TraceBackend, UsedBackend } from "./types.ts";
export { ACCESS_MODES } from "./types.ts";
export { formatAccesses, summaryLine, modeCounts, type TraceFormat } from "./format.ts";
export { supervisorArgs } from "./launch.ts";
export { readAccessLog, incompleteReasons, type AccessLog } from "./read.ts";
export { trace, SUPERVISOR, PRELOAD_SHIM, type TraceOptions, type TraceResult } from "./run.ts";
