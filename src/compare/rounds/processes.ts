/**
 * Starting the bench processes of a run (runner/spawn.ts): the job each one gets, the
 * runtime's command line, the side's root and environment, and the bench time they add up to.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "pathe";
import { embeddedHelpers } from "../../helpers/cache.ts";
import { COUNTER_HELPER, helperPath, optionalHelper } from "../../helpers/index.ts";
import { SIDES, type Side } from "../../model/side.ts";
import { CHILD_ENV, CHILD_PROTOCOL, CYCLE_WEIGHTS, type CountingJob, type Job, type JobSide } from "../../runner/protocol.ts";
import { codeEnv } from "../../runner/env.ts";
import { runtimeLaunch } from "../../runner/runtimes.ts";
import { retriedOnce } from "../../runner/retry.ts";
import { type BenchOutcome, runBenchProcess } from "../../runner/spawn.ts";
import { callgrindArgv, countMeasure } from "../../runner/valgrind.ts";
import type { RunContext } from "../context.ts";
import { layoutDraw } from "./layout.ts";
import { checkDriverWrite } from "../run/run-write.ts";
import { watched } from "./watch.ts";
import type { RowSelection, RunProcess, RunShared } from "./rounds.ts";
import { sameSources } from "../sides/unchanged.ts";
import { readBundleSources } from "../sides/unchanged-files.ts";

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

/** Starts bench processes for one run, of one file or shared by several: the runtime, each side's root, the environment. */
export function processRunner({ store, sides, bundles, onEvent }: RunContext): { run: RunProcess; runShared: RunShared } {
  const { plan } = store;
  // The code under test gets no secret of xbench's (the PR comment's token among them).
  const env = codeEnv();
  const execStats = execStatsPrefix();
  const codeDiffers = new Map<string, boolean>();
  const differs = (file: string) => {
    if (!codeDiffers.has(file)) {
      const paths = SIDES.map((side) => bundles.sides[side].get(file)?.path);
      const [base, head] = SIDES.map((side, i) => paths[i] && readBundleSources(paths[i], sides[side].root));
      codeDiffers.set(file, !base || !head || !sameSources(base, head));
    }
    return codeDiffers.get(file)!;
  };
  // Processes run several at a time (--jobs): each writes its report to a file of its own,
  // removed once read (what it measured is in rounds.ndjson by then).
  let serial = 0;
  const jobSides = (file: string, order: readonly Side[]): JobSide[] =>
    order.map((side) => ({ side, bundle: bundles.sides[side].get(file)!.path! }));
  const measure = countMeasure(plan.measure);
  const start = (job: Job, order: readonly Side[], timeoutMs: number, file = ""): Promise<BenchOutcome> => {
    // A duet process runs in head's root: both sides' bundles import by absolute path.
    const root = sides[order.length === 1 ? order[0]! : "head"].root;
    const id = serial++;
    const resultFile = join(store.dir, `result-process-${id}.ndjson`);
    // An inventory only lists what loads: it is never counted.
    const counted = measure && job.kind !== "inventory" ? countedProcess(measure, join(store.dir, `counts-process-${id}`)) : undefined;
    const launch = runtimeLaunch(plan.runtime, root, bundles.driver, counted !== undefined);
    const counting: Partial<Job> = counted ? { counting: { ...counted.job, budget: plan.countBudget! } } : {};
    const once = () =>
      runBenchProcess({
        argv: [...(counted?.prefix ?? []), ...launch.argv],
        cwd: root,
        env: {
          ...env,
          ...launch.env,
          XBENCH_SIDE: order.length === 1 ? order[0]! : "both",
          [CHILD_ENV.job]: JSON.stringify({ ...job, ...counting }),
        },
        resultFile,
        timeoutMs,
      }).then((outcome) => {
        // A full run folder is the disk's failure, not the benchmark's: one line, and nothing appended.
        if (outcome.error) checkDriverWrite(store.dir, outcome.error);
        return outcome;
      });
    const files = job.files?.map((f) => f.file) ?? [file];
    return watched(retriedOnce(once), files, timeoutMs, onEvent, counted !== undefined).finally(() => {
      rmSync(resultFile, { force: true });
      if (counted) rmSync(counted.dir, { recursive: true, force: true });
    });
  };
  const run: RunProcess = (file, kind, order, parts, rows: RowSelection = {}) => {
    const layout = layoutDraw(kind, () => differs(file), process.env.XBENCH_LAYOUT);
    const job: Job = {
      protocol: CHILD_PROTOCOL,
      kind,
      sides: jobSides(file, order),
      parts,
      budget: plan.budget,
      execStats,
      layout,
      ...rows,
    };
    return start(job, order, plan.timeoutS * 1000, file);
  };
  // Each file of a shared process may take what a process of its own may (--timeout).
  const runShared: RunShared = (files, order) => {
    const jobFiles = files.map(({ file, rows }) => ({
      file,
      sides: jobSides(file, order),
      layout: layoutDraw("duet", () => differs(file), process.env.XBENCH_LAYOUT),
      ...rows,
    }));
    const job: Job = { protocol: CHILD_PROTOCOL, kind: "duet", sides: [], parts: "timed", budget: plan.budget, files: jobFiles };
    return start(job, order, plan.timeoutS * 1000 * files.length);
  };
  return { run, runShared };
}

/**
 * A counted bench process (docs/counting.md): callgrind's command line before the runtime's,
 * and where its dumps go, a folder of its own removed when the process ends.
 */
function countedProcess(measure: CountingJob["measure"], dir: string): { prefix: string[]; dir: string; job: Omit<CountingJob, "budget"> } {
  mkdirSync(dir, { recursive: true });
  const out = join(dir, "callgrind.out");
  return { prefix: callgrindArgv(measure, out), dir, job: { measure, weights: CYCLE_WEIGHTS, addon: helperPath(COUNTER_HELPER), out } };
}

/** Every bench process counts as bench time: inventories, and those that failed or timed out. */
export function timedRunner(runners: { run: RunProcess; runShared: RunShared }): {
  run: RunProcess;
  runShared: RunShared;
  childMs: () => number;
} {
  let childMs = 0;
  const timed = async (outcome: Promise<BenchOutcome>) => {
    const done = await outcome;
    childMs += done.wallMs;
    return done;
  };
  return {
    run: (...job) => timed(runners.run(...job)),
    runShared: (...job) => timed(runners.runShared(...job)),
    childMs: () => childMs,
  };
}
