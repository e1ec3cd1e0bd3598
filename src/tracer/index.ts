/**
 * The file-access tracer: runs a command under the platform's launcher (Linux: xbench-supervisor
 * with the preload shim and/or seccomp; Windows: xbench-launch.exe with the hook DLL; macOS, experimental: xbench-mac-launch with the
 * interposing dylib; see native/ and platform.ts) and reports which files its process tree touched.
 */
export type { Access, AccessMode, TraceBackend, UsedBackend } from "./types.ts";
export { ACCESS_MODES } from "./types.ts";
export { formatAccesses, summaryLine, modeCounts, type TraceFormat } from "./format.ts";
export { supervisorArgs } from "./launch.ts";
export {
  EXPERIMENTAL_NOTICE,
  EXPERIMENTAL_TRACE_OS,
  PRELOAD_SHIM,
  SUPERVISOR,
  WINDOWS_HOOK,
  WINDOWS_LAUNCHER,
  launcherArgs,
  tracerKind,
} from "./platform.ts";
export { readAccessLog, incompleteReasons, type AccessLog } from "./read.ts";
export { trace, type TraceOptions, type TraceResult } from "./run.ts";
