/**
 * How long each row samples in each bench process, and what a round is expected to cost.
 * Pure: data in, data out (docs/compare.md, "Where the budget goes").
 *
 * A row's per-round log ratio d has two parts of noise: what the process's own sampling adds
 * (batches differ; it shrinks as the row samples longer), and what differs between processes
 * (JIT decisions per copy of the code, layout; sampling longer does not touch it). With W the
 * in-process variance times the sampling time (so W/T at time T), B the variance between
 * processes, and c what a row costs a process besides sampling (warm-up, its share of the
 * process's start), a round of the row costs about 2(c + T) and the interval's width goes as
 * √((B + W/T) / rounds): per second of budget, (B + W/T)(c + T) is least at T = √(W·c / B),
 * the classic allocation of two-stage sampling (Cochran, "Sampling Techniques", 10.6).
 */
import type { SamplingBudget } from "../../runner/protocol.ts";
import { median } from "../../stats/quantile.ts";
import { SHARED_LOAD_SHARE } from "./shared.ts";

/** One round of one row: its log ratio and what the process said about its own sampling. */
export interface RowRound {
  /** ln(head / base). */
  d: number;
  /** Variance of d from the process's own sampling (splitHalfVariance). */
  within: number;
  /** Sampling time per side in that process (ns). */
  sideNs: number;
  /** Time each side warmed up, on average (ns). */
  warmupNs: number;
}

/** The median of a χ² variable with one degree of freedom. */
const CHI2_1_MEDIAN = 0.4549;

/**
 * Shortest and longest sampling time per side a row is given (ns). The longest is the default
 * `--time`: under load a process's halves disagree most, and on a 54-row suite rows given up
 * to 1 s ate the budget's second part in two cycles.
 */
export const SIDE_NS_LIMITS = { min: 25e6, max: 200e6 } as const;

/**
 * A budget at another sampling time; its warm-up a quarter of it, at least 5 ms, as plan.ts
 * samplingBudget sets (or `warmupNs`: a row's own time leaves the run's warm-up as it is, since
 * what a row needs to warm up does not grow with how long it then samples).
 */
export function budgetAt(sideNs: number, base: SamplingBudget, warmupNs = Math.max(sideNs / 4, 5e6)): SamplingBudget {
  return { ...base, sideNs: Math.round(sideNs), warmupNs };
}

/**
 * The variance a process's own sampling adds to its d = ln(head/base), from the values of the
 * two halves of its batches: d₁ and d₂ each have twice the variance of d, so (d₁ − d₂)²/4
 * estimates it, one process at a time (unbiased, so averaging over rounds makes it precise).
 * Halves of one process see the same JIT state and the same neighbours, as both sides' batches
 * do, which a spread of single batches would count as noise.
 */
export function splitHalfVariance(base: readonly [number, number], head: readonly [number, number]): number {
  const d1 = Math.log(head[0] / base[0]);
  const d2 = Math.log(head[1] / base[1]);
  return Number.isFinite(d1) && Number.isFinite(d2) ? (d1 - d2) ** 2 / 4 : 0;
}

/**
 * The sampling time per side (ns) that narrows this row's interval most per second, from its
 * rounds so far; undefined with fewer than 6 rounds (too few to split the noise). `overheadNs`
 * is the row's share of a process's start. Robust: the spread of d is 1.4826 × its MAD, the
 * in-process part the median of the rounds' split-half values.
 */
export function bestSideNs(rounds: readonly RowRound[], overheadNs: number, limits = SIDE_NS_LIMITS): number | undefined {
  if (rounds.length < 6) return undefined;
  const ds = rounds.map((r) => r.d);
  const center = median(ds);
  const total = (1.4826 * median(ds.map((d) => Math.abs(d - center)))) ** 2;
  // Robust like the total: each round's split-half value is σ²·χ²₁, whose median is 0.4549 σ²
  // (a mean let one process whose halves disagreed set a row's time).
  const within = median(rounds.map((r) => r.within)) / CHI2_1_MEDIAN;
  const w = median(rounds.map((r) => r.within * r.sideNs)) / CHI2_1_MEDIAN;
  const c = rounds.reduce((sum, r) => sum + r.warmupNs, 0) / rounds.length + overheadNs;
  // What sampling cannot reach: at least a tenth of the total, so that a run whose spread is
  // nearly all in-process noise (a quiet machine) still gets a finite time.
  const between = Math.max(total - within, 0.1 * total);
  if (!(between > 0) || !(w > 0)) return limits.max;
  return Math.min(limits.max, Math.max(limits.min, Math.sqrt((w * c) / between)));
}

/** Expected wall time of one process of a file: its start and load, then each row's two sides. */
export function processMs(loadMs: number, rowBudgets: readonly SamplingBudget[], sides = 2): number {
  // Beyond sampling and warm-up a row pays calibration and the short rewarm batch at each
  // switch of side (a quarter of a batch every two batches): about a quarter more.
  return loadMs + rowBudgets.reduce((sum, b) => sum + (sides * 1.25 * (b.sideNs + b.warmupNs)) / 1e6, 0);
}

/** Wall time of running these processes `jobs` at a time: the work spread over them, never less than the longest. */
export function parallelMs(processes: readonly number[], jobs: number): number {
  if (processes.length === 0) return 0;
  const total = processes.reduce((a, b) => a + b, 0);
  return Math.max(total / Math.max(1, jobs), Math.max(...processes));
}

/** A file as the budget sees it: what its process costs to start and load, and its timed rows. */
export interface FileCost {
  loadMs: number;
  rows: number;
  /** Processes per round (1 for a duet; 2 when each side has its own). */
  processes: number;
}

/**
 * Expected wall time of a shared process (shared.ts): the costliest file's start and load once,
 * each other file's load at the share a shared process pays for it, and every file's rows (ms).
 */
export function sharedProcessMs(loadsMs: readonly number[], rowsMs: readonly number[]): number {
  if (loadsMs.length === 0) return 0;
  const start = Math.max(...loadsMs);
  const loads = loadsMs.reduce((sum, ms) => sum + ms, 0);
  return start + SHARED_LOAD_SHARE * (loads - start) + rowsMs.reduce((sum, ms) => sum + ms, 0);
}

/** What fitting the minimum rounds into the budget gave. */
export interface BudgetFit {
  budget: SamplingBudget;
  /** Estimated wall time of the minimum rounds at that budget (s). */
  minimumS: number;
  /** The minimum rounds fit `maxTimeS` at this budget. */
  fits: boolean;
}

/**
 * Estimated wall time of one round of these files at one budget per row (s): half a cycle, whose
 * two rounds' processes run `jobs` at a time. Duet files share processes of `filesPerProcess`.
 */
export function roundSeconds(files: readonly FileCost[], budget: SamplingBudget, jobs: number, filesPerProcess = 1): number {
  const rowsMs = (f: FileCost, sides: number) =>
    processMs(
      0,
      Array.from({ length: f.rows }, () => budget),
      sides,
    );
  const alone = files.filter((f) => f.processes > 1 || filesPerProcess <= 1);
  const shared = files.filter((f) => !alone.includes(f));
  const round = alone.flatMap((f) => Array.from({ length: f.processes }, () => f.loadMs + rowsMs(f, f.processes > 1 ? 1 : 2)));
  for (let at = 0; at < shared.length; at += filesPerProcess) {
    const group = shared.slice(at, at + filesPerProcess);
    round.push(
      sharedProcessMs(
        group.map((f) => f.loadMs),
        group.map((f) => rowsMs(f, 2)),
      ),
    );
  }
  return parallelMs([...round, ...round], jobs) / 2000;
}

/**
 * Share of `--max-time` the minimum rounds may take: the rest goes to the rows still wide after
 * them, each at its own sampling time. Fitting the minimum into the whole budget left a 54-row
 * suite with its 6 rounds and nothing else.
 */
export const MINIMUM_SHARE = 1 / 3;

/**
 * The sampling budget at which `minRounds` rounds fit in MINIMUM_SHARE of `maxTimeS`, shortening
 * each row's time per side from `budget` down to the floor; when even the floor does not fit in
 * 90% of `maxTimeS` (the rest is margin for the estimate), the floor, with the time the minimum
 * would take.
 */
export function fitMinimumRounds(
  files: readonly FileCost[],
  budget: SamplingBudget,
  options: { minRounds: number; maxTimeS: number; jobs: number; floorNs?: number; filesPerProcess?: number },
): BudgetFit {
  const floor = Math.min(budget.sideNs, options.floorNs ?? SIDE_NS_LIMITS.min);
  let sideNs = budget.sideNs;
  for (;;) {
    const candidate = sideNs === budget.sideNs ? budget : budgetAt(sideNs, budget);
    const minimumS = options.minRounds * roundSeconds(files, candidate, options.jobs, options.filesPerProcess);
    if (minimumS <= MINIMUM_SHARE * options.maxTimeS || sideNs <= floor)
      return { budget: candidate, minimumS, fits: minimumS <= 0.9 * options.maxTimeS };
    sideNs = Math.max(floor, sideNs * 0.8);
  }
}
