import type { Side } from "../model/result.ts";
import type { StopReason } from "./rounds/sampling.ts";

/** The widest interval of a run that samples until narrow, and the half-width it is to reach (0.01 = ±1%). */
export interface WidestInterval {
  halfWidth: number;
  target: number;
}

/**
 * What a compare reports while it runs, as plain data: the command renders these on the
 * terminal (output/compare-events.ts); a library user may log, draw or ignore them.
 */
export type CompareEvent =
  /**
   * Something that may take long started (loading a file's sides, the first round of a file):
   * the command shows it with elapsed time until the next event, so a slow start is never silent.
   */
  | { type: "working"; what: string }
  /** A file matched by a pattern registers nothing and uses no benchmark API: left out, with why. */
  | { type: "skipped"; file: string; note: string }
  /** A file's sides were loaded and their benchmarks listed (`loaded`: the sides that loaded). */
  | { type: "inventoried"; file: string; loaded: Side[] }
  /** A file runs one side per process though the run did not ask for that, and why. */
  | { type: "isolated"; file: string; because: string }
  /**
   * `round` rounds are done. `rounds`: the fixed number planned, when it is fixed. `widest`:
   * for runs that sample until narrow, the widest interval so far (after whole cycles), and how
   * many of the rows with an interval are still measured (`open`).
   */
  | { type: "round"; round: number; rounds?: number; elapsedS: number; widest?: WidestInterval; open?: { rows: number; of: number } }
  /** Each row samples `sideMs` per side and process instead of `fromMs`, so that `minRounds` rounds fit `--max-time`. */
  | { type: "budget"; sideMs: number; fromMs: number; minRounds: number }
  /** Even at the shortest sampling, `minRounds` rounds need about `minimumS` seconds, more than `--max-time`. */
  | { type: "over-budget"; minRounds: number; minimumS: number; maxTimeS: number }
  /** The sampling rule stopped the run after `rounds` rounds. */
  | { type: "stopped"; by: StopReason; rounds: number }
  /** A signal stopped the run; `runDir`, when there is one, is where `--resume` continues. */
  | { type: "interrupted"; signal: string; runDir?: string; resume?: string }
  /** A bench process of `files` has run `seconds` without ending; it is stopped at `timeoutS` (`--timeout`). */
  | { type: "running-long"; files: string[]; seconds: number; timeoutS: number }
  /** Temp folders and worktrees of dead runs (by their pids) were removed. */
  | { type: "reclaimed"; pids: number[]; worktrees: number }
  /** A submodule stays empty on a side: never checked out here, or its clone lacks the pinned commit. */
  | { type: "submodule-empty"; side: Side; path: string; why: "not-checked-out" | "commit-missing"; sha: string }
  /** `--install`: one side's dependencies were installed by `command` (which manager and version, said always). */
  | { type: "installed"; side: Side; command: string[]; seconds: number }
  /** `compare --suite tracer`: one side's helpers are being built from its commit. */
  | { type: "building-helpers"; side: Side; sha: string };

export type OnCompareEvent = (event: CompareEvent) => void;

/** For callers that want no events. */
export const ignoreEvents: OnCompareEvent = () => {};
