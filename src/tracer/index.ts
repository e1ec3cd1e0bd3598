/**
 * The file-access tracer: runs a command under xbench-supervisor (preload shim and/or
 * seccomp supervisor, see native/), or on Windows under xbench-launch.exe with the hook DLL
 * (native/win/), and reports which files its process tree touched.
 */
import { mkdtempSync, realpathSync, rmdirSync, rmSync, unlinkSync } from "node:fs";
import { join } from "pathe";
import type { StdioOptions } from "node:child_process";
import { XbenchError, usageError } from "../errors.ts";
import { helperPath } from "../helpers/index.ts";
import { AccessCollector, type CollectOptions } from "./accesses.ts";
import { launch } from "./launch.ts";
import { traceScratchRoot } from "./scratch.ts";
import { FLAG, scanLogFile, type LogHeader } from "./log.ts";
import { normalizeWindows, windowsKey } from "./paths-windows.ts";
import type { Access, TraceBackend, UsedBackend } from "./types.ts";

export type { Access, AccessMode, TraceBackend, UsedBackend } from "./types.ts";
export { ACCESS_MODES } from "./types.ts";
export { formatAccesses, summaryLine, modeCounts, type TraceFormat } from "./format.ts";
export { supervisorArgs } from "./launch.ts";

export const SUPERVISOR = "xbench-supervisor";
export const PRELOAD_SHIM = "libxbench-preload.so";
export const WINDOWS_LAUNCHER = "xbench-launch.exe";
export const WINDOWS_HOOK = "xbench-hook.dll";

/** The helpers that trace on `platform`: the launcher, and what it loads into the command. */
export function tracerHelpers(platform: NodeJS.Platform = process.platform): { launcher: string; inject: string } {
  return platform === "win32" ? { launcher: WINDOWS_LAUNCHER, inject: WINDOWS_HOOK } : { launcher: SUPERVISOR, inject: PRELOAD_SHIM };
}

export interface TraceOptions {
  backend?: TraceBackend;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Default "inherit": the command shares xbench's stdin, stdout and stderr. */
  stdio?: StdioOptions;
}

export interface TraceResult {
  /** The command's exit code; null when it died of a signal. */
  exitCode: number | null;
  signal?: NodeJS.Signals;
  accesses: Access[];
  /** False when something may be missing (see incompleteReasons). */
  complete: boolean;
  incompleteReasons: string[];
  /** The backend asked for. */
  backend: TraceBackend;
  /** The backends that actually recorded. */
  backendsUsed: UsedBackend[];
}

export interface AccessLog {
  accesses: Access[];
  complete: boolean;
  incompleteReasons: string[];
  backendsUsed: UsedBackend[];
  header: LogHeader;
  /** Records skipped because a writer died mid-record. */
  torn: number;
}

const ERRNO_NAMES: Record<number, string> = { 1: "EPERM", 13: "EACCES", 16: "EBUSY", 22: "EINVAL", 38: "ENOSYS" };

/** Why a log says its trace is incomplete, in words. */
export function incompleteReasons(header: LogHeader): string[] {
  const reasons: string[] = [];
  const f = header.flags;
  if (f & FLAG.SECCOMP_REFUSED) {
    const e = ERRNO_NAMES[header.seccompErrno] ?? `errno ${header.seccompErrno}`;
    reasons.push(`seccomp was refused (${e}): statically linked and Go programs were not traced`);
  }
  if (f & FLAG.STATIC_UNTRACED)
    reasons.push("a statically linked or Go program ran under --backend preload, which cannot see its file accesses");
  if (f & FLAG.FOREIGN_ARCH) reasons.push("a 32-bit or x32 system call was made and not decoded");
  if (f & FLAG.UNREADABLE) reasons.push("some paths could not be read from the traced process");
  if (f & FLAG.LAUNCHER_ERROR)
    reasons.push(
      f & FLAG.USED_DLL
        ? "the launcher or the hook DLL hit an internal error (an ntdll function could not be hooked, or a wait failed)"
        : "the supervisor hit an internal error",
    );
  if (f & FLAG.CHILD_UNTRACED) reasons.push("a child process could not be traced (a 32-bit program, or the hook DLL did not load into it)");
  if (f & FLAG.SHIM_DROPPED)
    reasons.push("a program ran as another user or with changed privileges (setuid), where --backend preload cannot follow");
  if (header.dropped > 0) reasons.push(`${header.dropped} records did not fit in the log`);
  return reasons;
}

/** Parses a log written by xbench-supervisor (its --log FILE) into deduplicated accesses. */
export function readAccessLog(file: string, options: CollectOptions = {}): AccessLog {
  const collector = new AccessCollector(options);
  const { header, torn } = scanLogFile(file, (data, at, len) => collector.addFrame(data, at, len));
  const reasons = incompleteReasons(header);
  const used: UsedBackend[] = [];
  if (header.flags & FLAG.USED_PRELOAD) used.push("preload");
  if (header.flags & FLAG.USED_SECCOMP || header.notifications > 0) used.push("seccomp");
  if (header.flags & FLAG.USED_DLL) used.push("dll");
  return {
    accesses: collector.finish(),
    complete: reasons.length === 0,
    incompleteReasons: reasons,
    backendsUsed: used,
    header,
    torn,
  };
}

function realPaths(file: string): string[] {
  try {
    return [file, realpathSync(file)];
  } catch {
    return [file];
  }
}

/** Runs `command args` traced and resolves when its whole process tree has exited. */
export async function trace(command: string, args: string[], options: TraceOptions = {}): Promise<TraceResult> {
  const windows = process.platform === "win32";
  const backend = options.backend ?? "auto";
  if (windows && backend !== "auto") throw usageError(`--backend ${backend} is for Linux; on Windows trace has one backend (auto)`);
  const helpers = tracerHelpers();
  const supervisor = helperPath(helpers.launcher);
  const preload = helperPath(helpers.inject);
  const dir = mkdtempSync(join(traceScratchRoot(), "xbench-trace-"));
  const log = join(dir, "trace.log");
  try {
    const status = await launch(
      { supervisor, preload, backend, log, cwd: options.cwd, env: options.env, stdio: options.stdio },
      command,
      args,
    );
    let parsed: AccessLog;
    try {
      const own = [log, ...[supervisor, preload].flatMap(realPaths)];
      const exclude = new Set(windows ? own.map((p) => windowsKey(normalizeWindows(p))) : own);
      parsed = readAccessLog(log, { exclude, windows });
    } catch (error) {
      throw new XbenchError(`the tracer did not start (${helpers.launcher} exited with ${status.signal ?? status.exitCode})`, {
        cause: error,
      });
    }
    return {
      exitCode: status.exitCode,
      ...(status.signal ? { signal: status.signal } : {}),
      accesses: parsed.accesses,
      complete: parsed.complete,
      incompleteReasons: parsed.incompleteReasons,
      backend,
      backendsUsed: parsed.backendsUsed,
    };
  } finally {
    removeScratch(dir, log);
  }
}

/**
 * The trace's folder holds the log alone: unlink it, then the folder (Bun's recursive rm fails
 * with EFAULT under wine, where the Windows build is tested); anything else there, recursively.
 */
function removeScratch(dir: string, log: string): void {
  try {
    unlinkSync(log);
    rmdirSync(dir);
  } catch {
    rmSync(dir, { recursive: true, force: true });
  }
}
