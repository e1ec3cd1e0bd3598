/**
 * `xbench trace`: its table and what it does. The CLI's fast path (cli/fast.ts) loads this
 * module alone, so it imports nothing beyond the tracer, the fast path's reader and what
 * writing its output takes: `defineCommand` loads no citty, the full CLI does.
 */
import { accessSync, constants as fsConstants, statSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { dirname, resolve } from "pathe";
import { defineCommand } from "../args/define.ts";
import { fastParse } from "../args/read-fast.ts";
import type { Flags } from "../args/types.ts";
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
  detachOk?: boolean;
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
  const result = await trace(command[0]!, command.slice(1), {
    backend: flags.backend,
    stdio: "inherit",
    forwardSignals: true,
    detachOk: flags.detachOk,
  });
  for (const change of result.changes) writeDirect(2, `xbench: warning: the command ran differently under the tracer: ${change}\n`);
  if (!result.complete) writeDirect(2, `xbench: warning: trace incomplete: ${result.incompleteReasons.join("; ")}\n`);
  // A command that could not be started (the launcher said why, exit 126/127) and touched
  // nothing: a summary of nothing would only bury that one line.
  const neverRan = (result.exitCode === 126 || result.exitCode === 127) && result.accesses.length === 0 && result.complete;
  if (!flags.output && flags.format !== "summary") writeDirect(2, formatAccesses(result, flags.format));
  else {
    if (flags.output) writeFileSync(flags.output, formatAccesses(result, flags.format));
    if (!neverRan) writeDirect(2, `${summaryLine(result)}\n`);
  }
  // The shell's status for a signal death: 128 + its number on this OS.
  return result.signal ? 128 + (constants.signals[result.signal] ?? 0) : (result.exitCode ?? 1);
}

const TRACE_FLAGS = {
  backend: {
    type: "enum",
    options: TRACE_BACKENDS,
    description: "Tracing backend (macOS: auto and preload interpose through dyld; seccomp is Linux only)",
    default: "auto",
  },
  format: { type: "enum", options: TRACE_FORMATS, description: "Output format", default: "summary" },
  output: {
    type: "string",
    path: "file",
    alias: "o",
    description: "Write the access list to FILE (else json/ndjson go to stderr; summary is counts only)",
  },
  "detach-ok": {
    type: "boolean",
    description:
      "End with the command's own process: processes it leaves running (a daemon) run on, and the trace says it is incomplete (else trace waits for them)",
  },
} as const satisfies Flags;

export const traceCommand = defineCommand({
  meta: {
    name: "trace",
    description: "Run a command and record every file its process tree touches (macOS: experimental, not yet run on a Mac)",
  },
  args: TRACE_FLAGS,
  passthrough: { example: "make" },
  examples: [
    "xbench trace -- make -j4",
    "xbench trace --format ndjson -o accesses.ndjson -- npm test",
    "xbench trace --backend seccomp -- go build ./...",
  ],
  run({ flags, command }) {
    return runTrace(
      {
        backend: flags.backend,
        format: flags.format,
        ...(flags.output ? { output: flags.output } : {}),
        ...(flags["detach-ok"] ? { detachOk: true } : {}),
      },
      command,
    );
  },
});

/**
 * The fast path's trace (cli/fast.ts): argv read by this table as the full CLI reads it, then
 * run; undefined for help and for argv the checks refuse, which the full CLI then reports.
 */
export async function runFastTrace(args: string[]): Promise<number | undefined> {
  const parsed = fastParse(traceCommand, args);
  return parsed && traceCommand.action!(parsed);
}
