/**
 * stdout that a reader may close or a disk may fill. A reader that stops early (`| head -1`)
 * is no failure: the rest of the output is dropped and the run ends with its own status. A
 * stdout that cannot take the output (`> /dev/full`) is told in one line and fails the run.
 */
import { ioReason } from "../util/atomic-write.ts";
import { printError } from "./errors.ts";

let failed = false;

/** Whether writing to stdout failed for a reason other than a closed reader. */
export function stdoutFailed(): boolean {
  return failed;
}

/** The one line a stdout that cannot take the output is told in. */
export function stdoutFailure(error: unknown): string {
  return `cannot write to stdout: ${ioReason(error) ?? (error as Error).message}`;
}

/** Installs the handler once; later writes to a stdout that failed are dropped. */
export function guardStdout(): void {
  const stdout = process.stdout;
  stdout.on("error", (error: NodeJS.ErrnoException) => {
    stdout.write = (() => true) as typeof stdout.write;
    if (error.code === "EPIPE" || failed) return;
    failed = true;
    printError(stdoutFailure(error));
    if (!process.exitCode) process.exitCode = 1;
  });
}
