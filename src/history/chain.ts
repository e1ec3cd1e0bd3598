/**
 * The history of each row (docs/history.md, docs/statistics.md "A chain of steps"): pure, from
 * the first-parent path and the recorded entries. Each recorded commit is a step, its compare
 * against its parent: a log ratio with a standard error read off its interval. Steps add up
 * along a row's chain into a cumulative change whose variance is the sum of the steps'
 * variances; a commit with no usable step for a row (not recorded, failed, no interval) is a
 * gap that breaks the chain: the cumulative holds over the steps after the last gap, and says so.
 */
import type { CompareResult, Row } from "../model/result.ts";
import { LEVEL } from "../stats/paired.ts";
import { normalQuantile } from "../stats/normal.ts";
import { shortestUniquePaths, rowName } from "../report/names.ts";
import { globToRegExp, isGlob } from "../compare/discover.ts";
import type { HistoryEntry } from "./entry.ts";

export const HISTORY_SCHEMA = "xbench/history";
export const HISTORY_VERSION = 1;

export interface PathCommit {
  sha: string;
  subject: string;
}

/** A commit on the path, and whether its step was recorded. */
export interface HistoryCommit extends PathCommit {
  status: "recorded" | "not recorded" | "failed";
  error?: string;
}

/**
 * A row's step at one commit: `measured` (an interval), `unchanged` (the same code on both sides:
 * no change, exactly), `exact` (counts and bytes, compared without noise), or a `gap` and why.
 */
export interface Step {
  sha: string;
  kind: "measured" | "unchanged" | "exact" | "gap";
  /** ln(head/base): the step's estimate, and its standard error (0 when exact or unchanged). */
  log?: number;
  se?: number;
  delta?: number;
  ci?: [number, number];
  /** Measured steps: the level the compare built `ci` at. */
  level?: number;
  gap?: string;
}

/** The change over the row's last unbroken run of steps, from the commit `from` to `to`. */
export interface Cumulative {
  from: string;
  to: string;
  /** Steps it adds (measured, unchanged or exact). */
  steps: number;
  delta: number;
  ci: [number, number];
  log: number;
  se: number;
}

/** A commit whose own step is a confident change beyond the minimum effect. */
export interface Move {
  sha: string;
  subject: string;
  delta: number;
  ci: [number, number];
}

/** Where the trend stands after each commit of the path: null at a gap (the chain starts again after it). */
export interface TrendPoint {
  log: number;
  se: number;
}

export interface RowHistory {
  id: string;
  file: string;
  label: string;
  name: string;
  steps: Step[];
  /** Per commit of the path (index 0 is the start, value 0): the change since the current run of steps began. */
  trend: Array<TrendPoint | null>;
  cumulative?: Cumulative;
  /** Commits whose step is a gap for this row. */
  gaps: string[];
  moved: Move[];
}

export interface HistoryReport {
  schema: typeof HISTORY_SCHEMA;
  schemaVersion: number;
  /** The commit the chains start from (their value 0), and the last one (HEAD). */
  start: PathCommit;
  head: PathCommit;
  /** The cumulative intervals' level (each row's own, uncorrected for the number of rows). */
  level: number;
  minEffect: number;
  /** The commits after `start` up to `head`, oldest first. */
  commits: HistoryCommit[];
  rows: RowHistory[];
}

/** The z of a two-sided interval at `level`. */
const zOf = (level: number) => normalQuantile(1 - (1 - level) / 2);

/** A row's step at a commit whose compare is `result`. */
export function stepOf(sha: string, row: Row | undefined, result: CompareResult): Step {
  if (!row) return { sha, kind: "gap", gap: "not in this commit's result" };
  if (row.status === "unchanged") return { sha, kind: "unchanged", log: 0, se: 0, delta: 0, ci: [0, 0] };
  if (row.status !== "ok")
    return {
      sha,
      kind: "gap",
      gap: row.status === "no-work" ? "no work measured" : row.status === "uncounted" ? "not countable" : row.status,
    };
  if (row.exact) {
    const { base, head } = row.exact;
    if (!(base > 0 && head > 0)) return { sha, kind: "gap", gap: "an exact count of 0 has no ratio" };
    const delta = head / base - 1;
    return { sha, kind: "exact", log: Math.log(head / base), se: 0, delta, ci: [delta, delta] };
  }
  const stats = row.stats;
  if (!stats) return { sha, kind: "gap", gap: "no interval" };
  const [lo, hi] = stats.ci;
  // JSON writes an unbounded bound (too few rounds) as null.
  if (lo === null || hi === null || !Number.isFinite(lo) || !Number.isFinite(hi) || lo <= -1) {
    return { sha, kind: "gap", gap: "no interval (too few rounds)" };
  }
  const level = stats.level ?? result.level ?? LEVEL;
  const se = (Math.log1p(hi) - Math.log1p(lo)) / (2 * zOf(level));
  return { sha, kind: "measured", log: Math.log1p(stats.delta), se, delta: stats.delta, ci: [lo, hi], level };
}

/** What a unit's values are, for a gap between steps of different units. */
function unitWords(unit: Row["unit"]): string {
  if (unit === "ns") return "timed";
  if (unit === "instructions" || unit === "cycles") return `counted in ${unit}`;
  return `measured in ${unit}`;
}

/** Whether a step's own interval lies wholly beyond ±minEffect: a confident change bigger than it. */
export function moves(step: Step, minEffect: number): boolean {
  if (step.kind !== "measured" && step.kind !== "exact") return false;
  const [lo, hi] = step.ci!;
  return lo > minEffect || hi < -minEffect;
}

interface Run {
  from: string;
  to: string;
  steps: number;
  log: number;
  variance: number;
  /** The run's steps with noise (measured ones): with exactly one, its own interval is the run's. */
  noisy: Step[];
}

const emptyRun = (from: string): Run => ({ from, to: from, steps: 0, log: 0, variance: 0, noisy: [] });

/**
 * The interval of a run: the sum's normal interval, from the steps' variances added; a run
 * with one noisy step (the others exact or unchanged) keeps that step's own interval, shifted.
 */
function runInterval(run: Run, z: number): [number, number] {
  if (run.noisy.length === 1) {
    const only = run.noisy[0]!;
    const shift = run.log - only.log!;
    return [Math.expm1(shift + Math.log1p(only.ci![0])), Math.expm1(shift + Math.log1p(only.ci![1]))];
  }
  const se = Math.sqrt(run.variance);
  return [Math.expm1(run.log - z * se), Math.expm1(run.log + z * se)];
}

/**
 * A row's trend and cumulative from its steps: sums of log ratios with variances added, each
 * run of steps between gaps on its own (a gap's change is unknown, so nothing bridges it).
 */
export function chainSteps(
  start: string,
  steps: readonly Step[],
  level = LEVEL,
): { trend: Array<TrendPoint | null>; cumulative?: Cumulative } {
  const z = zOf(level);
  const trend: Array<TrendPoint | null> = [{ log: 0, se: 0 }];
  let run = emptyRun(start);
  let last: Run | undefined;
  for (const step of steps) {
    if (step.kind === "gap") {
      // The chain starts again from this commit: its own value is unknown, so the point is a gap.
      trend.push(null);
      if (run.steps > 0) last = run;
      run = emptyRun(step.sha);
      continue;
    }
    run = {
      ...run,
      to: step.sha,
      steps: run.steps + 1,
      log: run.log + step.log!,
      variance: run.variance + step.se! ** 2,
      noisy: step.kind === "measured" ? [...run.noisy, step] : run.noisy,
    };
    trend.push({ log: run.log, se: Math.sqrt(run.variance) });
  }
  const held = run.steps > 0 ? run : last;
  if (!held) return { trend };
  const ci = runInterval(held, z);
  const cumulative = {
    from: held.from,
    to: held.to,
    steps: held.steps,
    delta: Math.expm1(held.log),
    ci,
    log: held.log,
    se: Math.sqrt(held.variance),
  };
  return { trend, cumulative };
}

/**
 * FILTER over rows, as compare's filter reads bench files: a glob when it has `*` or `?`
 * (matched against the row's name, its id, its file and its label), else a substring of them.
 */
export function rowMatches(row: Pick<RowHistory, "id" | "file" | "label" | "name">, filter: string | undefined): boolean {
  if (!filter) return true;
  const texts = [row.name, row.id, row.file, row.label];
  if (isGlob(filter)) {
    const re = globToRegExp(filter);
    return texts.some((text) => re.test(text));
  }
  return texts.some((text) => text.includes(filter));
}

export interface HistoryInput {
  start: PathCommit;
  /** Commits after `start` up to HEAD on HEAD's first-parent line, oldest first. */
  path: PathCommit[];
  entries: ReadonlyMap<string, HistoryEntry>;
  minEffect: number;
  rows?: string;
}

/** Every row seen on the path, with its steps, trend, cumulative and the commits that moved it. */
export function buildHistory(input: HistoryInput): HistoryReport {
  const { start, path, entries, minEffect } = input;
  const commits: HistoryCommit[] = path.map((commit) => {
    const entry = entries.get(commit.sha);
    if (!entry) return { ...commit, status: "not recorded" };
    if (!entry.result) return { ...commit, status: "failed", error: entry.error ?? "no result" };
    return { ...commit, status: "recorded" };
  });
  // Rows in the order they first appear, each file's rows together as compare lists them.
  const known = new Map<string, Row>();
  for (const commit of path) for (const row of entries.get(commit.sha)?.result?.rows ?? []) if (!known.has(row.id)) known.set(row.id, row);
  // A row is read in what its latest entry measured (time, or counts of --measure): a step
  // measured in another unit cannot be chained to it.
  const units = new Map<string, Row["unit"]>();
  for (const commit of path) for (const row of entries.get(commit.sha)?.result?.rows ?? []) units.set(row.id, row.unit);
  const paths = shortestUniquePaths([...known.values()].map((row) => row.file));
  const rows: RowHistory[] = [];
  for (const row of known.values()) {
    const name = rowName(paths.get(row.file) ?? row.file, row.label);
    if (!rowMatches({ id: row.id, file: row.file, label: row.label, name }, input.rows)) continue;
    const steps = commits.map((commit): Step => {
      const result = entries.get(commit.sha)?.result;
      if (commit.status === "not recorded") return { sha: commit.sha, kind: "gap", gap: "not recorded" };
      if (!result) return { sha: commit.sha, kind: "gap", gap: `failed: ${commit.error}` };
      const found = result.rows.find((r) => r.id === row.id);
      const unit = units.get(row.id)!;
      if (found && found.unit !== unit) return { sha: commit.sha, kind: "gap", gap: `${unitWords(found.unit)}, not ${unitWords(unit)}` };
      return stepOf(commit.sha, found, result);
    });
    const { trend, cumulative } = chainSteps(start.sha, steps);
    const moved = steps.flatMap((step, i) =>
      moves(step, minEffect) ? [{ sha: step.sha, subject: commits[i]!.subject, delta: step.delta!, ci: step.ci! }] : [],
    );
    const gaps = steps.filter((step) => step.kind === "gap").map((step) => step.sha);
    rows.push({ id: row.id, file: row.file, label: row.label, name, steps, trend, ...(cumulative ? { cumulative } : {}), gaps, moved });
  }
  const head = path.at(-1) ?? start;
  return { schema: HISTORY_SCHEMA, schemaVersion: HISTORY_VERSION, start, head, level: LEVEL, minEffect, commits, rows };
}
