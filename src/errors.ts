/**
 * Errors meant for the user, shared by every layer. Code that throws one says what kind of
 * problem it is; only the CLI (cli/main.ts) turns that into the process's exit status.
 */

/**
 * `usage`: the user asked for something we cannot do (bad flag, bad ref, bad file).
 * `failure`: a run broke (a benchmark threw, a build failed).
 * `interrupted`: the user stopped it (Ctrl-C reached a child first).
 */
export type ErrorKind = "usage" | "failure" | "interrupted";

/** The exit status of each kind, the shell's conventions; `xbench` exits 0 on success. */
export const EXIT_STATUS: Readonly<Record<ErrorKind, number>> = { failure: 1, usage: 2, interrupted: 130 };

/**
 * An error meant for the user: printed as one line, never with a stack.
 * `usage` asks the CLI to print the command's usage after the line.
 */
export class XbenchError extends Error {
  readonly kind: ErrorKind;
  readonly usage: boolean;
  constructor(message: string, options: { kind?: ErrorKind; usage?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "XbenchError";
    this.kind = options.kind ?? "failure";
    this.usage = options.usage ?? false;
  }

  /** The exit status of its kind, for callers of the library that end a process on it. */
  get exitCode(): number {
    return EXIT_STATUS[this.kind];
  }
}

/** Bad input: one line, exit 2. */
export function usageError(message: string, showUsage = false): XbenchError {
  return new XbenchError(message, { kind: "usage", usage: showUsage });
}

/**
 * Exit statuses of compare and report that are answers, not errors: the gate failed (1, as a
 * failed check is everywhere); a benchmark failed to run or nothing was compared (3, so a
 * broken benchmark never reads as a regression); a commit the gate cannot judge while
 * `git bisect run` drives compare (125, git's "skip this commit").
 */
export const EXIT_GATE_FAILED = 1;
export const EXIT_NOT_MEASURED = 3;
export const EXIT_BISECT_SKIP = 125;
