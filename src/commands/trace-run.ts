/**
 * What `xbench trace` does once its flags are known, without citty: the CLI's fast path
 * (cli/fast.ts) runs a plain `trace -- CMD` through here without loading the command table,
 * and the citty command (trace.ts) calls the same function.
 */
import { accessSync, constants as fsConstants, statSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
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
    // Absolute once, as parsed (#25): Bun's Windows build fails to write a relative path under Wine.
    seen[key] = key === "output" ? resolve(value) : value;
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
    if (st) accessSync(path, fsConstants.W_OK);
    else if (!statSync(dirname(path)).isDirectory()) throw new Error(`${dirname(path)} is not a directory`);
    else accessSync(dirname(path), fsConstants.W_OK);
  } catch (error) {
    const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
    throw usageError(`cannot write the trace to ${file} (${reason}); the command was not run`);
  }
}

/** Runs `command` traced, reports what it touched, and returns the exit status it should cause. */
export async function runTrace(flags: TraceFlags, command: string[]): Promise<number> {
  if (flags.output) checkOutputPath(flags.output);
  if (EXPERIMENTAL_TRACE_OS.has(process.platform)) writeDirect(2, `${EXPERIMENTAL_NOTICE}\n`);
  // Signals sent to xbench go on to the command (the terminal's reach it directly): the command
  // decides, xbench stays alive to report and exits the way the command did.
  const result = await trace(command[0]!, command.slice(1), { backend: flags.backend, stdio: "inherit", forwardSignals: true });
  for (const change of result.changes) writeDirect(2, `xbench: warning: the command ran differently under the tracer: ${change}\n`);
  if (!result.complete) writeDirect(2, `xbench: warning: trace incomplete: ${result.incompleteReasons.join("; ")}\n`);
  if (flags.output) {
    writeFileSync(flags.output, formatAccesses(result, flags.format));
    writeDirect(2, `${summaryLine(result)}\n`);
  } else if (flags.format === "summary") {
    writeDirect(2, `${summaryLine(result)}\n`);
  } else {
    writeDirect(2, formatAccesses(result, flags.format));
  }
  // The shell's status for a signal death: 128 + its number on this OS.
  return result.signal ? 128 + (constants.signals[result.signal] ?? 0) : (result.exitCode ?? 1);
}
