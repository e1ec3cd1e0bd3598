/**
 * Equivalence: "no change beyond ±m". A 95% interval that lies wholly within [-m, +m] says the
 * true change is smaller than m in either direction, which is an answer, unlike an interval that
 * holds zero but reaches beyond ±m ("too wide to tell"). Reading both off the same interval is the
 * two one-sided tests' procedure (Schuirmann 1987) at the interval's level, so no new statistic is
 * involved and a row's verdict stays a pure function of its interval and m.
 *
 * An interval within ±m that excludes zero (a real change smaller than m) reads `same` too: m is
 * the smallest change the user cares about, and a change below it is not reported as one.
 */
import type { Verdict } from "../model/result.ts";
import { verdictOf } from "./signed-rank.ts";

/** `--min-effect` by default: ±0.5%, about the half-width a default run reaches on a quiet machine. */
export const DEFAULT_MIN_EFFECT = 0.005;

/**
 * `same` when `ci` (an interval of delta) lies within ±minEffect, else the verdict of the
 * interval against zero: `slower`, `faster` or `~`. minEffect 0 leaves only an interval of
 * exactly [0, 0] (identical values) reading `same`.
 */
export function verdictWithin(ci: readonly [number, number], minEffect: number): Verdict {
  if (!(minEffect >= 0)) throw new RangeError(`min effect must be a number >= 0, got ${minEffect}`);
  if (ci[0] >= -minEffect && ci[1] <= minEffect) return "same";
  return verdictOf(ci);
}

/** Whether a verdict claims a change: what counts as a false alarm on unchanged code. */
export function isChange(verdict: Verdict): boolean {
  return verdict === "slower" || verdict === "faster";
}
