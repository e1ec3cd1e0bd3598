/**
 * The run folder (compare/run/): what one compare keeps on disk, so that `--resume` can go on
 * where it stopped. This file is the folder's entry: the plan and rounds of a run (plan.json,
 * rounds.ndjson), created, reopened and appended, with the errors and writes the rest of src/
 * needs. Beside it, one process per folder (lock.ts, owner.ts), writes that say a full disk in
 * one line (run-write.ts), the working tree a run began from (tree-state.ts), and the run's temp
 * folder and what dead runs left (reclaim.ts). Nothing here measures, bundles or decides a row.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "pathe";
import { lockRunFolder, RunFolderError } from "./lock.ts";
import { inRunFolder, setResumeCommand } from "./run-write.ts";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import type { LoadAvg, RevisionInfo, Runtime, Side } from "../../model/result.ts";
import type { ChildRow, CountBudget, SamplingBudget } from "../../runner/protocol.ts";
import type { CounterInfo, Measure } from "../../runner/valgrind.ts";
import type { TreeState } from "./tree-state.ts";

export { RunFolderError } from "./lock.ts";
export { inRunFolder, resumeHint } from "./run-write.ts";
export { treeChange, treeState } from "./tree-state.ts";

/** When a run stops adding rounds (see compare/rounds/sampling.ts). */
export interface SamplingRule {
  /** Rounds the user asked for (`--rounds`), before rounding up to whole cycles. */
  requested?: number;
  /** Rounds run before any stop is considered. */
  minRounds: number;
  /** Never more rounds than this. */
  maxRounds: number;
  /** Stop once every timed row's 95% interval is at most this wide either side (0.01 = ±1%). */
  targetHalfWidth?: number;
  /** Stop once the bench processes have run this long (seconds), whatever the width. */
  maxTimeS?: number;
}

/** How the bench processes of a run are set up and measured; fixed for the life of a run. */
export interface RunSettings {
  filter?: string;
  runtime: Runtime;
  /** Why the run took `runtime` without `--runtime` (the project's own tool's), for the header. */
  runtimeFrom?: string;
  build?: string;
  install: boolean;
  timeoutS: number;
  holm: boolean;
  /** `--min-effect` as a fraction: intervals within ± it read `same`; absent in plans from before it (the default then). */
  minEffect?: number;
  /** Every file's benchmarks one side per process. */
  isolate: boolean;
  /** Measure files whose code is the same on both sides too (`--all`). */
  all?: boolean;
  /** This run measures the I-th of N shares of the bench files (`--shard I/N`). */
  shard?: { index: number; count: number };
  sampling: SamplingRule;
  /** Each row's sampling per side and process, unless allocate.ts gives a row its own. */
  budget: SamplingBudget;
  /** `--time` was given: the budget is the user's, never shortened to fit `--max-time`. */
  budgetFixed?: boolean;
  /** The budget was fitted to `--max-time` before the first round (rounds.ts fitBudget); a resumed run keeps it. */
  budgetFitted?: boolean;
  /** Bench processes run at once (`--jobs`); 1 in plans from before it. */
  jobs?: number;
  /** Bench files one process measures one after another (`--files-per-process`); 1 in plans from before it. */
  filesPerProcess?: number;
  /** What the rows measure (`--measure`): time when absent. */
  measure?: Measure;
  /** A counting run (`--measure instructions|cycles`): how each bench process counts a row. */
  countBudget?: CountBudget;
  /** A counting run: the valgrind and runtime flags it counts with, checked when it was planned. */
  counter?: CounterInfo;
}

export const PLAN_VERSION = 2;

/** Everything needed to continue a run: what was asked, what was resolved, the schedule's seed. */
export interface RunPlan extends RunSettings {
  version: typeof PLAN_VERSION;
  repo: string;
  files: string[];
  /** Bench files head (`--head REF`) lacks, taken from the working tree for both sides: uncommitted wrappers. */
  fromWorkingTree?: string[];
  /** Bench files found through package.json's bench scripts (no file had a default name), with the script. */
  fromScripts?: Array<{ script: string; command: string; file: string }>;
  /** Files the user named by plain path (not a glob, not the default search): never skipped as helpers. */
  exact?: string[];
  base: RevisionInfo;
  /**
   * `dirtyWith`: what made the working tree dirty, as stated at the start. `tree`: with no
   * `headRef` (head is the working tree), what it held, which `--resume` checks (tree-state.ts).
   */
  head: RevisionInfo & { headRef?: string; dirtyWith?: string; tree?: TreeState };
  /** Seeds the order of sides in each round (schedule/orderings.ts orderAt). */
  seed: number;
  startedAt: string;
  loadavgStart?: LoadAvg;
  /** `--profile` as the run was started: a resumed run profiles the same rows. */
  profile?: "verdict" | "all";
  /** A `history record`'s run: it is continued, and its entry stored, by `history record --resume`. */
  record?: true;
}

/** One bench process's outcome: appended as a line the moment it finishes. */
export interface RoundRecord {
  round: number;
  file: string;
  /**
   * `duet` (both sides in one process) or the one side the process held; `unchanged`: no
   * process, the file's code is the same on both sides and its rows (`expected`) were not measured;
   * `skipped`: no process, the rows (`expected`) the file declares and skips (`bench.skip`).
   */
  job: "duet" | Side | "unchanged" | "skipped";
  /** Sides in the order the process loaded them. */
  sides: Side[];
  wallMs: number;
  /** What the process measured, also when it then failed. */
  rows?: ChildRow[];
  error?: string;
  /** With `error`: the labels the process was to measure (those it did not are failed). */
  expected?: string[];
  /** Wall time of the run's measuring phase when the process ended (ms), across resumed invocations. */
  phaseMs?: number;
  /** What the process was expected to take (ms; rounds.ts estimateMs), to scale the next estimate. */
  estimateMs?: number;
  /** Rows sampled for a time per side other than the plan's budget (ns), by label. */
  budgets?: Record<string, number>;
}

export interface RunStore {
  dir: string;
  plan: RunPlan;
  records: RoundRecord[];
  append(record: RoundRecord): void;
  savePlan(): void;
}

const PLAN = "plan.json";
const ROUNDS = "rounds.ndjson";

/** The folder of a new run, taken by this process (lock.ts) before anything is written. */
export function createStore(dir: string, plan: RunPlan): RunStore {
  // Private whatever the umask: the plan names the commands a --resume runs (docs/reliability.md).
  inRunFolder(dir, dir, () => mkdirSync(dir, { recursive: true, mode: 0o700 }), false);
  lockRunFolder(dir);
  const store = openStoreAt(dir, plan, []);
  store.savePlan();
  return store;
}

function openStoreAt(dir: string, plan: RunPlan, records: RoundRecord[]): RunStore {
  setResumeCommand(dir, plan.record === true);
  return {
    dir,
    plan,
    records,
    append(record) {
      const file = join(dir, ROUNDS);
      inRunFolder(dir, file, () => appendFileSync(file, `${JSON.stringify(record)}\n`));
      records.push(record);
    },
    savePlan() {
      const file = join(dir, PLAN);
      inRunFolder(dir, file, () => writeFileAtomic(file, `${JSON.stringify(plan, null, 2)}\n`), existsSync(file));
    },
  };
}

/** Reopens a run folder; a torn last line (the run died mid-write) is dropped. */
export function openStore(dir: string): RunStore {
  const planFile = join(dir, PLAN);
  if (!existsSync(planFile)) throw new RunFolderError(`not a compare run folder (no ${PLAN}): ${dir}`, { kind: "usage" });
  let plan: RunPlan;
  try {
    plan = JSON.parse(readFileSync(planFile, "utf8")) as RunPlan;
  } catch {
    throw new RunFolderError(`unreadable ${planFile}`, { kind: "usage" });
  }
  if (plan.version !== PLAN_VERSION) {
    throw new RunFolderError(
      `run folder ${dir} was written by another xbench version (plan version ${plan.version}, expected ${PLAN_VERSION}); start a new run`,
      { kind: "usage" },
    );
  }
  // Before the rounds are read: another xbench appending to them would make this copy stale.
  lockRunFolder(dir, true);
  const records: RoundRecord[] = [];
  const roundsFile = join(dir, ROUNDS);
  if (existsSync(roundsFile)) {
    const text = readFileSync(roundsFile, "utf8");
    let torn = text.length > 0 && !text.endsWith("\n");
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      try {
        records.push(JSON.parse(line) as RoundRecord);
      } catch {
        torn = true; // the run died mid-write: that process is simply run again
      }
    }
    // Rewrite without the torn line so the next append starts on a line of its own.
    if (torn) inRunFolder(dir, roundsFile, () => writeFileAtomic(roundsFile, records.map((r) => `${JSON.stringify(r)}\n`).join("")));
  }
  return openStoreAt(dir, plan, records);
}

export function recordKey(round: number, file: string, job: RoundRecord["job"]): string {
  return `${round}\0${file}\0${job}`;
}
