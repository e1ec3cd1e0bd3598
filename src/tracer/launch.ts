/** Spawning xbench-supervisor (native/supervisor.c documents its CLI contract). */
import type { StdioOptions } from "node:child_process";
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

type BunStdio = "inherit" | "ignore" | number;

/** `stdio` as Bun.spawn takes it, when it is only inherit/ignore/descriptors; else undefined. */
export function bunStdio(stdio: StdioOptions | undefined): [BunStdio, BunStdio, BunStdio] | undefined {
  const each = typeof stdio === "string" || stdio === undefined ? [stdio, stdio, stdio] : stdio;
  if (each.length > 3) return undefined;
  const out: BunStdio[] = [];
  for (let fd = 0; fd < 3; fd++) {
    const s = each[fd] ?? "inherit";
    if (s === "inherit" || s === "ignore" || typeof s === "number") out.push(s);
    else if (s === undefined || s === null) out.push("inherit");
    else return undefined; // pipes and streams: node:child_process handles them
  }
  return out as [BunStdio, BunStdio, BunStdio];
}

/**
 * Runs the command under the supervisor; resolves with the command's status. On Bun, through
 * Bun.spawn: its node:child_process layer costs ~2 ms more per launch, as much as the
 * supervisor's own start (measured with `bun bench/trace-cost.ts`).
 */
export async function launch(o: LaunchOptions, command: string, args: string[]): Promise<LaunchResult> {
  const argv = [o.supervisor, ...supervisorArgs(o, command, args)];
  const stdio = bunStdio(o.stdio);
  if (globalThis.Bun && stdio) {
    const child = Bun.spawn(argv, { cwd: o.cwd, env: o.env ?? process.env, stdio });
    await child.exited;
    const signal = child.signalCode as NodeJS.Signals | null;
    return signal ? { exitCode: null, signal } : { exitCode: child.exitCode ?? 0 };
  }
  const { spawn } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: o.cwd, env: o.env, stdio: o.stdio ?? "inherit" });
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(signal ? { exitCode: null, signal } : { exitCode: code ?? 0 }));
  });
}
