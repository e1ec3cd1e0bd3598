/**
 * `xbench bench tracer` end to end: validate every tracer, plan the orderings, measure each
 * backend's launch and access rows for every arm, and summarize. Processes and files live
 * here; the math is in rows.ts and the rendering in report.ts.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { release, tmpdir } from "node:os";
import { join } from "pathe";
import { XbenchError } from "../../errors.ts";
import { withCleanup } from "../../util/scope.ts";
import { currentLoad } from "../../util/load.ts";
import { planRounds } from "../../schedule/orderings.ts";
import { VERSION } from "../../version.ts";
import { TARGET_FOR, WORKLOADS, launchFor, type Arm } from "./arms.ts";
import { runIterations, type Cell, type IterationHooks, type Passes } from "./iterations.ts";
import { parseBatchTime, runTimed } from "./launch.ts";
import { ROW_NAMES, TRACER_SCHEMA_ID, TRACER_SCHEMA_VERSION, type ArmName, type Backend, type TracerResult } from "./model.ts";
import { summarizeRow } from "./rows.ts";
import { validateTracer, type ReadLog } from "./validate.ts";

/** Iterations when none are asked for: 16 cycles of 6 orderings, inside 5 minutes on a loaded 2-core VM. */
export const DEFAULT_ITERATIONS = 96;
/** Iterations run first and thrown away (page cache, CPU frequency, the helpers' first load). */
export const WARMUP_ITERATIONS = 2;
/**
 * Passes over the iteration's ordering per row (each arm's value is the median of its
 * passes). Process creation on this shared 2-core VM has a long right tail (an untracked
 * launch measured 1.7-6.3 ms, a tracked one 15-24 ms, 10th-90th percentile), so one launch
 * per arm and iteration leaves the launch row's ratio to chance: with 5 passes an A/A launch
 * row still missed ±2.5% in 1 of 6 rows (bootstrap SE of its median about 1.8%), with 10 all
 * stayed within. The access row is already a median of 512 batches inside the target.
 */
export const PASSES: Passes = { launch: 10, access: 1 };

export interface TracerSuiteOptions {
  /** This build's helpers: the head tracer and the target programs. */
  headHelperDir: string;
  /** Another build of the helpers for the base arm; without it only head and untracked run. */
  baseHelperDir?: string;
  iterations: number;
  backends: Backend[];
  /** Parses a tracer log into its accesses (validation). */
  readLog: ReadLog;
  warmup?: number;
  /** Passes over the ordering per row and iteration. */
  passes?: Passes;
  /** Seed of the orderings (planRounds's default when absent). */
  seed?: number;
  /** One line per step, for the user's terminal. */
  onStep?: (message: string) => void;
  onIteration?: IterationHooks["onIteration"];
}

/** The arms of a run, head first: head, base (when given) and untracked. */
export function armsOf(options: Pick<TracerSuiteOptions, "headHelperDir" | "baseHelperDir">): Arm[] {
  const arms: Arm[] = [{ name: "head", helperDir: options.headHelperDir }];
  if (options.baseHelperDir) arms.push({ name: "base", helperDir: options.baseHelperDir });
  arms.push({ name: "untracked" });
  return arms;
}

/** Every backend's rows, in report order. */
export function cellsOf(backends: readonly Backend[]): Cell[] {
  return backends.flatMap((backend) => ROW_NAMES.map((row) => ({ backend, row })));
}

function checkTargets(headHelperDir: string, backends: readonly Backend[]): void {
  for (const backend of backends) {
    const target = join(headHelperDir, TARGET_FOR[backend]);
    if (!existsSync(target)) throw new XbenchError(`the benchmark target ${target} is missing; rebuild xbench`);
  }
}

/** Runs the whole suite and returns its result; throws XbenchError when validation fails. */
export async function runTracerSuite(options: TracerSuiteOptions): Promise<TracerResult> {
  const step = options.onStep ?? (() => {});
  const warmup = options.warmup ?? WARMUP_ITERATIONS;
  const passes = options.passes ?? PASSES;
  checkTargets(options.headHelperDir, options.backends);
  const arms = armsOf(options);
  const byName = new Map(arms.map((arm) => [arm.name, arm]));
  // The suite keeps its logs in the temp folder, as calibrated: with them in /dev/shm the
  // seccomp launch row's A/A spread doubled here (quartiles about ±13%, medians to -5%).
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "xbench-tracer-")));
  return withCleanup(
    (signal) => step(`${signal}: stopped`),
    async (cleanup) => {
      cleanup.add(() => rmSync(scratch, { recursive: true, force: true }));
      const paths = (arm: ArmName) => ({
        targetDir: options.headHelperDir,
        missingPath: join(scratch, "missing"),
        logFile: join(scratch, `${arm}.log`),
      });

      for (const arm of arms.filter((a) => a.helperDir)) {
        for (const backend of options.backends) {
          step(`validating the ${arm.name} tracer with the ${backend} backend`);
          const note = validateTracer(arm, backend, paths(arm.name), options.readLog);
          if (note) step(note);
        }
      }

      const plan = planRounds({ arms: arms.map((a) => a.name), rounds: options.iterations, seed: options.seed });
      const orders = plan.orders as ArmName[][];
      step(
        `measuring ${plan.planned} iterations (${plan.planned / plan.cycle} cycle${plan.planned === plan.cycle ? "" : "s"} of ${plan.cycle} orderings) + ${warmup} warm-up`,
      );
      const start = { at: new Date().toISOString(), load: currentLoad() };
      const samples = await runIterations(
        cellsOf(options.backends),
        { orders, passes, warmup },
        (cell, name) => {
          const arm = byName.get(name)!;
          const where = paths(name);
          const launch = launchFor(arm, cell.backend, WORKLOADS[cell.row], where);
          const what = `${cell.backend} ${cell.row}, ${name} arm`;
          if (arm.helperDir) rmSync(where.logFile, { force: true });
          const result = runTimed(launch, what);
          return cell.row === "launch" ? result.wallNs : parseBatchTime(result.stdout, what);
        },
        { onIteration: options.onIteration },
      );
      const end = { at: new Date().toISOString(), load: currentLoad() };

      return {
        schema: TRACER_SCHEMA_ID,
        schemaVersion: TRACER_SCHEMA_VERSION,
        xbenchVersion: VERSION,
        os: process.platform,
        arch: process.arch,
        kernel: release(),
        backends: [...options.backends],
        arms: arms.map((a) => a.name),
        iterations: { requested: options.iterations, planned: plan.planned, cycle: plan.cycle, warmup, seed: plan.seed },
        passes: { ...passes },
        helpers: options.baseHelperDir ? { head: options.headHelperDir, base: options.baseHelperDir } : { head: options.headHelperDir },
        loadavg: { start: start.load, end: end.load },
        startedAt: start.at,
        finishedAt: end.at,
        rows: samples.map(({ cell, samples: values }) => summarizeRow(cell, WORKLOADS[cell.row], values)),
      };
    },
  );
}
