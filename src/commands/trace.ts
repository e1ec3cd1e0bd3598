import { accessSync, constants, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "pathe";
import { defineCommand } from "citty";
import { afterDoubleDash } from "./flags.ts";
import { usageError } from "../errors.ts";
import {
  EXPERIMENTAL_NOTICE,
  EXPERIMENTAL_TRACE_OS,
  formatAccesses,
  summaryLine,
  trace,
  type TraceBackend,
  type TraceFormat,
} from "../tracer/index.ts";

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

export const traceCommand = defineCommand({
  meta: {
    name: "trace",
    description: "Run a command and record every file its process tree touches (macOS: experimental, not yet run on a Mac)",
  },
  args: {
    backend: {
      type: "enum",
      options: ["auto", "preload", "seccomp"],
      description: "Tracing backend (macOS: auto and preload interpose through dyld; seccomp is Linux only)",
      default: "auto",
    },
    format: { type: "enum", options: ["summary", "json", "ndjson"], description: "Output format", default: "summary" },
    output: {
      type: "string",
      alias: "o",
      description: "Write the access list to FILE (else json/ndjson go to stderr; summary is counts only)",
    },
    command: { type: "positional", required: false, description: "-- CMD [ARGS...]" },
  },
  async run({ rawArgs, args }) {
    const argv = afterDoubleDash(rawArgs);
    if (argv.length === 0) throw usageError("trace needs a command after --, e.g. xbench trace -- make", true);
    const backend = args.backend as TraceBackend;
    const format = args.format as TraceFormat;
    if (args.output) checkOutputPath(args.output);
    if (EXPERIMENTAL_TRACE_OS.has(process.platform)) process.stderr.write(`${EXPERIMENTAL_NOTICE}\n`);
    // The supervisor forwards kill()-sent signals and the terminal signals the whole group:
    // xbench stays alive to report and to exit the way the command did.
    const ignore = () => {};
    for (const s of PASSED_SIGNALS) process.on(s, ignore);
    let result;
    try {
      result = await trace(argv[0]!, argv.slice(1), { backend, stdio: "inherit" });
    } finally {
      for (const s of PASSED_SIGNALS) process.off(s, ignore);
    }
    // A plain line, not the CLI's logger: loading that costs more start-up than tracing `true`.
    if (!result.complete) process.stderr.write(`xbench: warning: trace incomplete: ${result.incompleteReasons.join("; ")}\n`);
    if (args.output) {
      writeFileSync(args.output, formatAccesses(result, format));
      process.stderr.write(`${summaryLine(result)}\n`);
    } else if (format === "summary") {
      process.stderr.write(`${summaryLine(result)}\n`);
    } else {
      process.stderr.write(formatAccesses(result, format));
    }
    return result.signal ? 128 + (SIGNAL_NUMBERS[result.signal] ?? 0) : (result.exitCode ?? 1);
  },
});
