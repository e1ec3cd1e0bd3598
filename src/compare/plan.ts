import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "pathe";
import { EXIT_USAGE, XbenchError, usageError } from "../cli/errors.ts";
import { defaultBase, git, gitCommonDir, isDirty, listFiles, repoRoot, resolveCommit } from "../git/git.ts";
import type { Runtime, Side } from "../report/model.ts";
import { planRounds } from "../schedule/orderings.ts";
import { selectBenchFiles, isBenchFile } from "./discover.ts";
import type { RunPlan, RunSettings } from "./store.ts";

/** What the user asked for on the command line, validated. */
export interface CompareRequest extends RunSettings {
  cwd: string;
  base?: string;
  head?: string;
  rounds: number;
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
  const schedule = planRounds({ arms: ["base", "head"], rounds: request.rounds });
  return {
    version: 1,
    repo,
    filter: request.filter,
    files,
    runtime: request.runtime,
    build: request.build,
    install: request.install,
    timeoutS: request.timeoutS,
    benchTimeMs: request.benchTimeMs,
    holm: request.holm,
    base: { ref: base.ref, sha: base.sha, dirty: false },
    head: { ref: head.ref, sha: head.sha, dirty: head.dirty, headRef: request.head },
    rounds: { requested: request.rounds, planned: schedule.planned, cycle: schedule.cycle },
    orders: schedule.orders as Side[][],
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
