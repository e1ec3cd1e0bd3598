/** Spawning xbench-supervisor (native/supervisor.c documents its CLI contract). */
import { spawn, type StdioOptions } from "node:child_process";
import type { TraceBackend } from "./types.ts";

export interface LaunchOptions {
  supervisor: string;
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

/** Runs the command under the supervisor; resolves with the command's status. */
export function launch(o: LaunchOptions, command: string, args: string[]): Promise<LaunchResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(o.supervisor, supervisorArgs(o, command, args), {
      cwd: o.cwd,
      env: o.env,
      stdio: o.stdio ?? "inherit",
    });
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(signal ? { exitCode: null, signal } : { exitCode: code ?? 0 }));
  });
}
