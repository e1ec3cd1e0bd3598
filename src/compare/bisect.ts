/**
 * `xbench bisect`: finds the commit on the first-parent path from `--good` to `--bad` at which
 * a row became more than a threshold slower than at `--good`. Each step is a duet compare of
 * good against one commit, run by the compare engine's rounds (`runRounds`); the search is
 * `bisect-search.ts`. Every commit is checked out (a worktree, never the user's checkout),
 * set up and bundled once, and good's bundles serve every step. All commits run the bench
 * files of `--bad`, as compare runs head's on both sides, so every step measures the same code.
 */
import { randomInt } from "node:crypto";
import { join } from "pathe";
import { usageError } from "../errors.ts";
import { commitSubject, firstParentPath, isAncestor, repoRoot, resolveCommit, tryResolveCommit } from "../git/git.ts";
import type { Gate, GateRow, Row, Side } from "../model/result.ts";
import { failureLines, nothingCompared } from "../report/analyze.ts";
import { decideGate } from "../report/gate.ts";
import { killRunningChildren } from "../runner/spawn.ts";
import { withCleanup, type Cleanup } from "../util/scope.ts";
import { nextStep, type BisectConclusion, type Probe, type ProbeVerdict } from "./bisect-search.ts";
import { bundleDriver, bundleSide, runRounds, setUpSide, type SideBundles } from "./engine.ts";
import { ignoreEvents, type OnCompareEvent } from "./events.ts";
import { type CompareRequest, makePlan, newRunDir, samplingRule } from "./plan.ts";
import { makeRunTemp } from "./reclaim.ts";
import { checkoutSide, copyBenchFiles, type SideTree } from "./sides.ts";
import { createStore, type RunPlan } from "./store.ts";

export interface BisectRequest extends Omit<CompareRequest, "base" | "head" | "rounds" | "targetHalfWidth" | "maxTimeS"> {
  good: string;
  /** The end of the range (HEAD when not given). */
  bad?: string;
  /** The threshold as a fraction: a step is bad when an interval lies wholly above it. */
  above: number;
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

export interface BisectStep {
  /** 1 for the first compare. */
  step: number;
  /** Position on the path (0 is good). */
  index: number;
  commit: Commit;
  verdict: ProbeVerdict;
  rounds: number;
  /** The row that weighed most: the failing row furthest above the line, else the undecided one, else the slowest. */
  row?: GateRow;
  /** Why the step was skipped when rows did not run. */
  notMeasured?: string;
  wallMs: number;
}

export interface BisectResult {
  good: Commit & { ref: string };
  bad: Commit & { ref: string };
  above: number;
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
function weightiest(gate: Gate, rows: readonly Row[]): GateRow | undefined {
  const byLower = [...gate.failing].sort((a, b) => b.ci[0] - a.ci[0]);
  if (byLower[0]) return byLower[0];
  if (gate.undecided[0]) return gate.undecided[0];
  const slowest = rows.filter((r) => r.stats).sort((a, b) => b.stats!.delta - a.stats!.delta)[0];
  return slowest ? { id: slowest.id, delta: slowest.stats!.delta, ci: slowest.stats!.ci } : undefined;
}

interface Prepared {
  tree: SideTree;
  bundles: SideBundles;
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
  const runDir = newRunDir(compare.repo);
  const runId = runDir.split("/").pop()!;
  const onSignal = (signal: string) => {
    killRunningChildren();
    onEvent({ type: "interrupted", signal });
  };
  return withCleanup(onSignal, async (cleanup: Cleanup) => {
    const tmp = makeRunTemp("xbench-compare-", compare.repo, cleanup, onEvent);
    const driver = await bundleDriver(tmp, compare.runtime, compare.repo, `bisect-${process.pid}`, cleanup);
    const prepared = new Map<string, Prepared>();
    const bundled: string[] = [];
    let benchSource: string | undefined;
    const prepare = async (sha: string, side: Side): Promise<Prepared> => {
      const hit = prepared.get(sha);
      if (hit) return hit;
      const tree = checkoutSide(compare.repo, tmp, side, sha, cleanup, onEvent, `commit-${sha.slice(0, 12)}`);
      benchSource ??= tree.root; // bad is prepared first: its bench files go to every commit
      copyBenchFiles(compare, benchSource, tree.root);
      await setUpSide(compare, tree, onEvent);
      const entry = { tree, bundles: await bundleSide(tree, compare.files, compare.runtime, `${runId}-${sha.slice(0, 12)}`, tmp, cleanup) };
      prepared.set(sha, entry);
      bundled.push(sha);
      return entry;
    };
    await prepare(plan.bad.sha, "head");
    const good = await prepare(plan.good.sha, "base");

    const steps: BisectStep[] = [];
    const history: Probe[] = [];
    const last = path.length - 1;
    for (;;) {
      const next = nextStep(history, last);
      if ("done" in next) {
        const wallMs = performance.now() - started;
        return { good: plan.good, bad: plan.bad, above: request.above, path, steps, conclusion: next.done, bundled, runDir, wallMs };
      }
      const stepStarted = performance.now();
      const commit = path[next.probe]!;
      const candidate = await prepare(commit.sha, "head");
      const stepPlan: RunPlan = {
        ...compare,
        head: { ref: commit.sha.slice(0, 12), sha: commit.sha, dirty: false, headRef: commit.sha },
        sampling: samplingRule({ rounds: request.rounds }),
        seed: randomInt(2 ** 31),
        startedAt: new Date().toISOString(),
      };
      const store = createStore(join(runDir, `step-${steps.length + 1}-${commit.sha.slice(0, 12)}`), stepPlan);
      const sides = { base: good.tree, head: candidate.tree };
      const bundles = { driver, sides: { base: good.bundles, head: candidate.bundles } };
      let rows = (await runRounds(store, sides, bundles, onEvent)).result.rows;
      let gate = decideGate(rows, { on: "above", above: request.above });
      // Undecided: more rounds, doubling, up to the budget; then the step is skipped.
      while (gate.outcome === "undecided" && store.plan.sampling.maxRounds < request.maxRounds) {
        store.plan.sampling = samplingRule({ rounds: Math.min(request.maxRounds, store.plan.sampling.maxRounds * 2) });
        store.savePlan();
        rows = (await runRounds(store, sides, bundles, onEvent)).result.rows;
        gate = decideGate(rows, { on: "above", above: request.above });
      }
      const broken = failureLines(rows)[0] ?? nothingCompared(rows);
      const verdict: ProbeVerdict = gate.outcome === "fail" ? "bad" : gate.outcome === "pass" && !broken ? "good" : "skip";
      const row = weightiest(gate, rows);
      const step: BisectStep = {
        step: steps.length + 1,
        index: next.probe,
        commit,
        verdict,
        rounds: store.plan.sampling.maxRounds,
        ...(row ? { row } : {}),
        ...(broken && verdict === "skip" ? { notMeasured: broken } : {}),
        wallMs: performance.now() - stepStarted,
      };
      steps.push(step);
      history.push({ index: next.probe, verdict });
      onStep(step);
    }
  });
}
