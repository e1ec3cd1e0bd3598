/**
 * Bench files that share a process: in a round, the files measured as duets run one after the
 * other in one bench process instead of one process each, so the round pays one start of the
 * runtime and one load of the packages the files share, not one per file (docs/compare.md,
 * "Files share a process"). Pure: data in, data out.
 */
import type { ChildReport, ChildRow } from "../../runner/protocol.ts";
import type { BenchOutcome } from "../../runner/spawn.ts";
import { mulberry32, shuffled } from "../../schedule/prng.ts";

/**
 * Files per shared process by default. A process of many files loses more to one crash, and
 * holds every file's modules in one heap; sixteen took a 9-file suite's round into one process.
 */
export const DEFAULT_FILES_PER_PROCESS = 16;

/**
 * What a file adds to a shared process for its load, as a share of what a process of its own
 * costs to start and load: the runtime, the driver and the packages the files have in common are
 * paid once. On es-toolkit (node 20, this 2-core machine) a file alone took about 0.24 s to start
 * and load (node 0.11 s, lodash 0.08 s, each side's 220 KB bundle 0.04 s), of which its own two
 * bundles are about a third. It only plans the budget: each cycle's estimates are scaled by how
 * the last cycle's compared with what it took (rounds.ts estimateScale).
 */
export const SHARED_LOAD_SHARE = 0.3;

/**
 * The files of one round split into shared processes of at most `perProcess` files, in an order
 * drawn from the run's seed and the round: where a file sits in its process (after which files'
 * code ran, how full the heap is) varies from round to round, as which side loads first does.
 */
export function shareFiles<T>(items: readonly T[], perProcess: number, seed: number, round: number): T[][] {
  if (items.length === 0) return [];
  const order = shuffled([...items], mulberry32((seed ^ Math.imul(round + 1, 0x9e3779b1)) >>> 0));
  const groups: T[][] = [];
  for (let at = 0; at < order.length; at += Math.max(1, perProcess)) groups.push(order.slice(at, at + Math.max(1, perProcess)));
  return groups;
}

/** One file's part of a shared process, as if it had run alone. */
export interface SharedPart {
  file: string;
  outcome: BenchOutcome;
}

/**
 * A shared process's outcome, file by file. Files it finished get their own rows and time (the
 * process's start shared among them); the file a crash or a timeout cut short gets that error;
 * files it never reached are returned in `notRun`, to be run in a process of their own.
 */
export function splitShared(files: readonly string[], outcome: BenchOutcome): { parts: SharedPart[]; notRun: string[] } {
  const { report } = outcome;
  const finished = files.filter((file) => report.fileEnds[file] !== undefined);
  const finishedMs = finished.reduce((sum, file) => sum + report.fileEnds[file]!, 0);
  const allFinished = finished.length === files.length;
  const startShareMs = allFinished ? Math.max(0, outcome.wallMs - finishedMs) / files.length : 0;
  const parts: SharedPart[] = [];
  const notRun: string[] = [];
  let cut = false;
  for (const file of files) {
    const rows = rowsOf(report.rows, file);
    const ended = report.fileEnds[file];
    if (ended !== undefined) {
      const loadError = report.fileLoadErrors[file];
      const part = { report: reportOf(rows, true), wallMs: ended + startShareMs };
      parts.push({ file, outcome: loadError === undefined ? part : { ...part, error: loadError } });
    } else if (!cut && !allFinished) {
      // The file the process was in when it ended: the process's error is this file's.
      cut = true;
      const error = outcome.error ?? "exited without finishing its report";
      const wallMs = Math.max(0, outcome.wallMs - finishedMs);
      parts.push({
        file,
        outcome: { report: reportOf(rows, false), error, ...(outcome.timedOut ? { timedOut: true as const } : {}), wallMs },
      });
    } else notRun.push(file);
  }
  return { parts, notRun };
}

function rowsOf(rows: readonly ChildRow[], file: string): ChildRow[] {
  return rows.filter((row) => row.file === file).map(({ file: _, ...row }) => row);
}

function reportOf(rows: ChildRow[], ended: boolean): ChildReport {
  return { inventories: {}, rows, loadErrors: {}, ended, fileLoadErrors: {}, fileEnds: {} };
}
