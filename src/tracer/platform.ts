/**
 * Which native launcher runs a traced command on this OS, and its argv. Linux: xbench-supervisor
 * with the preload shim (native/linux/launch.c, native/linux/shim.c). Windows: xbench-launch.exe with the hook DLL
 * (native/win/launch.c). macOS (experimental, not yet run on a Mac): xbench-mac-launch with the
 * interposing dylib (native/mac/launch.c). All write the same log (native/common/log.h).
 */
import { win32 } from "node:path";
import { usageError } from "../errors.ts";
import type { TraceBackend } from "./types.ts";

export const SUPERVISOR = "xbench-supervisor";
export const PRELOAD_SHIM = "libxbench-preload.so";
export const MAC_LAUNCHER = "xbench-mac-launch";
export const INTERPOSE_DYLIB = "libxbench-interpose.dylib";
export const WINDOWS_LAUNCHER = "xbench-launch.exe";
export const WINDOWS_HOOK = "xbench-hook.dll";

/** Platforms whose tracing has not yet run on a real machine of that OS. */
export const EXPERIMENTAL_TRACE_OS: ReadonlySet<NodeJS.Platform> = new Set(["darwin"]);

/** The one line `xbench trace` prints on an OS whose tracer has not been run there yet. */
export const EXPERIMENTAL_NOTICE =
  "xbench: note: tracing on macOS is experimental (built and checked, not yet run on a Mac); programs under /usr/bin, /bin and other SIP-protected folders run untraced";

export interface LauncherOptions {
  backend: TraceBackend;
  library: string;
  log: string;
  /** Signal numbers the command should start with ignored (Linux: --ignore-signals). */
  ignoreSignals?: readonly number[];
  /** End with the command's own process, not its last descendant (Linux: --detach-ok). */
  detachOk?: boolean;
}

export interface TracerKind {
  /** The launcher's file name in the helper folder. */
  launcher: string;
  /** The library it injects, in the helper folder. */
  library: string;
  /** The launcher's argv before `--`, given the two helpers' paths. */
  args(o: LauncherOptions): string[];
}

const LINUX: TracerKind = {
  launcher: SUPERVISOR,
  library: PRELOAD_SHIM,
  args: (o) => [
    "--backend",
    o.backend,
    "--preload",
    o.library,
    "--log",
    o.log,
    ...(o.ignoreSignals?.length ? ["--ignore-signals", o.ignoreSignals.join(",")] : []),
    ...(o.detachOk ? ["--detach-ok"] : []),
    "--die-with-parent",
  ],
};

const DARWIN: TracerKind = {
  launcher: MAC_LAUNCHER,
  library: INTERPOSE_DYLIB,
  args: (o) => ["--dylib", o.library, "--log", o.log, "--die-with-parent"],
};

/** Windows paths with backslashes: LoadLibraryW wants them. */
const WINDOWS: TracerKind = {
  launcher: WINDOWS_LAUNCHER,
  library: WINDOWS_HOOK,
  args: (o) => ["--log", win32.normalize(o.log), "--hook", win32.normalize(o.library)],
};

/**
 * The tracer for `platform`. Windows has one backend (the hook DLL), which `auto` selects. macOS has one way to trace (dyld interposition, which like
 * preload cannot see raw system calls): `auto` and `preload` select it, `seccomp` is refused.
 */
export function tracerKind(platform: NodeJS.Platform, backend: TraceBackend): TracerKind {
  if (platform === "win32") {
    if (backend !== "auto") throw usageError(`--backend ${backend} is for Linux; on Windows trace has one backend (auto)`);
    return WINDOWS;
  }
  if (platform !== "darwin") return LINUX;
  if (backend === "seccomp") throw usageError("--backend seccomp is Linux only; on macOS use auto or preload (interposition)");
  return DARWIN;
}

/** The launcher's full argv for running `command args` traced. */
export function launcherArgs(kind: TracerKind, o: LauncherOptions, command: string, args: string[]): string[] {
  return [...kind.args(o), "--", command, ...args];
}
