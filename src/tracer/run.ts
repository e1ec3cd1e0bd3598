/**
 * `trace()`: runs a command under the platform's launcher (platform.ts) and reads its log. The log reader is
 * imported while the command runs, so its loading overlaps the command instead of adding to
 * `xbench trace`'s start-up.
 */
import { mkdtempSync, realpathSync, rmdirSync, rmSync, unlinkSync } from "node:fs";
import { join } from "pathe";
import type { StdioOptions } from "node:child_process";
import { usageError, XbenchError } from "../errors.ts";
import { helperPath } from "../helpers/index.ts";
import { launch } from "./launch.ts";
import { forwardSignals, ignoredAtStartNumbers } from "./signals.ts";
import { launcherArgs, tracerKind } from "./platform.ts";
import { traceScratchRoot } from "./scratch.ts";
import type { AccessLog } from "./read.ts";
import type { Access, TraceBackend, UsedBackend } from "./types.ts";

export interface TraceOptions {
  backend?: TraceBackend;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Default "inherit": the command shares xbench's stdin, stdout and stderr. */
  stdio?: StdioOptions;
  /**
   * Send SIGTERM, SIGHUP, SIGINT and SIGQUIT that this process receives on to the command (the
   * terminal's own INT, QUIT and HUP excepted: they reach the command directly), and stay alive
   * meanwhile to report. Signals this process was started with ignored (nohup's HUP) stay
   * ignored for the command, as they would untraced. For CLIs; a library caller keeps its own
   * signal handling by default.
   */
  forwardSignals?: boolean;
  /**
   * End the trace with the command's own process instead of its last descendant: a daemon it
   * started runs on, and the trace says it is incomplete (Linux; macOS's launcher always ends so;
   * refused on Windows, whose launcher waits for the tree).
   */
  detachOk?: boolean;
}

export interface TraceResult {
  /** The command's exit code; null when it died of a signal. */
  exitCode: number | null;
  signal?: NodeJS.Signals;
  accesses: Access[];
  /** False when something may be missing (see incompleteReasons). */
  complete: boolean;
  incompleteReasons: string[];
  /** How the command ran differently from an untraced run (io_uring refused); empty if it did not. */
  changes: string[];
  /** The backend asked for. */
  backend: TraceBackend;
  /** The backends that actually recorded. */
  backendsUsed: UsedBackend[];
}

function realPaths(file: string): string[] {
  try {
    return [file, realpathSync(file)];
  } catch {
    return [file];
  }
}

/** Runs `command args` traced and resolves when its whole process tree has exited (with `detachOk`, its own process). */
export async function trace(command: string, args: string[], options: TraceOptions = {}): Promise<TraceResult> {
  const backend = options.backend ?? "auto";
  const kind = tracerKind(process.platform, backend);
  if (options.detachOk && process.platform === "win32")
    throw usageError("--detach-ok is not available on Windows: its launcher waits for the whole tree");
  const launcher = helperPath(kind.launcher);
  const library = helperPath(kind.library);
  const dir = mkdtempSync(join(traceScratchRoot(), "xbench-trace-"));
  const log = join(dir, "trace.log");
  // Installed before the launch: a signal that comes meanwhile is forwarded once it runs.
  const ignoreSignals = options.forwardSignals ? ignoredAtStartNumbers() : [];
  const forwarder = options.forwardSignals ? forwardSignals() : undefined;
  try {
    const argv = launcherArgs(kind, { backend, library, log, ignoreSignals, detachOk: options.detachOk }, command, args);
    const onSpawn = forwarder ? (pid: number) => forwarder.attach(pid) : undefined;
    const running = launch({ launcher, argv, cwd: options.cwd, env: options.env, stdio: options.stdio, onSpawn });
    const reader = import("./read.ts");
    // While the command runs: what the log's reading needs besides the log.
    const exclude = new Set([log, ...[launcher, library].flatMap(realPaths)]);
    const status = await running;
    const { readAccessLog, hasLogHeader } = await reader;
    let parsed: AccessLog;
    try {
      parsed = readAccessLog(log, { exclude, windows: process.platform === "win32" });
    } catch (error) {
      // No log, or no header in it: the launcher failed before tracing anything. A log that
      // has its header and still cannot be read is a reader's failure (or another version's log).
      if (!hasLogHeader(log)) {
        throw new XbenchError(`the tracer did not start (${kind.launcher} exited with ${status.signal ?? status.exitCode})`, {
          cause: error,
        });
      }
      throw new Error(`cannot read the trace log: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return {
      exitCode: status.exitCode,
      ...(status.signal ? { signal: status.signal } : {}),
      accesses: parsed.accesses,
      complete: parsed.complete,
      incompleteReasons: parsed.incompleteReasons,
      changes: parsed.changes,
      backend,
      backendsUsed: parsed.backendsUsed,
    };
  } finally {
    forwarder?.remove();
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
