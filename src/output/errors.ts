import { colorFor, forStream } from "./color.ts";

/** Errors are one plain line so scripts and tests can match them. */
export function printError(message: string): void {
  process.stderr.write(`xbench: ${forStream(message, colorFor(process.stderr))}\n`);
}
