/**
 * Validation before any timing: every tracer build (head, base) with every backend must
 * report the target's missing path in its log, or the numbers would time a tracer that
 * records nothing.
 */
import { closeSync, existsSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "pathe";
import { XbenchError } from "../../errors.ts";
import { SUPERVISOR, VALIDATION_WORKLOAD, launchFor, threadPath, type Arm } from "./arms.ts";
import { runTimed } from "./launch.ts";
import type { Backend } from "./model.ts";

/** What validation needs of a parsed log: each access's path and modes. */
export interface LoggedAccess {
  path: string;
  modes: readonly string[];
}

/** A parsed log: its accesses, and why the trace may be incomplete (empty when complete). */
export interface LoggedTrace {
  accesses: LoggedAccess[];
  incompleteReasons: string[];
}

/** Reads a tracer log file (the tracer's own parser). */
export type ReadLog = (logFile: string) => LoggedTrace;

/** True when the log shows `path` as missing. */
export function reportsMissing(accesses: readonly LoggedAccess[], path: string): boolean {
  return accesses.some((access) => access.path === path && access.modes.includes("missing"));
}

/** `head helper (DIR)` */
export function describeArm(arm: Arm): string {
  return `${arm.name} helper (${arm.helperDir})`;
}

/** A helper folder must hold the supervisor; says which folder and which file is missing. */
export function checkHelperDir(arm: Arm): void {
  if (!arm.helperDir || !existsSync(join(arm.helperDir, SUPERVISOR))) {
    throw new XbenchError(`${describeArm(arm)} has no ${SUPERVISOR}; pass a folder with a build of the helpers`);
  }
}

/** How much of a log the format-agnostic check reads: validation logs hold a few dozen records. */
const RAW_SCAN_LIMIT = 64 << 20;

/**
 * Whether the bytes of `path` occur in the first `limit` bytes of `file`. Every version of the
 * log records raw paths, so this recognizes a log written by another build (a base from before
 * a format change) that this build's reader refuses.
 */
export function logMentions(file: string, path: string, limit = RAW_SCAN_LIMIT): boolean {
  const needle = Buffer.from(path);
  const chunk = Buffer.alloc(1 << 20);
  const fd = openSync(file, "r");
  try {
    let carry = Buffer.alloc(0);
    for (let offset = 0; offset < limit; ) {
      const n = readSync(fd, chunk, 0, chunk.length, offset);
      if (n <= 0) return false;
      const window = Buffer.concat([carry, chunk.subarray(0, n)]);
      if (window.includes(needle)) return true;
      carry = window.subarray(Math.max(0, window.length - needle.length + 1));
      offset += n;
    }
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs the target with 1 thread and 8 opens under `arm`'s tracer with `backend` and checks
 * that the log reports its missing path; throws a one-line XbenchError otherwise. A log this
 * build cannot parse (another log format version) passes when its raw bytes hold the path;
 * the returned note says so.
 */
export function validateTracer(
  arm: Arm,
  backend: Backend,
  paths: { targetDir: string; missingPath: string; logFile: string },
  readLog: ReadLog,
): string | undefined {
  const what = `validation of the ${describeArm(arm)} with the ${backend} backend`;
  checkHelperDir(arm);
  rmSync(paths.logFile, { force: true });
  runTimed(launchFor(arm, backend, VALIDATION_WORKLOAD, paths), what);
  const expected = threadPath(paths.missingPath, 0);
  let trace: LoggedTrace;
  try {
    trace = readLog(paths.logFile);
  } catch (error) {
    const reason = (error as Error).message;
    if (existsSync(paths.logFile) && logMentions(paths.logFile, expected)) {
      return `${what}: this build cannot parse its log (${reason}); its raw bytes hold the missing path`;
    }
    throw new XbenchError(
      `${what} failed: its log could not be read (${reason}) and does not mention the target's missing path ${expected}`,
    );
  }
  if (!reportsMissing(trace.accesses, expected)) {
    const why = trace.incompleteReasons.length > 0 ? `; the trace is incomplete: ${trace.incompleteReasons.join("; ")}` : "";
    throw new XbenchError(
      `${what} failed: its log does not report the target's missing path ${expected} (${trace.accesses.length} ${trace.accesses.length === 1 ? "access" : "accesses"} logged${why})`,
    );
  }
  return undefined;
}
