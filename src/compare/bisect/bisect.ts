/**
 * Bisect (compare/bisect/): the commit at which a row changed, found by duet compares. This
 * file is the folder's entry and exports the plan, the run and the result a report renders; the
 * search itself is pure (bisect-search.ts). It never renders nor writes to the terminal.
 *
 * `xbench bisect`: finds the commit on the first-parent path from `--good` to `--bad` at which
 * a row became more than a threshold slower (or, with `--faster`, faster) than at `--good`. Each step is a duet compare of
 * good against one commit, run by the compare engine's rounds (`runRounds`); the search is
 * `bisect-search.ts`. Every commit is checked out (a worktree, never the user's checkout),
 * set up and bundled once by the sides' `prepareSides`, as compare's base and head are (good
 * and bad together, then each commit as it is probed), and good's bundles serve every step.
 * All commits run the bench files of `--bad`, as compare runs head's on both sides, so every
 * step measures the same code.
 *
 * A commit whose build or install fails is skipped, as `git bisect run` skips on exit 125. A
 * commit whose bench code is the same as a commit already judged takes that verdict without a
 * compare: the same code cannot answer differently. A step that measured nothing against
 * `--good`, or at `--bad`, ends the search with the reason: no answer could come of it.
 */
import { readFileSync } from "node:fs";
import { randomInt } from "node:crypto";
import { join } from "pathe";
import { usageError, XbenchError } from "../../errors.ts";
import { commitSubject, firstParentPath, isAncestor, repoRoot, resolveCommit, tryResolveCommit } from "../../git/git.ts";
import type { Gate, GateRow, Row } from "../../model/result.ts";
import { failureLines, nothingCompared } from "../../report/row-stats.ts";
import { decideGate } from "../../report/gate.ts";
import { rowName, shortestUniquePaths } from "../../report/names.ts";
import { killRunningChildren } from "../../runner/spawn.ts";
import { withCleanup, type Cleanup } from "../../util/scope.ts";
import { nextStep, type BisectConclusion, type Probe, type ProbeVerdict } from "./bisect-search.ts";
import type { RunContext } from "../context.ts";
import { runRounds } from "../engine.ts";
import { ignoreEvents, type OnCompareEvent } from "../events.ts";
import { type CompareRequest, makePlan, newRunDir, samplingRule } from "../plan.ts";
import { bisectCommit, bundleDriver, pairSides, type PreparedSide, prepareSides } from "../sides/prepare.ts";
import { makeRunTemp } from "../run/reclaim.ts";
import { createStore, type RunPlan } from "../run/store.ts";
import { readsFilesAtRunTime, sameSources, type BundleSources } from "../sides/unchanged.ts";
import { readBundleSources } from "../sides/unchanged-files.ts";

export type { BisectConclusion, Reverted } from "./bisect-search.ts";

/** What bisect looks for: the commit that made a row slower, or faster. */
export type BisectDirection = "slower" | "faster";

export interface BisectRequest extends Omit<CompareRequest, "base" | "head" | "rounds" | "targetHalfWidth" | "maxTimeS"> {
  good: string;
  /** The end of the range (HEAD when not given). */
  bad?: string;
  /** The threshold as a fraction: a step is bad when an interval lies wholly beyond it, in `direction`. */
  above: number;
  /** `slower` (the default): a step is bad when a row is more than `above` slower; `faster`: more than `above` faster. */
  direction?: BisectDirection;
  /** Rounds of a step's first pass. */
  rounds: number;
  /** Rounds an undecided step may grow to (doubling) before it is skipped. */
  maxRounds: number;
}

export interface Commit {
  sha: string;
  subject: string;
}

/** What bisect will search: the path (index 0 is good, the last is bad) and the compare settings every step shares. */
export interface BisectPlan {
  request: BisectRequest;
  path: Commit[];
  good: Commit & { ref: string };
  bad: Commit & { ref: string };
  compare: RunPlan;
}

/** A step's row: its stable id (as in compare's JSON) and the name a person reads it by (`g.bench.ts › slow`). */
export type StepRow = GateRow & { name: string };

export interface BisectStep {
  /** 1 for the first compare. */
  step: number;
  /** Position on the path (0 is good). */
  index: number;
  commit: Commit;
  verdict: ProbeVerdict;
  rounds: number;
  /** The row that weighed most: the failing row furthest above the line, else the undecided one, else the slowest. */
  row?: StepRow;
  /** Why the step was skipped when rows did not run, or the commit could not be built. */
  notMeasured?: string;
  /** The commit (its index) whose verdict this one took, its bench code being the same: no compare was run. */
  sameCodeAs?: number;
  wallMs: number;
}

export interface BisectResult {
  good: Commit & { ref: string };
  bad: Commit & { ref: string };
  above: number;
  direction: BisectDirection;
  path: Commit[];
  steps: BisectStep[];
  conclusion: BisectConclusion;
  /** Commits in the order they were bundled: each once. */
  bundled: string[];
  /** Where each step's compare run folder is. */
  runDir: string;
  wallMs: number;
}

/** Resolves the refs and the first-parent path, and picks the bench files (at bad). */
export function planBisect(request: BisectRequest): BisectPlan {
  // Named as the user typed them, before compare's planning would call them --base and --head.
  const root = repoRoot(request.cwd);
  resolveCommit(root, request.good, "--good");
  resolveCommit(root, request.bad ?? "HEAD", "--bad");
  const compare = makePlan({ ...request, base: request.good, head: request.bad ?? "HEAD", rounds: request.rounds });
  const { repo } = compare;
  const [good, bad] = [compare.base.sha, compare.head.sha];
  if (good === bad) throw usageError(`--good and --bad are the same commit (${good.slice(0, 12)}): nothing to search`);
  if (!isAncestor(repo, good, bad)) throw usageError(`--good ${request.good} is not an ancestor of --bad ${request.bad ?? "HEAD"}`);
  const path = firstParentPath(repo, good, bad);
  // A good that came in by a merge's second parent is off the line: the walk would pass beside it.
  if (tryResolveCommit(repo, `${path[0]!.sha}^1`) !== good) {
    throw usageError(`--good ${request.good} is not on the first-parent line of --bad ${request.bad ?? "HEAD"} (it came in by a merge)`);
  }
  const goodCommit = { ref: request.good, sha: good, subject: commitSubject(repo, good) };
  return {
    request,
    path: [goodCommit, ...path],
    good: goodCommit,
    bad: { ref: request.bad ?? "HEAD", ...path.at(-1)! },
    compare,
  };
}

/** The row a step is shown by: the failing row furthest past the line, else an undecided one, else the slowest. */
function weightiest(gate: Gate, rows: readonly Row[]): StepRow | undefined {
  const slowest = rows.filter((r) => r.stats).sort((a, b) => b.stats!.delta - a.stats!.delta)[0];
  const weighed =
    [...gate.failing].sort((a, b) => b.ci[0] - a.ci[0])[0] ??
    gate.undecided[0] ??
    (slowest ? { id: slowest.id, delta: slowest.stats!.delta, ci: slowest.stats!.ci } : undefined);
  if (!weighed) return undefined;
  // Named as compare's table names it: the file by the shortest path no other file shares.
  const paths = shortestUniquePaths(rows.map((r) => r.file));
  const row = rows.find((r) => r.id === weighed.id);
  return { ...weighed, name: row ? rowName(paths.get(row.file) ?? row.file, row.label) : weighed.id };
}

/**
 * Rows as the gate reads them: for a search for a speed-up, each interval mirrored, so that
 * "more than PCT faster" is the gate's "above PCT".
 */
function facing(rows: readonly Row[], direction: BisectDirection): Row[] {
  if (direction === "slower") return [...rows];
  return rows.map((row) => (row.stats ? { ...row, stats: { ...row.stats, ...mirror(row.stats) } } : row));
}

function mirror<T extends { delta: number; ci: readonly [number, number] }>(row: T): T {
  return { ...row, delta: -row.delta, ci: [-row.ci[1], -row.ci[0]] as const };
}

/** The bench code of a commit: per bench file, what its bundle was made of; undefined when a bundle failed or may read files at run time. */
function benchCode(prepared: PreparedSide): Map<string, BundleSources> | undefined {
  const code = new Map<string, BundleSources>();
  for (const [file, bundle] of prepared.bundles) {
    if (!bundle.path || readsFilesAtRunTime(readFileSync(bundle.path, "utf8"))) return undefined;
    code.set(file, readBundleSources(bundle.path, prepared.tree.root));
  }
  return code;
}

function sameCode(a: Map<string, BundleSources> | undefined, b: Map<string, BundleSources> | undefined): boolean {
  if (!a || !b || a.size !== b.size) return false;
  return [...a].every(([file, sources]) => b.has(file) && sameSources(sources, b.get(file)!));
}

/** A build or install that failed at a commit (not Ctrl-C, which ends the process): its first line. */
function setUpFailure(error: unknown): string | undefined {
  if (!(error instanceof XbenchError) || error.kind !== "failure") return undefined;
  return error.message.split("\n")[0]!.replace(/:$/, "");
}

/**
 * The plan of one step's compare: bisect's settings, the commit as head (good stays base), and
 * a seed and start of its own.
 */
export function stepPlan(compare: RunPlan, commit: Commit, rounds: number, seed = randomInt(2 ** 31), startedAt = new Date()): RunPlan {
  return {
    ...compare,
    head: { ref: commit.sha.slice(0, 12), sha: commit.sha, dirty: false, headRef: commit.sha },
    sampling: samplingRule({ rounds }),
    seed,
    startedAt: startedAt.toISOString(),
  };
}

/** One step's rounds, the rows facing the search's direction, and the gate on them; an undecided step doubles its rounds up to `maxRounds`. */
async function measureStep(ctx: RunContext, request: BisectRequest): Promise<{ rows: Row[]; gate: Gate }> {
  const { store } = ctx;
  const rule = { on: "above", above: request.above } as const;
  for (;;) {
    const rows = facing((await runRounds(ctx)).result.rows, request.direction ?? "slower");
    const gate = decideGate(rows, rule);
    // Undecided: more rounds, doubling, up to the budget; then the step is skipped.
    if (gate.outcome !== "undecided" || store.plan.sampling.maxRounds >= request.maxRounds) return { rows, gate };
    store.plan.sampling = samplingRule({ rounds: Math.min(request.maxRounds, store.plan.sampling.maxRounds * 2) });
    store.savePlan();
  }
}

/** What a step's rows answer: a verdict and the row shown for it, or why nothing was measured where that leaves no answer. */
export type StepJudgement = { verdict: ProbeVerdict; row?: StepRow; notMeasured?: string } | { measuredNothing: string };

/**
 * A step's verdict from its rows (facing the search's direction) and the gate on them: bad when a
 * row is past the line, good when the gate passes and no row failed, else skip (with the first
 * failure when rows did not run). Nothing measured against --good fails every step alike, and
 * nothing at --bad (`atBad`) leaves no range to search: `measuredNothing`, never an answer.
 */
export function judgeStep(rows: readonly Row[], gate: Gate, direction: BisectDirection, atBad: boolean): StepJudgement {
  const nothing = nothingCompared(rows);
  const failure = failureLines(rows)[0];
  const onGood = rows.some((r) => r.status === "failed" && r.error?.side !== "head");
  if (nothing !== undefined && (onGood || atBad)) return { measuredNothing: failure ?? nothing };
  const broken = failure ?? nothing;
  const verdict: ProbeVerdict = gate.outcome === "fail" ? "bad" : gate.outcome === "pass" && !broken ? "good" : "skip";
  const weighed = weightiest(gate, rows);
  const row = weighed && direction === "faster" ? mirror(weighed) : weighed;
  return { verdict, ...(row ? { row } : {}), ...(broken && verdict === "skip" ? { notMeasured: broken } : {}) };
}

/**
 * Runs the search. `onStep` hears each step as it ends; `onEvent` the compare events of the
 * step under way (rounds, notices). Ctrl-C ends the bench processes and removes every worktree
 * and bundle, as a compare does.
 */
export async function runBisect(
  plan: BisectPlan,
  onStep: (step: BisectStep) => void,
  onEvent: OnCompareEvent = ignoreEvents,
): Promise<BisectResult> {
  const started = performance.now();
  const { compare, request, path } = plan;
  const direction = request.direction ?? "slower";
  const runDir = newRunDir(compare.repo);
  const onSignal = (signal: string) => {
    killRunningChildren();
    onEvent({ type: "interrupted", signal });
  };
  return withCleanup(onSignal, async (cleanup: Cleanup) => {
    const tmp = makeRunTemp("xbench-compare-", compare.repo, cleanup, onEvent);
    const scope = { plan: compare, runId: runDir.split("/").pop()!, tmp, cleanup, onEvent };
    const tag = `bisect-${process.pid}`;
    const driver = await bundleDriver(compare.repo, { runtime: compare.runtime, repo: compare.repo, tag, tmp, cleanup });
    const [good, bad] = await prepareSides(scope, [bisectCommit("base", plan.good.sha), bisectCommit("head", plan.bad.sha)]);
    // Each commit is prepared once (good and bad first; each with bad's bench files), in the order kept as `bundled`.
    const prepared = new Map([good, bad].map((side) => [side.tree.sha, side]));
    // The bench code of each commit judged so far, by index: a commit with the same code takes its verdict.
    const judged = new Map<number, { code: Map<string, BundleSources> | undefined; verdict: ProbeVerdict }>();
    // Without --install every commit links the same node_modules, so the bundles' sources are the whole code.
    const codeOf = (side: PreparedSide) => (compare.install ? undefined : benchCode(side));
    judged.set(0, { code: codeOf(good), verdict: "good" });

    const steps: BisectStep[] = [];
    const history: Probe[] = [];
    const last = path.length - 1;
    for (;;) {
      const next = nextStep(history, last);
      if ("done" in next) {
        const wallMs = performance.now() - started;
        return {
          good: plan.good,
          bad: plan.bad,
          above: request.above,
          direction,
          path,
          steps,
          conclusion: next.done,
          bundled: [...prepared.keys()],
          runDir,
          wallMs,
        };
      }
      const stepStarted = performance.now();
      const commit = path[next.probe]!;
      const settle = (verdict: ProbeVerdict, extra: Partial<BisectStep>) => {
        const step: BisectStep = {
          step: steps.length + 1,
          index: next.probe,
          commit,
          verdict,
          rounds: 0,
          ...extra,
          wallMs: performance.now() - stepStarted,
        };
        steps.push(step);
        history.push({ index: next.probe, verdict });
        onStep(step);
      };
      let candidate = prepared.get(commit.sha);
      try {
        if (!candidate) {
          [candidate] = await prepareSides(scope, [bisectCommit("head", commit.sha)], bad.tree.root);
          prepared.set(commit.sha, candidate);
        }
      } catch (error) {
        const why = setUpFailure(error);
        if (why === undefined) throw error;
        settle("skip", { notMeasured: why });
        continue;
      }
      const code = codeOf(candidate);
      const twin = [...judged].find(([, seen]) => seen.verdict !== "skip" && sameCode(code, seen.code));
      if (twin) {
        const measured = steps.find((s) => s.index === twin[0])?.row;
        settle(twin[1].verdict, { sameCodeAs: twin[0], ...(measured ? { row: measured } : {}) });
        continue;
      }
      const store = createStore(
        join(runDir, `step-${steps.length + 1}-${commit.sha.slice(0, 12)}`),
        stepPlan(compare, commit, request.rounds),
      );
      const { rows, gate } = await measureStep({ store, ...pairSides(good, candidate, driver), onEvent }, request);
      const judgement = judgeStep(rows, gate, direction, next.probe === last);
      if ("measuredNothing" in judgement) {
        throw usageError(
          `bisect measured nothing at commit ${commit.sha.slice(0, 12)} (step ${steps.length + 1}): ${judgement.measuredNothing}`,
        );
      }
      const { verdict, ...shown } = judgement;
      if (verdict !== "skip") judged.set(next.probe, { code, verdict });
      settle(verdict, { rounds: store.plan.sampling.maxRounds, ...shown });
    }
  });
}
