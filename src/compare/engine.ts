import { availableParallelism } from "node:os";
import { join } from "pathe";
import { embeddedHelpers } from "../helpers/cache.ts";
import { optionalHelper } from "../helpers/index.ts";
import type { CompareResult, Row, Side } from "../model/result.ts";
import { SCHEMA_ID, SCHEMA_VERSION } from "../model/result.ts";
import { analyzeRows, halfWidth, intervalRows } from "../report/analyze.ts";
import { bundle } from "../runner/bundle.ts";
import { CHILD_ENV, CHILD_PROTOCOL, type Job, type JobSide } from "../runner/protocol.ts";
import { runtimeArgv } from "../runner/runtimes.ts";
import { killRunningChildren, runBenchProcess, type BenchOutcome } from "../runner/spawn.ts";
import { orderAt } from "../schedule/orderings.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import { currentLoad } from "../util/load.ts";
import { VERSION } from "../version.ts";
import { withCleanup, type Cleanup } from "../util/scope.ts";
import { ignoreEvents, type OnCompareEvent, type WidestInterval } from "./events.ts";
import { jobsFor, planFile, type FileJob, type FilePlan, type InventoryOutcome } from "./jobs.ts";
import { makeRunTemp, ownPath } from "./reclaim.ts";
import { collectRows } from "./rows.ts";
import { stopReason, type StopReason } from "./sampling.ts";
import type { SamplingRule } from "./store.ts";
import {
  buildSide,
  checkoutHead,
  checkoutSide,
  copyBenchFiles,
  installDependencies,
  linkDependencies,
  nearestNodeModules,
  type SideTree,
} from "./sides.ts";
import { recordKey, type RoundRecord, type RunStore } from "./store.ts";

/** Wall time of this invocation and the part of it spent inside bench processes. */
export interface CompareTiming {
  wallMs: number;
  childMs: number;
}

export interface CompareOutcome {
  result: CompareResult;
  timing: CompareTiming;
}

const SIDES = ["base", "head"] as const;
/** Rounds per cycle: both orders of the two sides. */
const CYCLE = 2;

/**
 * How bench processes time a command: the native xbench-exec-stats where this platform has
 * helpers (a launch from a static program of a few pages, so the peak RSS is the command's
 * own); else `xbench exec-stats`, through the binary itself or this script under its runtime.
 */
function execStatsPrefix(): string[] {
  const native = optionalHelper("xbench-exec-stats");
  if (native) return [native];
  if (embeddedHelpers()) return [process.execPath, "exec-stats"];
  return [process.execPath, process.argv[1]!, "exec-stats"];
}

/** Each side's compiled copy of each bench file (or why it does not compile), and the driver. */
interface Bundles {
  driver: string;
  sides: Record<Side, Map<string, { path?: string; error?: string }>>;
}

/** Sets both sides up: worktrees, head's bench files on base, dependencies, builds. */
async function prepareSides(store: RunStore, tmp: string, cleanup: Cleanup, onEvent: OnCompareEvent): Promise<Record<Side, SideTree>> {
  const { plan } = store;
  const base = checkoutSide(plan.repo, tmp, "base", plan.base.sha, cleanup, onEvent);
  const head = checkoutHead(plan.repo, tmp, plan.head.sha, plan.head.headRef, cleanup, onEvent);
  copyBenchFiles(plan, head.root, base.root);
  for (const side of [base, head]) {
    if (side.root === plan.repo) continue;
    if (plan.install) await installDependencies(side);
    else linkDependencies(plan.repo, side, plan.files);
  }
  if (plan.build) for (const side of [base, head]) await buildSide(side, plan.build);
  return { base, head };
}

/**
 * Bundles go inside the node_modules nearest each bench file on its side, so the packages a
 * bench file imports resolve from that side, exactly as the project's own code would. The
 * driver imports only runtime built-ins and the side bundles, so it lives in the temp folder.
 */
async function bundleAll(store: RunStore, sides: Record<Side, SideTree>, tmp: string, cleanup: Cleanup): Promise<Bundles> {
  const runId = store.dir.split("/").pop()!;
  const driver = await bundle({ kind: "driver", outDir: join(tmp, "driver"), runtime: store.plan.runtime });
  const bundles: Bundles = { driver, sides: { base: new Map(), head: new Map() } };
  for (const side of SIDES) {
    const tree = sides[side];
    for (const [i, file] of store.plan.files.entries()) {
      const modules = nearestNodeModules(tree.root, file);
      const outDir = modules ? join(modules, ".cache", "xbench", `${runId}-${side}-${i}`) : join(tmp, "bundles", side, String(i));
      ownPath(tmp, outDir, cleanup);
      try {
        bundles.sides[side].set(file, {
          path: await bundle({ kind: "side", benchFile: join(tree.root, file), outDir, runtime: store.plan.runtime }),
        });
      } catch (error) {
        bundles.sides[side].set(file, { error: (error as Error).message });
      }
    }
  }
  return bundles;
}

/** Starts bench processes for one run: the runtime, each side's root, the environment. */
function processRunner(store: RunStore, sides: Record<Side, SideTree>, bundles: Bundles) {
  const { plan } = store;
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  const execStats = execStatsPrefix();
  return (file: string, kind: Job["kind"], order: readonly Side[], parts: Job["parts"]): Promise<BenchOutcome> => {
    const jobSides: JobSide[] = order.map((side) => ({ side, bundle: bundles.sides[side].get(file)!.path! }));
    const job: Job = { protocol: CHILD_PROTOCOL, kind, sides: jobSides, parts, budget: plan.budget, execStats };
    // A duet process runs in head's root: both sides' bundles import by absolute path.
    const root = sides[order.length === 1 ? order[0]! : "head"].root;
    return runBenchProcess({
      argv: runtimeArgv(plan.runtime, root, bundles.driver),
      cwd: root,
      env: { ...env, XBENCH_SIDE: order.length === 1 ? order[0]! : "both", [CHILD_ENV.job]: JSON.stringify(job) },
      resultFile: join(store.dir, "result-process.ndjson"),
      timeoutMs: plan.timeoutS * 1000,
    });
  };
}

type RunProcess = ReturnType<typeof processRunner>;

/**
 * What each side of a file registers. One process loads both sides; only when that fails are
 * the sides loaded alone, to tell a side that cannot load from two that cannot share.
 */
async function takeInventory(file: string, bundles: Bundles, run: RunProcess): Promise<InventoryOutcome> {
  const outcome: InventoryOutcome = { inventories: {}, errors: {} };
  const loadable = SIDES.filter((side) => {
    const error = bundles.sides[side].get(file)!.error;
    if (error !== undefined) outcome.errors[side] = error;
    return error === undefined;
  });
  if (loadable.length === 2) {
    const both = await run(file, "inventory", loadable, "all");
    if (both.error === undefined) return { ...outcome, inventories: both.report.inventories };
    outcome.duetError = both.error;
  }
  for (const side of loadable) {
    const alone = await run(file, "inventory", [side], "all");
    if (alone.error !== undefined) outcome.errors[side] = alone.error;
    else outcome.inventories[side] = alone.report.inventories[side];
  }
  if (outcome.duetError !== undefined && Object.keys(outcome.errors).length > 0) delete outcome.duetError;
  return outcome;
}

/** The labels a job is to measure, so that a process that fails is charged only for what it missed. */
function expectedLabels(outcome: InventoryOutcome, job: FileJob): string[] {
  return job.sides.flatMap((side) => {
    const inventory = outcome.inventories[side];
    if (!inventory) return [];
    const timed = job.parts === "extras" ? [] : inventory.benchmarks;
    const extras =
      job.parts === "timed" ? [] : [...inventory.metrics.map((m) => m.label), ...inventory.commands.flatMap((c) => [c, `${c} (peak RSS)`])];
    return [...timed, ...extras];
  });
}

/** Records a file that cannot be measured on a side once, so its rows show as failed. */
function recordFailedSides(store: RunStore, plan: FilePlan, outcome: InventoryOutcome, done: Set<string>): void {
  for (const side of SIDES) {
    const error = plan.failed[side];
    if (error === undefined || done.has(recordKey(0, plan.file, side))) continue;
    const labels = [...new Set(SIDES.flatMap((s) => expectedLabels(outcome, { name: s, kind: "solo", sides: [s], parts: "all" })))];
    store.append({ round: 0, file: plan.file, job: side, sides: [side], wallMs: 0, error, expected: labels });
    done.add(recordKey(0, plan.file, side));
  }
}

/** For a run that samples until narrow, after whole cycles: the widest interval so far and the target. */
function widestInterval(rule: SamplingRule, rounds: number, rows: () => Row[]): WidestInterval | undefined {
  if (rule.targetHalfWidth === undefined || rounds < rule.minRounds || rounds % CYCLE !== 0) return undefined;
  const widths = intervalRows(rows()).map(halfWidth);
  if (widths.length === 0) return undefined;
  return { halfWidth: Math.max(...widths), target: rule.targetHalfWidth };
}

/**
 * Runs (or continues) a compare: inventories, then rounds of bench processes, each outcome
 * appended to the run folder the moment it arrives, until the sampling rule says stop. What
 * happens along the way goes to `onEvent`; the engine itself never writes to the terminal.
 */
export async function runCompare(store: RunStore, onEvent: OnCompareEvent = ignoreEvents): Promise<CompareOutcome> {
  const started = performance.now();
  const { plan } = store;
  const onSignal = (signal: string) => {
    killRunningChildren();
    onEvent({ type: "interrupted", signal, runDir: store.dir });
  };
  let childMs = 0;
  const minEffect = plan.minEffect ?? DEFAULT_MIN_EFFECT;
  return withCleanup(onSignal, async (cleanup) => {
    const tmp = makeRunTemp("xbench-compare-", plan.repo, cleanup, onEvent);
    const sides = await prepareSides(store, tmp, cleanup, onEvent);
    const bundles = await bundleAll(store, sides, tmp, cleanup);
    const run = processRunner(store, sides, bundles);
    const done = new Set(store.records.map((r) => recordKey(r.round, r.file, r.job)));
    const files: Array<{ plan: FilePlan; outcome: InventoryOutcome }> = [];
    for (const file of plan.files) {
      const outcome = await takeInventory(file, bundles, run);
      const filePlan = planFile(file, outcome, { isolate: plan.isolate });
      recordFailedSides(store, filePlan, outcome, done);
      onEvent({ type: "inventoried", file, loaded: SIDES.filter((side) => outcome.inventories[side] !== undefined) });
      if (filePlan.isolatedBecause && !plan.isolate) onEvent({ type: "isolated", file, because: filePlan.isolatedBecause });
      files.push({ plan: filePlan, outcome });
    }
    const benchMs = () => store.records.reduce((sum, r) => sum + r.wallMs, 0);
    // Records only grow between rounds, so the rows of a number of rounds are analyzed once:
    // the progress event, the stop rule and the result all read the same analysis.
    let analyzed: { rounds: number; rows: Row[] } | undefined;
    const analyze = (rounds: number) => {
      if (analyzed?.rounds !== rounds)
        analyzed = { rounds, rows: analyzeRows(collectRows(plan.files, rounds, store.records), { holm: plan.holm, minEffect }) };
      return analyzed.rows;
    };
    let stoppedBy: StopReason | undefined;
    let round = 0;
    for (; ; round++) {
      stoppedBy = stopReason(plan.sampling, { rounds: round, cycle: CYCLE, benchSeconds: benchMs() / 1000, rows: () => analyze(round) });
      if (stoppedBy) {
        onEvent({ type: "stopped", by: stoppedBy, rounds: round });
        break;
      }
      if (!plan.loadavgStart) {
        plan.loadavgStart = currentLoad();
        store.savePlan();
      }
      const order = orderAt(SIDES, plan.seed, round) as Side[];
      for (const { plan: filePlan, outcome } of files) {
        for (const job of jobsFor(filePlan, order)) {
          if (done.has(recordKey(round, filePlan.file, job.name))) continue;
          const result = await run(filePlan.file, job.kind, job.sides, job.parts);
          childMs += result.wallMs;
          const record: RoundRecord = {
            round,
            file: filePlan.file,
            job: job.name,
            sides: job.sides,
            wallMs: result.wallMs,
            rows: result.report.rows,
          };
          store.append(result.error === undefined ? record : { ...record, error: result.error, expected: expectedLabels(outcome, job) });
          done.add(recordKey(round, filePlan.file, job.name));
        }
      }
      const widest = widestInterval(plan.sampling, round + 1, () => analyze(round + 1));
      onEvent({
        type: "round",
        round: round + 1,
        elapsedS: (performance.now() - started) / 1000,
        ...(plan.sampling.minRounds === plan.sampling.maxRounds ? { rounds: plan.sampling.maxRounds } : {}),
        ...(widest ? { widest } : {}),
      });
    }
    const loadEnd = currentLoad();
    const rows = analyze(round);
    const result: CompareResult = {
      schema: SCHEMA_ID,
      schemaVersion: SCHEMA_VERSION,
      xbenchVersion: VERSION,
      runtime: plan.runtime,
      rounds: {
        requested: plan.sampling.requested ?? plan.sampling.minRounds,
        planned: round,
        completed: round,
        cycle: CYCLE,
        stoppedBy,
        ...(plan.sampling.targetHalfWidth !== undefined ? { targetHalfWidth: plan.sampling.targetHalfWidth } : {}),
        ...(plan.sampling.maxTimeS !== undefined ? { maxTimeS: plan.sampling.maxTimeS } : {}),
      },
      base: plan.base,
      head: { ref: plan.head.ref, sha: plan.head.sha, dirty: plan.head.dirty },
      loadavg: { start: plan.loadavgStart ?? loadEnd, end: loadEnd },
      cores: availableParallelism(),
      startedAt: plan.startedAt,
      finishedAt: new Date().toISOString(),
      holm: plan.holm,
      minEffect,
      rows,
    };
    const timing = { wallMs: performance.now() - started, childMs };
    return { result: { ...result, timing }, timing };
  });
}
