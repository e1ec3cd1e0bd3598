/**
 * When a compare stops adding rounds. Rounds come in whole cycles (every order of the sides
 * once), and a run stops only at the end of a cycle:
 *   - never before `minRounds` (a 95% signed-rank interval needs 6 pairs to exist at all);
 *   - at `maxRounds` (`--rounds N` sets both bounds to N: a fixed run);
 *   - when every timed row's interval is at most `targetHalfWidth` either side of its delta;
 *   - when the bench processes have run `maxTimeS` seconds in all.
 * The rule looks at widths only, never at where an interval lies: stopping when a verdict
 * appears would make verdicts on unchanged code far more common than 5%. A width does not
 * depend on the sign of the change, so stopping on it keeps the interval's level.
 */
import { halfWidth, intervalRows } from "../report/analyze.ts";
import type { Row } from "../model/result.ts";
import type { SamplingRule } from "./store.ts";

export type StopReason = "rounds" | "target" | "time";

export interface SamplingState {
  /** Rounds finished. */
  rounds: number;
  /** Rounds per cycle. */
  cycle: number;
  /** Time spent inside bench processes so far, in seconds. */
  benchSeconds: number;
  /** The rows as analyzed now; called only when the rule needs them. */
  rows: () => Row[];
}

export function stopReason(rule: SamplingRule, state: SamplingState): StopReason | undefined {
  if (state.rounds % state.cycle !== 0 || state.rounds < rule.minRounds) return undefined;
  if (state.rounds >= rule.maxRounds) return "rounds";
  if (rule.targetHalfWidth !== undefined) {
    const timed = intervalRows(state.rows());
    if (timed.every((row) => halfWidth(row) <= rule.targetHalfWidth!)) return "target";
  }
  if (rule.maxTimeS !== undefined && state.benchSeconds >= rule.maxTimeS) return "time";
  return undefined;
}

/** Rounds rounded up to whole cycles. */
export function wholeCycles(rounds: number, cycle: number): number {
  return Math.ceil(rounds / cycle) * cycle;
}
