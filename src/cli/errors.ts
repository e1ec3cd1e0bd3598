/** Exit codes shared by every command. */
export const EXIT_OK = 0;
/** A run finished but something in it failed (a benchmark threw, a build broke). */
export const EXIT_FAILURE = 1;
/** The user asked for something we cannot do: bad flag, bad ref, bad file. */
export const EXIT_USAGE = 2;

/**
 * An error meant for the user: printed as one line, never with a stack.
 * `usage` asks the CLI to print the command's usage after the line.
 */
export class XbenchError extends Error {
  readonly exitCode: number;
  readonly usage: boolean;
  constructor(message: string, options: { exitCode?: number; usage?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "XbenchError";
    this.exitCode = options.exitCode ?? EXIT_FAILURE;
    this.usage = options.usage ?? false;
  }
}

/** Bad input: one line, exit 2. */
export function usageError(message: string, showUsage = false): XbenchError {
  return new XbenchError(message, { exitCode: EXIT_USAGE, usage: showUsage });
}
