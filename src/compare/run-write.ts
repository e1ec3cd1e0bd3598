/** Writes into a run folder, with a failure (a full disk) told in one line that says how to go on. */
import { XbenchError } from "../errors.ts";
import { diskFull, ioReason } from "../util/atomic-write.ts";

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
    const hint = resumable ? `. Measured rounds are saved; ${full}continue with: xbench compare --resume ${dir}` : "";
    throw new XbenchError(`cannot write ${path}: ${why}${hint}`);
  }
}
