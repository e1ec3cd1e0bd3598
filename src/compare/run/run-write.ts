/** Writes into a run folder, with a failure (a full disk) told in one line that says how to go on. */
import { XbenchError } from "../../errors.ts";
import { diskFull, ioReason } from "../../util/atomic-write.ts";

/** The command that continues a run folder's run, by folder: a history record's goes on through `history record`. */
const resumeCommands = new Map<string, string>();

/** Registers what continues the run in `dir` (its plan says whether it is a history record's). */
export function setResumeCommand(dir: string, record: boolean): void {
  resumeCommands.set(dir, record ? "xbench history record --resume" : "xbench compare --resume");
}

/** `xbench compare --resume DIR`, or `xbench history record --resume DIR` for a history record's run. */
export function resumeHint(dir: string): string {
  return `${resumeCommands.get(dir) ?? "xbench compare --resume"} ${dir}`;
}

/**
 * Runs a write into the run folder. A failure (a full disk) names the file, and, once the
 * plan is there, says how to continue as an interrupted run does: what was appended stays.
 */
export function inRunFolder<T>(dir: string, path: string, write: () => T, resumable = true): T {
  try {
    return write();
  } catch (error) {
    const why = ioReason(error);
    if (!why) throw error;
    const full = diskFull(error) ? "free some space, then " : "";
    const hint = resumable ? `. Measured rounds are saved; ${full}continue with: ${resumeHint(dir)}` : "";
    throw new XbenchError(`cannot write ${path}: ${why}${hint}`);
  }
}

/**
 * The line a bench process's driver writes when it cannot append to its result file in the
 * run folder (runner/child/driver.ts emit): the disk's failure, not the benchmark's.
 */
const DRIVER_WRITE_FAILED = /^xbench-driver: cannot write (.+): ([A-Z]+)$/m;

/**
 * Throws, as a failed write of the run folder (one line, how to resume), when a bench process
 * ended because its driver could not write what it measured; nothing of it is appended, so a
 * `--resume` runs it again.
 */
export function checkDriverWrite(dir: string, failure: string): void {
  const failed = DRIVER_WRITE_FAILED.exec(failure);
  if (!failed) return;
  const [, path, code] = failed as unknown as [string, string, string];
  inRunFolder(dir, path, () => {
    throw Object.assign(new Error(code), { code });
  });
}
