import { randomInt } from "node:crypto";
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "pathe";
import { EXIT_USAGE, XbenchError, usageError } from "../cli/errors.ts";
import { defaultBase, git, gitCommonDir, isDirty, listFiles, repoRoot, resolveCommit } from "../git/git.ts";
import type { SamplingBudget } from "../runner/protocol.ts";
import { selectBenchFiles, isBenchFile } from "./discover.ts";
import { wholeCycles } from "./sampling.ts";
import { PLAN_VERSION, type RunPlan, type RunSettings, type SamplingRule } from "./store.ts";

/** What the user asked for on the command line, validated. */
export interface CompareRequest extends Omit<RunSettings, "sampling" | "budget"> {
  cwd: string;
  base?: string;
  head?: string;
  /** A fixed number of rounds (`--rounds`). */
  rounds?: number;
  /** Sample until every interval is this narrow, as a fraction (`--target`, in percent on the command line). */
  targetHalfWidth?: number;
  /** Seconds of bench processes after which a run stops adding rounds (`--max-time`). */
  maxTimeS?: number;
  /** Sampling time per benchmark and side in each bench process, in ms (`--time`). */
  sideTimeMs?: number;
}

/** Fewest rounds: a two-sided 95% signed-rank interval exists from 6 pairs on. */
export const MIN_ROUNDS = 6;
/** Most rounds of one run; a run that needs more should narrow its benchmarks instead. */
export const MAX_ROUNDS = 1000;
/** Rows' half-width at which a run stops sampling, by default (±1%). */
export const DEFAULT_TARGET = 0.01;
/** Bench-process time after which a run stops sampling, by default. */
export const DEFAULT_MAX_TIME_S = 120;
/** Sampling time per benchmark and side in each bench process, by default. */
export const DEFAULT_SIDE_TIME_MS = 200;
const CYCLE = 2;

/**
 * `--rounds N` alone runs exactly N rounds; `--target` and `--max-time` sample until every
 * interval is narrow enough or the time is spent, `--rounds` then being the minimum. With
 * none of them: sample until ±1%, for at most two minutes of bench processes.
 */
export function samplingRule(request: Pick<CompareRequest, "rounds" | "targetHalfWidth" | "maxTimeS">): SamplingRule {
  const fixed = request.rounds !== undefined && request.targetHalfWidth === undefined && request.maxTimeS === undefined;
  const minRounds = wholeCycles(request.rounds ?? MIN_ROUNDS, CYCLE);
  const requested = request.rounds !== undefined ? { requested: request.rounds } : {};
  if (fixed) return { ...requested, minRounds, maxRounds: minRounds };
  return {
    ...requested,
    minRounds,
    maxRounds: MAX_ROUNDS,
    targetHalfWidth: request.targetHalfWidth ?? DEFAULT_TARGET,
    maxTimeS: request.maxTimeS ?? DEFAULT_MAX_TIME_S,
  };
}

/** Batches of about 1 ms, a quarter of the sampling time to warm up, at least 8 batches a side. */
export function samplingBudget(sideTimeMs = DEFAULT_SIDE_TIME_MS): SamplingBudget {
  const sideNs = Math.round(sideTimeMs * 1e6);
  return { batchNs: Math.min(1e6, sideNs / 8), sideNs, warmupNs: Math.max(sideNs / 4, 5e6), minBatches: 8 };
}

export function parsePositiveInt(flag: string, value: unknown, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw usageError(`--${flag} must be an integer of at least ${min} (got ${String(value)})`);
  return n;
}

export function parsePositiveNumber(flag: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw usageError(`--${flag} must be a positive number (got ${String(value)})`);
  return n;
}

function filesAtRef(root: string, sha: string): string[] {
  return git(root, ["ls-tree", "-r", "-z", "--name-only", sha]).split("\0").filter(Boolean);
}

/** The repository and both sides' commits: --base (or the merge-base default) and --head (or the working tree). */
export function resolveRevisions(request: Pick<CompareRequest, "cwd" | "base" | "head">) {
  const repo = repoRoot(request.cwd);
  const base = request.base
    ? { ref: request.base, sha: resolveCommit(repo, request.base, "--base") }
    : defaultBase(repo);
  const head = request.head
    ? { ref: request.head, sha: resolveCommit(repo, request.head, "--head"), dirty: false }
    : { ref: "working tree", sha: resolveCommit(repo, "HEAD", "HEAD"), dirty: isDirty(repo) };
  return { repo, base, head };
}

/**
 * Resolves refs, finds the bench files on head and lays out the schedule: all orderings of
 * (base, head), rounds rounded up to whole cycles.
 */
export function makePlan(request: CompareRequest): RunPlan {
  const { repo, base, head } = resolveRevisions(request);
  const candidates = request.head ? filesAtRef(repo, head.sha) : listFiles(repo);
  const files = selectBenchFiles(candidates, request.filter);
  if (files.length === 0) {
    const all = candidates.filter(isBenchFile);
    const where = request.head ? `at ${request.head}` : "in the working tree";
    const message = all.length === 0
      ? `no bench files (*.bench.ts, *.bench.js) ${where}`
      : `no bench file matches "${request.filter}"; bench files ${where}: ${all.join(", ")}`;
    throw new XbenchError(message, { exitCode: EXIT_USAGE });
  }
  return {
    version: PLAN_VERSION,
    repo,
    filter: request.filter,
    files,
    runtime: request.runtime,
    build: request.build,
    install: request.install,
    timeoutS: request.timeoutS,
    holm: request.holm,
    isolate: request.isolate,
    sampling: samplingRule(request),
    budget: samplingBudget(request.sideTimeMs),
    // A new order of sides for every run, kept in the plan so that a resumed run continues it.
    seed: randomInt(2 ** 31),
    base: { ref: base.ref, sha: base.sha, dirty: false },
    head: { ref: head.ref, sha: head.sha, dirty: head.dirty, headRef: request.head },
    startedAt: new Date().toISOString(),
  };
}

/** Run folders live in git's own folder: per repository, never part of the working tree. */
export function newRunDir(repo: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
  const parent = join(gitCommonDir(repo), "xbench", "runs");
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, `${stamp}-`));
}
