/** Exit statuses of the CLI; errors themselves live in src/errors.ts. */
import { EXIT_STATUS } from "../errors.ts";

export { XbenchError, usageError } from "../errors.ts";

export const EXIT_OK = 0;
/** A run finished but something in it failed (a benchmark threw, a build broke). */
export const EXIT_FAILURE = EXIT_STATUS.failure;
/** The user asked for something we cannot do: bad flag, bad ref, bad file. */
export const EXIT_USAGE = EXIT_STATUS.usage;
