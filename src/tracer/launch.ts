/** Spawning the platform's launcher (native/supervisor.c, native/mac/launch.c document their CLI contracts). */
import { spawn, type StdioOptions } from "node:child_process";
import { launcherArgs, tracerKind } from "./platform.ts";
import type { TraceBackend } from "./types.ts";

export interface LaunchOptions {
  /** The launcher program (xbench-supervisor, xbench-mac-launch). */
  launcher: string;
  /** Its whole argv, command included (launcherArgs in platform.ts). */
  argv: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdio?: StdioOptions;
}

export interface LaunchResult {
  /** The command's exit code, or null when it died of a signal. */
  exitCode: number | null;
  signal?: NodeJS.Signals;
}

/** The Linux supervisor's argv for running `command args` traced. */
export function supervisorArgs(o: { backend: TraceBackend; preload: string; log: string }, command: string, args: string[]): string[] {
  return launcherArgs(tracerKind("linux", o.backend), { backend: o.backend, library: o.preload, log: o.log }, command, args);
}

/** Runs the launcher; resolves with the command's status. */
export function launch(o: LaunchOptions): Promise<LaunchResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(o.launcher, o.argv, { cwd: o.cwd, env: o.env, stdio: o.stdio ?? "inherit" });
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(signal ? { exitCode: null, signal } : { exitCode: code ?? 0 }));
  });
}
