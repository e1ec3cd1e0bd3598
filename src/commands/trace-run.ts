/**
 * What `xbench trace` does once its flags are known, without citty: the CLI's fast path
 * (cli/fast.ts) runs a plain `trace -- CMD` through here without loading the command table,
 * and the citty command (trace.ts) calls the same function.
 */
import { accessSync, constants, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "pathe";
import { usageError } from "../errors.ts";
import { writeDirect } from "../output/direct.ts";
import { formatAccesses, summaryLine, type TraceFormat } from "../tracer/format.ts";
import { EXPERIMENTAL_NOTICE, EXPERIMENTAL_TRACE_OS } from "../tracer/platform.ts";
import { trace } from "../tracer/run.ts";
import type { TraceBackend } from "../tracer/types.ts";

export const TRACE_BACKENDS: readonly TraceBackend[] = ["auto", "preload", "seccomp"];
export const TRACE_FORMATS: readonly TraceFormat[] = ["summary", "json", "ndjson"];

export interface TraceFlags {
  backend: TraceBackend;
  format: TraceFormat;
  output?: string;
}

/** Signal numbers for the shell's 128+n exit status. */
const SIGNAL_NUMBERS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGTRAP: 5,
  SIGABRT: 6,
  SIGBUS: 7,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGSEGV: 11,
  SIGUSR2: 12,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
  SIGSTKFLT: 16,
  SIGCHLD: 17,
  SIGCONT: 18,
  SIGSTOP: 19,
  SIGTSTP: 20,
  SIGTTIN: 21,
  SIGTTOU: 22,
  SIGURG: 23,
  SIGXCPU: 24,
  SIGXFSZ: 25,
  SIGVTALRM: 26,
  SIGPROF: 27,
  SIGWINCH: 28,
  SIGIO: 29,
  SIGPWR: 30,
  SIGSYS: 31,
};

/** Signals the command should decide about; xbench only waits for its verdict. */
const PASSED_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGQUIT", "SIGTERM", "SIGHUP"];

/**
 * The flags of a plain `trace [--backend B] [--format F] [-o FILE] -- CMD...`, or undefined
 * for anything else (help, an unknown or repeated flag, a bad value, no command), which the
 * full CLI then reports with its usage text.
 */
export function parsePlainTrace(args: string[]): { flags: TraceFlags; command: string[] } | undefined {
  const dash = args.indexOf("--");
  if (dash === -1 || dash === args.length - 1) return undefined;
  const seen: Partial<Record<"backend" | "format" | "output", string>> = {};
  for (let i = 0; i < dash; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const key =
      flag === "--backend" ? "backend" : flag === "--format" ? "format" : flag === "--output" || flag === "-o" ? "output" : undefined;
    if (!key || key in seen) return undefined;
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "" || value.startsWith("-") || i >= dash) return undefined;
    seen[key] = value;
  }
  const backend = (seen.backend ?? "auto") as TraceBackend;
  const format = (seen.format ?? "summary") as TraceFormat;
  if (!TRACE_BACKENDS.includes(backend) || !TRACE_FORMATS.includes(format)) return undefined;
  return { flags: { backend, format, ...(seen.output ? { output: seen.output } : {}) }, command: args.slice(dash + 1) };
}

/**
 * Fails before the command runs when `file` cannot be written: found only afterwards, the
 * command's side effects would have happened and its whole trace would be lost.
 */
export function checkOutputPath(file: string): void {
  const path = resolve(file);
  try {
    let st;
    try {
      st = statSync(path);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) throw new Error("it is a directory");
    if (st) accessSync(path, constants.W_OK);
    else if (!statSync(dirname(path)).isDirectory()) throw new Error(`${dirname(path)} is not a directory`);
    else accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
    throw usageError(`cannot write the trace to ${file} (${reason}); the command was not run`);
  }
}

/** Runs `command` traced, reports what it touched, and returns the exit status it should cause. */
export async function runTrace(flags: TraceFlags, command: string[]): Promise<number> {
  if (flags.output) checkOutputPath(flags.output);
  if (EXPERIMENTAL_TRACE_OS.has(process.platform)) writeDirect(2, `${EXPERIMENTAL_NOTICE}\n`);
  // The supervisor forwards kill()-sent signals and the terminal signals the whole group:
  // xbench stays alive to report and to exit the way the command did.
  const ignore = () => {};
  for (const s of PASSED_SIGNALS) process.on(s, ignore);
  let result;
  try {
    result = await trace(command[0]!, command.slice(1), { backend: flags.backend, stdio: "inherit" });
  } finally {
    for (const s of PASSED_SIGNALS) process.off(s, ignore);
  }
  if (!result.complete) writeDirect(2, `xbench: warning: trace incomplete: ${result.incompleteReasons.join("; ")}\n`);
  if (flags.output) {
    writeFileSync(flags.output, formatAccesses(result, flags.format));
    writeDirect(2, `${summaryLine(result)}\n`);
  } else if (flags.format === "summary") {
    writeDirect(2, `${summaryLine(result)}\n`);
  } else {
    writeDirect(2, formatAccesses(result, flags.format));
  }
  return result.signal ? 128 + (SIGNAL_NUMBERS[result.signal] ?? 0) : (result.exitCode ?? 1);
}
