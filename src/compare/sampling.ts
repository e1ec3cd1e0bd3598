/**
 * When a compare measures a row again, and when it stops adding rounds. Rounds come in whole
 * cycles (every order of the sides once), and rows and the run stop only at the end of a cycle:
 *   - never before `minRounds` (a 95% signed-rank interval needs 6 pairs to exist at all);
 *   - at `maxRounds` (`--rounds N` sets both bounds to N: a fixed run, every row N rounds);
 *   - a row whose interval is at most `targetHalfWidth` either side of its delta is not
 *     measured again; the run stops when no row is left open;
 *   - when the measuring phase's wall time has reached `maxTimeS`, or the next cycle would
 *     end more than 5% past it.
 * The rule looks at widths only, never at where an interval lies: stopping when a verdict
 * appears would make verdicts on unchanged code far more common than 5%. A width does not
 * depend on the sign of the change, so stopping a row on it keeps its interval's level
 * (docs/statistics.md, "Sampling until the answer is clear").
 */
import { halfWidth } from "../report/analyze.ts";
import type { Row } from "../model/result.ts";
import type { SamplingRule } from "./store.ts";

export type StopReason = "rounds" | "target" | "time";

/** How far past `maxTimeS` a cycle may be expected to end and still be started. */
export const TIME_SLACK = 1.05;

/**
 * Whether a row is measured in the next cycle, after `rounds` rounds. Rows without an interval
 * (exact counts, new or removed benchmarks) need only the minimum; failed and unchanged rows
 * none.
 */
export function rowOpen(rule: SamplingRule, rounds: number, row: Row): boolean {
  if (row.status === "failed" || row.status === "unchanged") return false;
  if (rounds < rule.minRounds) return true;
  if (rounds >= rule.maxRounds) return false;
  if (rule.targetHalfWidth === undefined) return true;
  return row.status === "ok" && row.stats !== undefined && halfWidth(row) > rule.targetHalfWidth;
}

export interface SamplingState {
  /** Rounds finished. */
  rounds: number;
  /** Rounds per cycle. */
  cycle: number;
  /** Wall time of the measuring phase so far, in seconds. */
  elapsedS: number;
  /** Expected wall time of the next cycle, in seconds; called only when the rule needs it. */
  nextCycleS: () => number;
  /** Rows still open (rowOpen); called only when the rule needs them. */
  openRows: () => number;
}

export function stopReason(rule: SamplingRule, state: SamplingState): StopReason | undefined {
  if (state.rounds % state.cycle !== 0 || state.rounds < rule.minRounds) return undefined;
  if (state.rounds >= rule.maxRounds) return "rounds";
  if (rule.targetHalfWidth !== undefined && state.openRows() === 0) return "target";
  if (rule.maxTimeS !== undefined) {
    if (state.elapsedS >= rule.maxTimeS || state.elapsedS + state.nextCycleS() > TIME_SLACK * rule.maxTimeS) return "time";
  }
  return undefined;
}

/** Rounds rounded up to whole cycles. */
export function wholeCycles(rounds: number, cycle: number): number {
  return Math.ceil(rounds / cycle) * cycle;
}
