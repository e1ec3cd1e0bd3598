/**
 * The compare engine. A run's plan and every outcome of it live in its run folder (store.ts;
 * one process at a time, lock.ts and owner.ts; writes, run-write.ts; what a dead run left,
 * reclaim.ts), appended as they arrive, so an interrupted run can be resumed. The engine takes
 * a run through three stages, each in its own files:
 *
 *   1. preparing the sides (prepare.ts): worktrees and head's bench files (sides.ts),
 *      dependencies linked or installed (install.ts), the build, a bundle per file and side;
 *   2. the inventory (inventory.ts): what each side of each file registers, which files are
 *      skipped, refused, unchanged (unchanged-files.ts, unchanged.ts, package-hash.ts) or
 *      another shard's;
 *   3. the rounds (rounds.ts): bench processes (processes.ts) until the sampling rule says
 *      stop (sampling.ts, allocate.ts);
 *
 * then reads the run folder back into rows (rows.ts) for the result, and with `--profile`
 * runs the profiled processes (profile-run.ts). From the inventory on, functions take one
 * `RunContext` (context.ts). What happens along the way goes to `onEvent`; the engine itself
 * never writes to the terminal. ARCHITECTURE.md has the floor plan of every file.
 */
import { availableParallelism } from "node:os";
import type { CompareResult, Row } from "../model/result.ts";
import { SCHEMA_ID, SCHEMA_VERSION } from "../model/result.ts";
import { analyzeRows } from "../report/row-stats.ts";
import { killRunningChildren } from "../runner/spawn.ts";
import { countedMeasure, measuredUnit } from "../runner/valgrind.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import { LEVEL, SEQUENTIAL_LEVEL } from "../stats/paired.ts";
import { currentLoad } from "../util/load.ts";
import { withCleanup } from "../util/scope.ts";
import { VERSION } from "../version.ts";
import type { RunContext } from "./context.ts";
import { ignoreEvents, type OnCompareEvent } from "./events.ts";
import { inventoryFiles } from "./rounds/inventory.ts";
import { bundleDriver, compareCommits, pairSides, prepareSides } from "./sides/prepare.ts";
import { processRunner, timedRunner } from "./rounds/processes.ts";
import { profileRows, type ProfileRows } from "./profile-run.ts";
import { makeRunTemp } from "./run/reclaim.ts";
import { CYCLE, measureRounds } from "./rounds/rounds.ts";
import { collectRows } from "./rows.ts";
import type { StopReason } from "./rounds/sampling.ts";
import { recordKey, resumeHint, type RunPlan, type RunStore } from "./run/store.ts";

/** Wall time of this invocation and the part of it spent inside bench processes. */
export interface CompareTiming {
  wallMs: number;
  childMs: number;
}

export interface CompareOutcome {
  result: CompareResult;
  timing: CompareTiming;
}

/**
 * Runs (or continues) a compare: prepares the sides, then inventories and rounds of bench
 * processes, each outcome appended to the run folder the moment it arrives, until the sampling
 * rule says stop; with `profile`, profiled processes after the rounds.
 */
export async function runCompare(
  store: RunStore,
  onEvent: OnCompareEvent = ignoreEvents,
  options: { profile?: ProfileRows } = {},
): Promise<CompareOutcome> {
  const started = performance.now();
  const onSignal = (signal: string) => {
    killRunningChildren();
    onEvent({ type: "interrupted", signal, runDir: store.dir, resume: resumeHint(store.dir) });
  };
  return withCleanup(onSignal, async (cleanup) => {
    noteStartLoad(store);
    const { plan } = store;
    const runId = store.dir.split("/").pop()!;
    const tmp = makeRunTemp("xbench-compare-", plan.repo, cleanup, onEvent);
    const [base, head] = await prepareSides({ plan, runId, tmp, cleanup, onEvent }, compareCommits(plan));
    const driver = await bundleDriver(head.tree.root, { runtime: plan.runtime, repo: plan.repo, tag: runId, tmp, cleanup });
    const ctx: RunContext = { store, ...pairSides(base, head, driver), onEvent };
    const outcome = await runRounds(ctx, started);
    if (!options.profile) return outcome;
    // Profiled processes come after the rounds and add to the wall time, never to a row's interval.
    const result = await profileRows(ctx, outcome.result, options.profile);
    const timing = { ...outcome.timing, wallMs: performance.now() - started };
    return { result: { ...result, timing }, timing };
  });
}

/**
 * The load average as the run starts, before worktrees, installs and bench processes add to
 * it; kept in the plan, so a resumed run reports the start of the whole run.
 */
function noteStartLoad(store: RunStore): void {
  if (store.plan.loadavgStart) return;
  store.plan.loadavgStart = currentLoad();
  store.savePlan();
}

/**
 * The inventory and the rounds of a compare whose sides are checked out and bundled (by
 * runCompare, or by bisect, which keeps each commit's bundles across its steps). Continues
 * what the run folder already holds, so a store given more rounds in its plan runs only the
 * new ones. The caller owns the cleanup scope and the signal handling.
 */
export async function runRounds(ctx: RunContext, started = performance.now()): Promise<CompareOutcome> {
  const { store, onEvent } = ctx;
  noteStartLoad(store);
  const run = timedRunner(processRunner(ctx));
  const done = new Set(store.records.map((r) => recordKey(r.round, r.file, r.job)));
  const files = await inventoryFiles(ctx, run.run, done);
  const analyze = rowAnalysis(store);
  const { rounds, stoppedBy, measuredS } = await measureRounds({
    store,
    files,
    run: run.run,
    runShared: run.runShared,
    done,
    analyze,
    onEvent,
    started,
  });
  const loadEnd = currentLoad();
  const result = compareResult(store.plan, { rounds, stoppedBy, measuredS, rows: analyze(rounds), loadEnd });
  const timing = { wallMs: performance.now() - started, childMs: run.childMs() };
  return { result: { ...result, timing }, timing };
}

/**
 * The analyzed rows after a number of rounds. Records only grow between rounds, so the rows of
 * a number of rounds are analyzed once: the progress event, the stop rule and the result all
 * read the same analysis.
 */
export function rowAnalysis(store: RunStore): (rounds: number) => Row[] {
  const { plan } = store;
  const minEffect = plan.minEffect ?? DEFAULT_MIN_EFFECT;
  const level = analysisLevel(plan);
  let analyzed: { rounds: number; rows: Row[] } | undefined;
  return (rounds) => {
    if (analyzed?.rounds !== rounds)
      analyzed = {
        rounds,
        rows: analyzeRows(collectRows(plan.files, rounds, store.records, measuredUnit(plan.measure)), {
          holm: plan.holm,
          minEffect,
          level,
        }),
      };
    return analyzed.rows;
  };
}

/** The level of a run's intervals: SEQUENTIAL_LEVEL where rows stop on their own width, else 95%. */
export function analysisLevel(plan: Pick<RunPlan, "sampling">): number {
  return plan.sampling.targetHalfWidth !== undefined ? SEQUENTIAL_LEVEL : LEVEL;
}

/** The result file's content for a run of `rounds` rounds (timing is the caller's to add). */
function compareResult(
  plan: RunPlan,
  run: { rounds: number; stoppedBy: StopReason | undefined; measuredS: number; rows: Row[]; loadEnd: ReturnType<typeof currentLoad> },
): CompareResult {
  return {
    schema: SCHEMA_ID,
    schemaVersion: SCHEMA_VERSION,
    xbenchVersion: VERSION,
    runtime: plan.runtime,
    rounds: {
      requested: plan.sampling.requested ?? plan.sampling.minRounds,
      planned: run.rounds,
      completed: run.rounds,
      cycle: CYCLE,
      stoppedBy: run.stoppedBy,
      ...(plan.sampling.targetHalfWidth !== undefined ? { targetHalfWidth: plan.sampling.targetHalfWidth } : {}),
      ...(plan.sampling.maxTimeS !== undefined ? { maxTimeS: plan.sampling.maxTimeS } : {}),
      measuredS: Math.round(run.measuredS * 10) / 10,
      jobs: plan.jobs ?? 1,
    },
    base: plan.base,
    head: { ref: plan.head.ref, sha: plan.head.sha, dirty: plan.head.dirty, ...(plan.head.sameCode ? { sameCode: true } : {}) },
    loadavg: { start: plan.loadavgStart ?? run.loadEnd, end: run.loadEnd },
    cores: availableParallelism(),
    startedAt: plan.startedAt,
    finishedAt: new Date().toISOString(),
    holm: plan.holm,
    level: analysisLevel(plan),
    coverage: LEVEL,
    minEffect: plan.minEffect ?? DEFAULT_MIN_EFFECT,
    ...(plan.shard ? { shard: plan.shard } : {}),
    ...(plan.measure && plan.measure !== "time" ? { measure: countedMeasure(plan.measure, plan.counter) } : {}),
    rows: run.rows,
  };
}
