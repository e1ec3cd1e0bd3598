/**
 * The processes of a compare (compare/rounds/): the inventory of what each file registers
 * (inventory.ts), then the measured rounds until the stop rule. This file is the folder's entry
 * and exports the rounds (`measureRounds`) and the per-process constants commands take their
 * defaults from. Beside it: the jobs a file's round needs (jobs.ts), one bench process
 * (processes.ts), files sharing a process (shared.ts), the stop rule and sampling time
 * (sampling.ts, allocate.ts). It never checks out, builds or bundles a side, and reports only
 * through events.
 *
 * The rounds of a compare: whole cycles of bench processes, up to `--jobs` of them at once, each
 * outcome appended to the run folder the moment it arrives. After the minimum rounds a row whose
 * interval is narrow enough is no longer measured, so later processes run only the rows still
 * open, each for the sampling time that narrows it most per second (allocate.ts); the run stops
 * when none is left, or before a cycle that would overrun `--max-time` (sampling.ts).
 */
import type { Row } from "../../model/result.ts";
import { SIDES, type Side } from "../../model/side.ts";
import type { Job, SamplingBudget } from "../../runner/protocol.ts";
import type { BenchOutcome } from "../../runner/spawn.ts";
import { orderAt } from "../../schedule/orderings.ts";
import { halfWidth, intervalRows } from "../../report/row-stats.ts";
import {
  sharedProcessMs,
  bestSideNs,
  budgetAt,
  fitMinimumRounds,
  parallelMs,
  processMs,
  SIDE_NS_LIMITS,
  splitHalfVariance,
  type RowRound,
} from "./allocate.ts";
import type { OnCompareEvent, WidestInterval } from "../events.ts";
import { expectedLabels, jobsFor, type FileJob, type FilePlan, type InventoryOutcome } from "./jobs.ts";
import { collectRows } from "../rows.ts";
import { rowOpen, rowsWithinReach, stopReason, TIME_SLACK, type StopReason } from "./sampling.ts";
import { recordKey, type RoundRecord, type RunStore } from "../run/store.ts";
import { SHARED_LOAD_SHARE, shareFiles, splitShared } from "./shared.ts";
import { countMeasure, measuredUnit } from "../../runner/valgrind.ts";

export { DEFAULT_FILES_PER_PROCESS } from "./shared.ts";

/** Rounds per cycle: both orders of the two sides. */
export const CYCLE = 2;

/** Which timed rows a process measures (all when absent), and budgets other than the run's. */
export type RowSelection = Pick<Job, "labels" | "rowBudgets">;

/** Starts one bench process of a file (processes.ts processRunner). */
export type RunProcess = (
  file: string,
  kind: Job["kind"],
  order: readonly Side[],
  parts: Job["parts"],
  rows?: RowSelection,
) => Promise<BenchOutcome>;

/** Starts one shared process (shared.ts): the files one after another, both sides of each in `order`. */
export type RunShared = (files: Array<{ file: string; rows: RowSelection }>, order: readonly Side[]) => Promise<BenchOutcome>;

/** A file to measure: its plan (which jobs, which sides) and what each side registered. */
export interface MeasuredFile {
  plan: FilePlan;
  outcome: InventoryOutcome;
}

export interface RoundsContext {
  store: RunStore;
  files: MeasuredFile[];
  run: RunProcess;
  /** Runs shared processes; without it every file has processes of its own. */
  runShared?: RunShared;
  /** recordKey()s of the processes the store already holds (a resumed run does not repeat them). */
  done: Set<string>;
  /** The analyzed rows after a number of rounds. */
  analyze: (rounds: number) => Row[];
  onEvent: OnCompareEvent;
  /** When the invocation started, on `now`'s clock (the progress events' elapsed time). */
  started: number;
  /** The clock `--max-time` and the progress events read (ms); performance.now by default. */
  now?: () => number;
  /** The run said the minimum rounds overrun `--max-time` (said once). */
  warnedOverBudget?: boolean;
}

/** One process of a cycle: which round, file and job, what it measures, and how long it should take (ms). */
interface Work {
  round: number;
  file: MeasuredFile;
  job: FileJob;
  rows: RowSelection;
  estimateMs: number;
  /** A shared process: these files' duet jobs, in the order the process runs them (`file` and `job` are the first's). */
  members?: Work[];
}

/** The clock of `ctx`'s rounds: the one it was given, else performance.now. */
function clockOf(ctx: RoundsContext): () => number {
  return ctx.now ?? (() => performance.now());
}

/** The measuring phase's clock: wall time of this invocation's rounds plus what earlier ones recorded. */
function phaseClock(store: RunStore, now: () => number): () => number {
  const before = Math.max(0, ...store.records.map((r) => r.phaseMs ?? 0));
  const start = now();
  return () => before + now() - start;
}

/**
 * Rounds until the sampling rule says stop; a process the store already holds is not run again.
 * Returns the number of rounds, what stopped them, and the measuring phase's wall time.
 */
export async function measureRounds(ctx: RoundsContext): Promise<{ rounds: number; stoppedBy: StopReason | undefined; measuredS: number }> {
  const { store, files, onEvent } = ctx;
  const { plan } = store;
  // Rounds only where some file has a process to run: files that failed on a side run none,
  // and rounds of nothing would print progress and a sampling note for nothing measured.
  if (!files.some(({ plan: filePlan }) => jobsFor(filePlan, SIDES).length > 0)) return { rounds: 0, stoppedBy: undefined, measuredS: 0 };
  fitBudget(ctx);
  const elapsedMs = phaseClock(store, clockOf(ctx));
  let stoppedBy: StopReason | undefined;
  let round = 0;
  for (; ; round += CYCLE) {
    const rows = ctx.analyze(round);
    const elapsedS = elapsedMs() / 1000;
    const open = openRows(ctx, round, rows, elapsedS);
    const work = fitCycle(ctx, round, cycleWork(ctx, round, rows, open), elapsedS);
    stoppedBy = stopReason(plan.sampling, {
      rounds: round,
      cycle: CYCLE,
      elapsedS,
      nextCycleS: () => cycleSeconds(ctx, round, work),
      openRows: () => open.size,
    });
    if (stoppedBy) {
      onEvent({ type: "stopped", by: stoppedBy, rounds: round });
      break;
    }
    await runCycle(ctx, round, work, elapsedMs);
  }
  return { rounds: round, stoppedBy, measuredS: elapsedMs() / 1000 };
}

/**
 * Before the first round: the sampling time per row at which the minimum rounds fit the budget.
 * A run whose minimum would overrun `--max-time` at the default `--time` samples each row for
 * less; when even the shortest time does not fit, it says so with the time it needs. Decided
 * once and kept in the plan, so a resumed run samples as it began.
 */
function fitBudget(ctx: RoundsContext): void {
  const { plan } = ctx.store;
  const { sampling } = plan;
  // A counted row's windows are sized in events, not time: nothing to fit.
  if (plan.budgetFitted || sampling.maxTimeS === undefined || counted(plan)) return;
  const costs = ctx.files
    .filter(({ plan: filePlan }) => jobsFor(filePlan, SIDES).length > 0)
    .map(({ plan: filePlan, outcome }) => ({
      loadMs: outcome.loadMs ?? 0,
      rows: Math.max(0, ...SIDES.map((side) => outcome.inventories[side]?.benchmarks.length ?? 0)),
      processes: filePlan.timed === "isolated" ? 2 : 1,
    }));
  // A --time the user gave is kept: then only the warning, if the minimum does not fit.
  const floorNs = plan.budgetFixed ? plan.budget.sideNs : undefined;
  const fit = fitMinimumRounds(costs, plan.budget, {
    minRounds: sampling.minRounds,
    maxTimeS: sampling.maxTimeS,
    jobs: plan.jobs ?? 1,
    floorNs,
    filesPerProcess: filesPerProcess(ctx),
  });
  if (fit.budget.sideNs < plan.budget.sideNs) {
    ctx.onEvent({ type: "budget", sideMs: fit.budget.sideNs / 1e6, fromMs: plan.budget.sideNs / 1e6, minRounds: sampling.minRounds });
    plan.budget = fit.budget;
  }
  if (!fit.fits) {
    ctx.warnedOverBudget = true;
    ctx.onEvent({ type: "over-budget", minRounds: sampling.minRounds, minimumS: fit.minimumS, maxTimeS: sampling.maxTimeS });
  }
  plan.budgetFitted = true;
  ctx.store.savePlan();
}

/**
 * The ids of the rows the next cycle measures (sampling.ts rowOpen). Before the minimum rounds
 * a row "fails" the analysis for having too few rounds; only a row whose benchmark or process
 * failed (a throw, a timeout) is closed then.
 */
function openRows(ctx: RoundsContext, round: number, rows: Row[], elapsedS: number): Set<string> {
  const { plan, records } = ctx.store;
  if (round >= plan.sampling.minRounds) {
    const open = rows.filter((row) => rowOpen(plan.sampling, round, row));
    const closed = rows.filter((row) => row.stats !== undefined).length - open.length;
    return withinReach(ctx, round, open, Math.max(0, closed), elapsedS) ?? new Set(open.map((row) => row.id));
  }
  const failed = new Set(collectRows(plan.files, round, records, measuredUnit(plan.measure)).flatMap((raw) => (raw.error ? [raw.id] : [])));
  return new Set(rows.filter((row) => row.status !== "unchanged" && row.status !== "skipped" && !failed.has(row.id)).map((row) => row.id));
}

/**
 * Of the open rows, those the time left can bring to the target (sampling.ts rowsWithinReach),
 * when it cannot bring them all; undefined: measure every open row.
 */
function withinReach(ctx: RoundsContext, round: number, open: Row[], closed: number, elapsedS: number): Set<string> | undefined {
  const { plan, records } = ctx.store;
  const { targetHalfWidth: target, maxTimeS } = plan.sampling;
  if (target === undefined || maxTimeS === undefined || plan.budgetFixed || counted(plan)) return undefined;
  const candidates = open.filter((row) => row.stats !== undefined);
  if (candidates.length < open.length) return undefined;
  const loads = new Map(ctx.files.map((f) => [f.plan.file, f.outcome.loadMs ?? 0]));
  const openFiles = [...new Set(candidates.map((row) => row.file))].map((file) => loads.get(file) ?? 0);
  const perRound = filesPerProcess(ctx) > 1 ? sharedProcessMs(openFiles, []) : openFiles.reduce((a, b) => a + b, 0);
  const scale = estimateScale(ctx, round);
  const rows = candidates.map((row) => {
    const rounds = rowRounds(records, row.file, row.label, plan.budget.sideNs);
    const sideNs = bestSideNs(rounds, 0) ?? plan.budget.sideNs;
    const warmupNs = rounds.length > 0 ? rounds.reduce((sum, r) => sum + r.warmupNs, 0) / rounds.length : plan.budget.warmupNs;
    return {
      id: row.id,
      rounds: row.stats!.n,
      halfWidth: halfWidth(row),
      cycleMs: scale * processMs(0, [budgetAt(sideNs, plan.budget, warmupNs)]) * CYCLE,
    };
  });
  return rowsWithinReach(rows, {
    target,
    cycle: CYCLE,
    budgetMs: (TIME_SLACK * maxTimeS - elapsedS) * 1000 * (plan.jobs ?? 1),
    overheadPerCycleMs: scale * perRound * CYCLE,
    closed,
  });
}

/** The processes of the cycle that starts at `round`: every file's jobs for the rows still open. */
function cycleWork(ctx: RoundsContext, round: number, rows: Row[], open: Set<string>): Work[] {
  const { store, files, done } = ctx;
  const { plan } = store;
  const past = round >= plan.sampling.minRounds;
  const work: Work[] = [];
  for (const file of files) {
    // Rows the file skips are listed from the inventory on and never measured: they say nothing of the rounds.
    const mine = rows.filter((row) => row.file === file.plan.file && row.status !== "skipped");
    // Before its first round a file's rows are not known yet: its processes measure everything.
    // After that only the open ones: rows that failed (a timeout, a throw) never run again.
    const known = mine.length > 0;
    const openLabels = mine.filter((row) => open.has(row.id)).map((row) => row.label);
    if (known && openLabels.length === 0) continue;
    // Decided once per cycle: both rounds of a pair measure the same rows for the same time.
    const budgets = past ? rowBudgets(ctx, file.plan.file, openLabels, file.outcome) : undefined;
    const selection: RowSelection = { ...(known ? { labels: openLabels } : {}), ...(budgets ? { rowBudgets: budgets } : {}) };
    for (let r = round; r < round + CYCLE; r++) {
      for (const job of jobsFor(file.plan, orderAt(SIDES, plan.seed, r) as Side[])) {
        if (done.has(recordKey(r, file.plan.file, job.name))) continue;
        if (known && expectedLabels(file.outcome, job, openLabels).length === 0) continue;
        work.push({ round: r, file, job, rows: selection, estimateMs: estimateMs(ctx, file, job, selection) });
      }
    }
  }
  // Round by round, as the progress line reports them.
  work.sort((x, y) => x.round - y.round);
  return shareProcesses(ctx, work);
}

/** Files that share processes (shared.ts) in this run, or 1. */
function filesPerProcess(ctx: RoundsContext): number {
  return ctx.runShared ? (ctx.store.plan.filesPerProcess ?? 1) : 1;
}

/**
 * The duet jobs of each round gathered into shared processes; other jobs keep processes of their
 * own. A cycle's two rounds run at once, so with more `--jobs` than that a round's files are
 * split over enough processes to keep every core busy.
 */
function shareProcesses(ctx: RoundsContext, work: Work[]): Work[] {
  const perProcess = filesPerProcess(ctx);
  if (perProcess <= 1) return work;
  const processesPerRound = Math.ceil((ctx.store.plan.jobs ?? 1) / CYCLE);
  const out: Work[] = [];
  for (const round of [...new Set(work.map((w) => w.round))]) {
    const mine = work.filter((w) => w.round === round);
    out.push(...mine.filter((w) => w.job.kind !== "duet"));
    const duets = mine.filter((w) => w.job.kind === "duet");
    for (const members of shareFiles(
      duets,
      Math.min(perProcess, Math.ceil(duets.length / processesPerRound)),
      ctx.store.plan.seed,
      round,
    )) {
      out.push(members.length === 1 ? members[0]! : sharedWork(members));
    }
  }
  return out;
}

/** One shared process of these files: its estimate from theirs, each member's own estimate its share of it. */
function sharedWork(members: Work[]): Work {
  const loads = members.map((m) => m.file.outcome.loadMs ?? 0);
  const rows = members.map((m, i) => m.estimateMs - loads[i]!);
  const estimateMs = sharedProcessMs(loads, rows);
  const startShare = (estimateMs - rows.reduce((a, b) => a + b, 0)) / members.length;
  const first = members[0]!;
  return {
    ...first,
    rows: {},
    estimateMs,
    members: members.map((m, i) => ({ ...m, estimateMs: rows[i]! + startShare })),
  };
}

/** Per open timed row, the budget allocate.ts finds best from its rounds so far (none for rows it cannot judge yet). */
function rowBudgets(
  ctx: RoundsContext,
  file: string,
  labels: string[],
  outcome: InventoryOutcome,
): Record<string, SamplingBudget> | undefined {
  const { plan, records } = ctx.store;
  if (plan.budgetFixed || plan.sampling.targetHalfWidth === undefined || counted(plan)) return undefined;
  const rowsInProcess = Math.max(1, labels.length);
  // In a shared process a file pays only a share of a process's start and load.
  const loadShare = filesPerProcess(ctx) > 1 && ctx.files.find((f) => f.plan.file === file)?.plan.timed === "duet" ? SHARED_LOAD_SHARE : 1;
  const overheadNs = ((outcome.loadMs ?? 0) * loadShare * 1e6) / (2 * rowsInProcess);
  const budgets: Record<string, SamplingBudget> = {};
  for (const label of labels) {
    const sideNs = bestSideNs(rowRounds(records, file, label, plan.budget.sideNs), overheadNs);
    if (sideNs !== undefined) budgets[label] = budgetAt(sideNs, plan.budget, plan.budget.warmupNs);
  }
  return Object.keys(budgets).length > 0 ? budgets : undefined;
}

/** A timed row's rounds with both sides measured in one process, as allocate.ts reads them. */
export function rowRounds(records: readonly RoundRecord[], file: string, label: string, defaultSideNs: number): RowRound[] {
  const rounds: RowRound[] = [];
  for (const record of records) {
    if (record.file !== file || record.job !== "duet" || !record.rows) continue;
    const base = record.rows.find((r) => r.label === label && r.side === "base");
    const head = record.rows.find((r) => r.label === label && r.side === "head");
    if (!base?.value || !head?.value || !base.halves || !head.halves) continue;
    rounds.push({
      d: Math.log(head.value / base.value),
      within: splitHalfVariance(base.halves, head.halves),
      sideNs: record.budgets?.[label] ?? defaultSideNs,
      warmupNs: ((base.warmupNs ?? 0) + (head.warmupNs ?? 0)) / 2,
    });
  }
  return rounds;
}

/** Whether a plan counts instead of timing (`--measure instructions|cycles`). */
function counted(plan: RunStore["plan"]): boolean {
  return countMeasure(plan.measure) !== undefined;
}

/**
 * How many times a timed estimate a counted process takes before any was measured: node under
 * callgrind, instrumentation off but for the counted windows (docs/counting.md, "Cost").
 */
const COUNTED_SLOWDOWN = 25;

/**
 * A counted process's expected wall time: what this file's counted processes took per row so
 * far, times the rows it measures; before any, the timed estimate times COUNTED_SLOWDOWN.
 */
function countedEstimateMs(ctx: RoundsContext, file: MeasuredFile, job: FileJob, rows: number, timedMs: number): number {
  const past = ctx.store.records.filter((r) => r.file === file.plan.file && r.job === job.name && r.rows && r.rows.length > 0);
  if (past.length === 0) return timedMs * COUNTED_SLOWDOWN;
  const perRow = past.reduce((sum, r) => sum + r.wallMs / new Set(r.rows!.map((row) => row.label)).size, 0) / past.length;
  return perRow * Math.max(1, rows);
}

/** Expected wall time of one process: its file's load, then each timed row it measures at its budget (ms). */
function estimateMs(ctx: RoundsContext, file: MeasuredFile, job: FileJob, rows: RowSelection): number {
  const { budget } = ctx.store.plan;
  const registered = file.outcome.inventories[job.sides[0]!]?.benchmarks ?? [];
  const timed = job.parts === "extras" ? [] : registered.filter((label) => !rows.labels || rows.labels.includes(label));
  if (counted(ctx.store.plan)) {
    const timedMs = processMs(
      file.outcome.loadMs ?? 0,
      timed.map(() => budget),
      job.sides.length,
    );
    return countedEstimateMs(ctx, file, job, timed.length, timedMs);
  }
  return processMs(
    file.outcome.loadMs ?? 0,
    timed.map((label) => rows.rowBudgets?.[label] ?? budget),
    job.sides.length,
  );
}

/** Expected wall time of a cycle's processes (s), scaled by how the last cycle's estimates compared with what they took. */
function cycleSeconds(ctx: RoundsContext, round: number, work: Work[]): number {
  const { plan } = ctx.store;
  return (
    (estimateScale(ctx, round) *
      parallelMs(
        work.map((w) => w.estimateMs),
        plan.jobs ?? 1,
      )) /
    1000
  );
}

/** How the last cycle's processes took against their estimates (from 0.5 to 3; 1 before any). */
function estimateScale(ctx: RoundsContext, round: number): number {
  const last = ctx.store.records.filter((r) => r.round >= round - CYCLE && r.round < round && r.estimateMs);
  const actual = last.reduce((sum, r) => sum + r.wallMs, 0);
  const expected = last.reduce((sum, r) => sum + r.estimateMs!, 0);
  return expected > 0 ? Math.min(3, Math.max(0.5, actual / expected)) : 1;
}

/**
 * A cycle whose rows' sampling times were chosen for width per second, shortened all alike (down
 * to the shortest a row may have) when the cycle would otherwise end past `--max-time`: the
 * budget's last cycles give every open row a little more, rather than none of them anything.
 * Unchanged before the minimum rounds (fitted once, fitBudget) and without a time budget.
 */
function fitCycle(ctx: RoundsContext, round: number, work: Work[], elapsedS: number): Work[] {
  const { plan } = ctx.store;
  const { maxTimeS, minRounds } = plan.sampling;
  if (maxTimeS === undefined || work.length === 0) return work;
  // Within the minimum, the cycles still owed share what is left: fitted before round 1 from
  // the first process's load time, the minimum ran 1.6 times --max-time on a 54-row suite once
  // the machine got busier.
  const owed = round < minRounds ? Math.ceil((minRounds - round) / CYCLE) : 1;
  if (counted(plan)) {
    // Counted windows are sized in events, so nothing shortens; once a cycle has measured what a
    // counted process costs here, a minimum that cannot fit is said (docs/counting.md, "Cost").
    if (round >= CYCLE && round < minRounds) warnOverBudget(ctx, round, elapsedS + owed * cycleSeconds(ctx, round, work));
    return work;
  }
  if (plan.budgetFixed) return work;
  const remainingS = (TIME_SLACK * maxTimeS - elapsedS) / owed;
  const rescaled = (w: Work, factor: number): Work => {
    if (w.job.parts === "extras") return w;
    const labels = w.rows.labels ?? [];
    const rowBudgets = Object.fromEntries(
      labels.map((label) => {
        const sideNs = w.rows.rowBudgets?.[label]?.sideNs ?? plan.budget.sideNs;
        return [label, budgetAt(Math.max(SIDE_NS_LIMITS.min, sideNs * factor), plan.budget, plan.budget.warmupNs)];
      }),
    );
    const rows: RowSelection = { ...w.rows, rowBudgets };
    return { ...w, rows, estimateMs: estimateMs(ctx, w.file, w.job, rows) };
  };
  const scaled = (factor: number): Work[] =>
    work.map((w) => (w.members ? sharedWork(w.members.map((m) => rescaled(m, factor))) : rescaled(w, factor)));
  if (cycleSeconds(ctx, round, work) <= remainingS) return work;
  let [low, high] = [0, 1];
  for (let i = 0; i < 12; i++) {
    const mid = (low + high) / 2;
    if (cycleSeconds(ctx, round, scaled(mid)) <= remainingS) low = mid;
    else high = mid;
  }
  const fitted = scaled(low);
  warnOverBudget(ctx, round, elapsedS + owed * cycleSeconds(ctx, round, fitted));
  return fitted;
}

/** Says once that the minimum rounds need `neededS` seconds, when that is past `--max-time`. */
function warnOverBudget(ctx: RoundsContext, round: number, neededS: number): void {
  const { maxTimeS, minRounds } = ctx.store.plan.sampling;
  if (maxTimeS === undefined || round >= minRounds || neededS <= TIME_SLACK * maxTimeS || ctx.warnedOverBudget) return;
  ctx.warnedOverBudget = true;
  ctx.onEvent({ type: "over-budget", minRounds, minimumS: neededS, maxTimeS });
}

/** Runs a cycle's processes, up to `--jobs` at once; reports each round as its last process ends. */
async function runCycle(ctx: RoundsContext, round: number, work: Work[], elapsedMs: () => number): Promise<void> {
  const { store, run, done, onEvent } = ctx;
  const { plan } = store;
  const now = clockOf(ctx);
  const pending = new Map<number, number>();
  for (let r = round; r < round + CYCLE; r++) pending.set(r, work.filter((w) => w.round === r).length);
  let reported = round;
  const report = () => {
    while (reported < round + CYCLE && pending.get(reported) === 0) {
      reported++;
      const widest = widestInterval(ctx, reported);
      const open = widest ? openIntervals(ctx, reported) : undefined;
      onEvent({
        type: "round",
        round: reported,
        elapsedS: (now() - ctx.started) / 1000,
        ...(plan.sampling.minRounds === plan.sampling.maxRounds ? { rounds: plan.sampling.maxRounds } : {}),
        ...(widest ? { widest } : {}),
        ...(open ? { open } : {}),
      });
    }
  };
  report();
  // A file whose process timed out runs no more processes: its rows failed with the timeout,
  // and waiting out --timeout again in every round would only delay the one clear line.
  const timedOut = new Set<string>();
  const keep = (w: Work, result: BenchOutcome) => {
    if (result.timedOut) timedOut.add(w.file.plan.file);
    const record: RoundRecord = {
      round: w.round,
      file: w.file.plan.file,
      job: w.job.name,
      sides: w.job.sides,
      wallMs: result.wallMs,
      rows: result.report.rows,
      phaseMs: Math.round(elapsedMs()),
      estimateMs: Math.round(w.estimateMs),
      ...(w.rows.rowBudgets ? { budgets: sideTimes(w.rows.rowBudgets) } : {}),
    };
    store.append(
      result.error === undefined
        ? record
        : { ...record, error: result.error, expected: expectedLabels(w.file.outcome, w.job, w.rows.labels) },
    );
    done.add(recordKey(w.round, w.file.plan.file, w.job.name));
  };
  const alone = async (w: Work) => {
    if (w.round === 0) onEvent({ type: "working", what: `round 1: warming up and measuring ${w.file.plan.file}` });
    keep(w, await run(w.file.plan.file, w.job.kind, w.job.sides, w.job.parts, w.rows));
  };
  // A shared process's files are kept one by one, as if each had had a process; the files a
  // crash or a timeout kept it from reaching run in processes of their own, in the same round.
  const shared = async (members: Work[]) => {
    if (members[0]!.round === 0) onEvent({ type: "working", what: `round 1: warming up and measuring ${members.length} bench files` });
    const files = members.map((m) => m.file.plan.file);
    const outcome = await ctx.runShared!(
      members.map((m) => ({ file: m.file.plan.file, rows: m.rows })),
      members[0]!.job.sides,
    );
    const { parts, notRun } = splitShared(files, outcome);
    for (const part of parts) keep(members[files.indexOf(part.file)]!, part.outcome);
    for (const file of notRun) await alone(members[files.indexOf(file)]!);
  };
  let next = 0;
  const worker = async () => {
    while (next < work.length) {
      const w = work[next++]!;
      const members = (w.members ?? [w]).filter((m) => !timedOut.has(m.file.plan.file));
      if (members.length === 1 && !w.members) await alone(w);
      else if (members.length > 0) await shared(members);
      pending.set(w.round, pending.get(w.round)! - 1);
      report();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.jobs ?? 1, work.length)) }, worker));
}

/** Each row's sampling time per side, as recorded with a process (ns). */
function sideTimes(budgets: Record<string, SamplingBudget>): Record<string, number> {
  return Object.fromEntries(Object.entries(budgets).map(([label, b]) => [label, b.sideNs]));
}

/** For a run that samples until narrow, after whole cycles: the widest interval so far and the target. */
function widestInterval(ctx: RoundsContext, rounds: number): WidestInterval | undefined {
  const rule = ctx.store.plan.sampling;
  if (rule.targetHalfWidth === undefined || rounds < rule.minRounds || rounds % CYCLE !== 0) return undefined;
  const widths = intervalRows(ctx.analyze(rounds)).map(halfWidth);
  if (widths.length === 0) return undefined;
  return { halfWidth: Math.max(...widths), target: rule.targetHalfWidth };
}

/** Rows with an interval, and those of them still measured after `rounds` rounds. */
function openIntervals(ctx: RoundsContext, rounds: number): { rows: number; of: number } {
  const rows = intervalRows(ctx.analyze(rounds));
  return { rows: rows.filter((row) => rowOpen(ctx.store.plan.sampling, rounds, row)).length, of: rows.length };
}
