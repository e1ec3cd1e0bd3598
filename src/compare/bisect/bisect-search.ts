/**
 * Bisect's search, pure: the probes so far in, the next commit to probe or the conclusion out.
 * Commits are indices on the first-parent path: 0 is `--good` (good by definition, never
 * probed), `last` is `--bad`. Any number of probes may be `skip` (a step the gate could not
 * decide), as `git bisect skip` marks a commit.
 *
 * The search is git's, with two checks git leaves to the user: `--bad` is probed first (a
 * range whose end is not slower has nothing to find), and once a first bad commit is found,
 * one commit between it and `--bad` is probed. A good one there means the slowdown found was
 * reverted; the search then goes on above it, to the slowdown `--bad` actually has.
 */

export type ProbeVerdict = "good" | "bad" | "skip";

export interface Probe {
  index: number;
  verdict: ProbeVerdict;
}

/** A slowdown the search saw come and go: bad at `bad` (first bad at `firstBad` when that is known), good again at `goodAgain`. */
export interface Reverted {
  bad: number;
  firstBad?: number;
  goodAgain: number;
}

export type BisectConclusion =
  /** `--bad` is not slower than `--good` by the threshold (`good`), or could not be told (`skip`). */
  | { kind: "not-bad"; verdict: "good" | "skip" }
  /** `firstBad` is bad and its parent (`firstBad - 1`) good, both probed or `--good` itself. */
  | { kind: "found"; firstBad: number; reverted: Reverted[] }
  /** The first bad commit is one of `after + 1 … upTo`: the ones in between were skipped. */
  | { kind: "range"; after: number; upTo: number; skipped: number[]; reverted: Reverted[] };

export type NextStep = { probe: number } | { done: BisectConclusion };

/** The untested index nearest the middle of (lo, hi), the lower one on a tie; undefined when all are tested. */
function middle(lo: number, hi: number, tested: ReadonlyMap<number, ProbeVerdict>): number | undefined {
  const mid = (lo + hi) / 2;
  let best: number | undefined;
  for (let i = lo + 1; i < hi; i++) {
    if (tested.has(i)) continue;
    if (best === undefined || Math.abs(i - mid) < Math.abs(best - mid)) best = i;
  }
  return best;
}

/** The middle of the longest run of untested indices in (from, to), for a probe that samples a stretch. */
function middleOfLongestGap(from: number, to: number, tested: ReadonlyMap<number, ProbeVerdict>): number | undefined {
  let best: { start: number; length: number } | undefined;
  let start = -1;
  for (let i = from + 1; i <= to; i++) {
    const open = i < to && !tested.has(i);
    if (open && start === -1) start = i;
    if (!open && start !== -1) {
      const length = i - start;
      if (!best || length > best.length) best = { start, length };
      start = -1;
    }
  }
  return best ? best.start + Math.floor((best.length - 1) / 2) : undefined;
}

/** Slowdowns below the current window's good commit: each run of bad probes and the good probe above it. */
function revertedBelow(lo: number, tested: ReadonlyMap<number, ProbeVerdict>): Reverted[] {
  const reverted: Reverted[] = [];
  let bad: number | undefined;
  for (let i = 1; i <= lo; i++) {
    const verdict = tested.get(i);
    if (verdict === "bad" && bad === undefined) bad = i;
    if (verdict === "good" && bad !== undefined) {
      // The first bad commit of that slowdown is known when the commit before it was found good.
      const before = bad - 1 === 0 || tested.get(bad - 1) === "good";
      reverted.push({ bad, ...(before ? { firstBad: bad } : {}), goodAgain: i });
      bad = undefined;
    }
  }
  return reverted;
}

export function nextStep(history: readonly Probe[], last: number): NextStep {
  const tested = new Map(history.map((p) => [p.index, p.verdict] as const));
  const endpoint = tested.get(last);
  if (endpoint === undefined) return { probe: last };
  if (endpoint !== "bad") return { done: { kind: "not-bad", verdict: endpoint } };

  // The window: the highest good commit, and the lowest bad one above it.
  let lo = 0;
  for (const [index, verdict] of tested) if (verdict === "good" && index > lo) lo = index;
  let hi = last;
  for (const [index, verdict] of tested) if (verdict === "bad" && index > lo && index < hi) hi = index;

  const probe = middle(lo, hi, tested);
  if (probe !== undefined) return { probe };

  // The window is closed. Once per window, probe between its bad end and --bad: a good commit
  // there means this slowdown was reverted, and the window moves above it.
  const closedAt = history.findLastIndex((p) => p.index >= lo && p.index <= hi);
  const checked = history.some((p, at) => at > closedAt && p.index > hi);
  const check = checked ? undefined : middleOfLongestGap(hi, last, tested);
  if (check !== undefined) return { probe: check };

  const reverted = revertedBelow(lo, tested);
  const skipped: number[] = [];
  for (let i = lo + 1; i < hi; i++) if (tested.get(i) === "skip") skipped.push(i);
  if (skipped.length === 0) return { done: { kind: "found", firstBad: hi, reverted } };
  return { done: { kind: "range", after: lo, upTo: hi, skipped, reverted } };
}
