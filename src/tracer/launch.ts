/** Spawning the platform's launcher (native/linux/launch.c, native/mac/launch.c document their CLI contracts). */
import type { StdioOptions } from "node:child_process";
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
  /** Called with the launcher's pid as soon as it runs (to forward signals to it). */
  onSpawn?: (pid: number) => void;
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

type BunStdio = "inherit" | "ignore" | number;

/** `stdio` as Bun.spawn takes it, when it is only inherit/ignore/descriptors; else undefined. */
export function bunStdio(stdio: StdioOptions | undefined): [BunStdio, BunStdio, BunStdio] | undefined {
  const each = typeof stdio === "string" || stdio === undefined ? [stdio, stdio, stdio] : stdio;
  if (each.length > 3) return undefined;
  const out: BunStdio[] = [];
  for (let fd = 0; fd < 3; fd++) {
    const s = each[fd] ?? "inherit";
    if (s === "inherit" || s === "ignore" || typeof s === "number") out.push(s);
    else return undefined; // pipes and streams: node:child_process handles them
  }
  return out as [BunStdio, BunStdio, BunStdio];
}

/**
 * Runs the launcher; resolves with the command's status. On Bun, through Bun.spawn: its
 * node:child_process layer costs ~2 ms more per launch, as much as the supervisor's own start
 * (measured with `bun bench/trace-cost.ts`).
 */
export async function launch(o: LaunchOptions): Promise<LaunchResult> {
  const stdio = bunStdio(o.stdio);
  if (globalThis.Bun && stdio) {
    const child = Bun.spawn([o.launcher, ...o.argv], { cwd: o.cwd, env: o.env ?? process.env, stdio });
    o.onSpawn?.(child.pid);
    await child.exited;
    const signal = child.signalCode as NodeJS.Signals | null;
    return signal ? { exitCode: null, signal } : { exitCode: child.exitCode ?? 0 };
  }
  const { spawn } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    const child = spawn(o.launcher, o.argv, { cwd: o.cwd, env: o.env, stdio: o.stdio ?? "inherit" });
    child.once("error", reject);
    if (child.pid !== undefined) o.onSpawn?.(child.pid);
    child.once("close", (code, signal) => resolve(signal ? { exitCode: null, signal } : { exitCode: code ?? 0 }));
  });
}
