/**
 * Spawning the tracer's launcher: xbench-supervisor on Linux (native/supervisor.c documents its
 * CLI contract), xbench-launch.exe on Windows (native/win/launch.c).
 */
import { spawn, type StdioOptions } from "node:child_process";
import { win32 } from "node:path";
import type { TraceBackend } from "./types.ts";

export interface LaunchOptions {
  /** The launcher: xbench-supervisor, or xbench-launch.exe on Windows. */
  supervisor: string;
  /** What it loads into the command: the preload shim, or the hook DLL on Windows. */
  preload: string;
  backend: TraceBackend;
  log: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdio?: StdioOptions;
}

export interface LaunchResult {
  /** The command's exit code, or null when it died of a signal. */
  exitCode: number | null;
  signal?: NodeJS.Signals;
}

/** The supervisor's argv for running `command args` traced. */
export function supervisorArgs(o: Pick<LaunchOptions, "backend" | "preload" | "log">, command: string, args: string[]): string[] {
  return ["--backend", o.backend, "--preload", o.preload, "--log", o.log, "--die-with-parent", "--", command, ...args];
}

/** xbench-launch.exe's argv: Windows paths with backslashes (LoadLibraryW wants them). */
export function windowsLauncherArgs(o: Pick<LaunchOptions, "preload" | "log">, command: string, args: string[]): string[] {
  return ["--log", win32.normalize(o.log), "--hook", win32.normalize(o.preload), "--", command, ...args];
}

/** The launcher's argv on `platform`. */
export function launcherArgs(
  o: Pick<LaunchOptions, "backend" | "preload" | "log">,
  command: string,
  args: string[],
  platform: NodeJS.Platform = process.platform,
): string[] {
  return platform === "win32" ? windowsLauncherArgs(o, command, args) : supervisorArgs(o, command, args);
}

/** Runs the command under the launcher; resolves with the command's status. */
export function launch(o: LaunchOptions, command: string, args: string[]): Promise<LaunchResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(o.supervisor, launcherArgs(o, command, args), {
      cwd: o.cwd,
      env: o.env,
      stdio: o.stdio ?? "inherit",
    });
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(signal ? { exitCode: null, signal } : { exitCode: code ?? 0 }));
  });
}
