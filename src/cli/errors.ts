/** Exit statuses of the CLI, and how a failure is told; errors themselves live in src/errors.ts. */
import { EXIT_STATUS, XbenchError } from "../errors.ts";
import { printError } from "../output/errors.ts";

export { XbenchError, usageError } from "../errors.ts";

/** A run finished but something in it failed (a benchmark threw, a build broke). */
export const EXIT_FAILURE = EXIT_STATUS.failure;
/** The user asked for something we cannot do: bad flag, bad ref, bad file. */
export const EXIT_USAGE = EXIT_STATUS.usage;

/** Prints `error` as one line and returns its exit status; usage text is the caller's to add. */
export function printFailure(error: unknown): number {
  if (error instanceof XbenchError) {
    printError(error.message);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  printError(message.split("\n")[0]!);
  if (process.env.XBENCH_DEBUG) console.error(error);
  else process.stderr.write("  (set XBENCH_DEBUG=1 for details)\n");
  return EXIT_FAILURE;
}
