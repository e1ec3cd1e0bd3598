import { randomInt } from "node:crypto";
import { availableParallelism } from "node:os";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "pathe";
import { XbenchError } from "../errors.ts";
import {
  defaultBase,
  dirtyPaths,
  fileAtCommit,
  git,
  gitCommonDir,
  listFiles,
  repoRoot,
  resolveCommit,
  untrackedFiles,
  type DirtyPaths,
} from "../git/git.ts";
import type { CountBudget, SamplingBudget } from "../runner/protocol.ts";
import { countingFlags } from "../runner/runtimes.ts";
import { countMeasure } from "../runner/valgrind.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import {
  BENCH_FILE_NAMES,
  filterFiles,
  isBenchFile,
  isGlob,
  NAMING_HINT,
  repoRelativePattern,
  selectBenchFiles,
  selectNamedFiles,
} from "./discover.ts";
import { chooseRuntime } from "./sides/runtime-choice.ts";
import { wholeCycles } from "./rounds/sampling.ts";
import { benchScriptRuns, type ScriptRun } from "./sides/scripts.ts";
import { wantedManager } from "./sides/install.ts";
import { managerFacts } from "./sides/sides.ts";
import { gitIgnored, unbuiltMessage, unbuiltPackages } from "./sides/workspace.ts";
import { didYouMean } from "../util/suggest.ts";
import { PLAN_VERSION, type RunPlan, type RunSettings, type SamplingRule } from "./run/store.ts";
import { DEFAULT_FILES_PER_PROCESS } from "./rounds/shared.ts";
import { isFile } from "../util/is-file.ts";

/** What the user asked for on the command line, validated. */
export interface CompareRequest
  extends Omit<RunSettings, "sampling" | "budget" | "budgetFixed" | "budgetFitted" | "runtime" | "runtimeFrom" | "counter"> {
  /** `--runtime`; without it, the runtime the project's own tool uses (runtime-choice.ts). */
  runtime?: RunSettings["runtime"];
  /** A counting run: the valgrind checked before any work (`valgrind-3.19.0`). */
  valgrind?: string;
  cwd: string;
  base?: string;
  head?: string;
  /** `--bench` patterns, as typed (relative to cwd); when empty, package.json's list, else `*.bench.*`. */
  bench?: string[];
  /** A fixed number of rounds (`--rounds`). */
  rounds?: number;
  /** Sample until every interval is this narrow, as a fraction (`--target`, in percent on the command line). */
  targetHalfWidth?: number;
  /** Seconds of measuring, wall time, after which a run stops adding rounds (`--max-time`). */
  maxTimeS?: number;
  /** Sampling time per benchmark and side in each bench process, in ms (`--time`). */
  sideTimeMs?: number;
}

/** The most bench processes a run starts at once by default (docs/compare.md, "Several processes at once"). */
export const MAX_DEFAULT_JOBS = 2;

/** Bench processes at once by default: the cores this process may use, at most MAX_DEFAULT_JOBS. */
export function defaultJobs(): number {
  return Math.max(1, Math.min(availableParallelism(), MAX_DEFAULT_JOBS));
}

/** Fewest rounds: a two-sided 95% signed-rank interval exists from 6 pairs on. */
export const MIN_ROUNDS = 6;
/** Most rounds of one run; a run that needs more should narrow its benchmarks instead. */
export const MAX_ROUNDS = 1000;
/** Rows' half-width at which a run stops sampling, by default (±1%). */
export const DEFAULT_TARGET = 0.01;
/** Seconds of the measuring phase, wall time, after which a run stops adding rounds, by default (`--max-time`). */
export const DEFAULT_MAX_TIME_S = 120;
/** Sampling time per benchmark and side in each bench process, by default. */
export const DEFAULT_SIDE_TIME_MS = 200;
const CYCLE = 2;

/**
 * The defaults of a counting run (`--measure instructions|cycles`, docs/counting.md, "Defaults"):
 * counts repeat to a few hundredths of a percent, so the target and the smallest effect that
 * matters are far narrower than time's; the budget is wider, since a counted process runs
 * tens of times slower than a timed one. At least 8 rounds, 4 of each order: what the crossover
 * interval of a counted row needs at 97% (stats/crossover.ts), so that what going first does to
 * a side never holds a row's interval open.
 */
export const COUNT_DEFAULTS = { targetHalfWidth: 0.001, maxTimeS: 240, minEffect: 0.001, minRounds: 8 } as const;

/**
 * `--rounds N` alone runs exactly N rounds; `--target` and `--max-time` sample until every
 * interval is narrow enough or the time is spent, `--rounds` then being the minimum. With
 * none of them: sample until ±1%, for at most two minutes of the measuring phase's wall time
 * (counting: the COUNT_DEFAULTS).
 */
export function samplingRule(request: Pick<CompareRequest, "rounds" | "targetHalfWidth" | "maxTimeS" | "measure">): SamplingRule {
  const fixed = request.rounds !== undefined && request.targetHalfWidth === undefined && request.maxTimeS === undefined;
  const counting = countMeasure(request.measure) !== undefined;
  const minRounds = wholeCycles(request.rounds ?? (counting ? COUNT_DEFAULTS.minRounds : MIN_ROUNDS), CYCLE);
  const requested = request.rounds !== undefined ? { requested: request.rounds } : {};
  if (fixed) return { ...requested, minRounds, maxRounds: minRounds };
  return {
    ...requested,
    minRounds,
    maxRounds: MAX_ROUNDS,
    targetHalfWidth: request.targetHalfWidth ?? (counting ? COUNT_DEFAULTS.targetHalfWidth : DEFAULT_TARGET),
    maxTimeS: request.maxTimeS ?? (counting ? COUNT_DEFAULTS.maxTimeS : DEFAULT_MAX_TIME_S),
  };
}

/**
 * How a counted bench process samples a row (runner/child/count-sampler.ts; docs/counting.md
 * says how each figure was chosen): windows of at least 2 million events, two measured windows a
 * side once they agree, and 8192 calls to warm up (fewer for a costly call: about 50 million
 * events' worth).
 */
export function countBudget(): CountBudget {
  return { windowEvents: 2e6, windows: 2, warmupCalls: 8192, warmupEvents: 50e6, settleWindows: 8 };
}

/**
 * Batches of 1 ms (never shorter, whatever `--time`: the bench process also keeps them above
 * 1000 ticks of its clock), a quarter of the sampling time to warm up, at least 8 batches a side.
 */
export function samplingBudget(sideTimeMs = DEFAULT_SIDE_TIME_MS): SamplingBudget {
  const sideNs = Math.round(sideTimeMs * 1e6);
  return { batchNs: 1e6, sideNs, warmupNs: Math.max(sideNs / 4, 5e6), minBatches: 8 };
}

function filesAtRef(root: string, sha: string): string[] {
  return git(root, ["ls-tree", "-r", "-z", "--name-only", sha]).split("\0").filter(Boolean);
}

/** `2 changed (src/a.ts, b.ts), 1 untracked (wrap.ts)`: what makes a working tree dirty. */
export function describeDirty(paths: DirtyPaths): string | undefined {
  const list = (files: string[]) => `${files.slice(0, 3).join(", ")}${files.length > 3 ? `, … ${files.length - 3} more` : ""}`;
  const parts: string[] = [];
  if (paths.changed.length > 0) parts.push(`${paths.changed.length} changed (${list(paths.changed)})`);
  if (paths.untracked.length > 0) parts.push(`${paths.untracked.length} untracked (${list(paths.untracked)})`);
  return parts.length > 0 ? parts.join(", ") : undefined;
}

/** The repository and both sides' commits: --base (or the merge-base default) and --head (or the working tree). */
export function resolveRevisions(request: Pick<CompareRequest, "cwd" | "base" | "head">) {
  const repo = repoRoot(request.cwd);
  const base = request.base ? { ref: request.base, sha: resolveCommit(repo, request.base, "--base") } : defaultBase(repo);
  if (request.head) {
    return { repo, base, head: { ref: request.head, sha: resolveCommit(repo, request.head, "--head"), dirty: false } };
  }
  const paths = dirtyPaths(repo);
  const dirtyWith = describeDirty(paths);
  const head = { ref: "working tree", sha: resolveCommit(repo, "HEAD", "HEAD"), dirty: dirtyWith !== undefined, dirtyWith, paths };
  return { repo, base, head };
}

/** `(working tree, dirty: 1 untracked (wrap.ts))`: the one place a dirty head is stated. */
export function headLabel(head: { ref: string; dirty: boolean; dirtyWith?: string }): string {
  return `${head.ref}${head.dirty ? `, dirty: ${head.dirtyWith ?? "uncommitted changes"}` : ""}`;
}

/** package.json's `"xbench": { "bench": [...] }` (a string is a list of one); undefined without one. */
export function packageBenchList(text: string | undefined, where: string): string[] | undefined {
  if (text === undefined) return undefined;
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch {
    // Not ours to judge: a package.json xbench cannot read just names no bench files.
    return undefined;
  }
  const list = (pkg as { xbench?: { bench?: unknown } } | null)?.xbench?.bench;
  if (list === undefined) return undefined;
  const patterns = typeof list === "string" ? [list] : list;
  if (!Array.isArray(patterns) || patterns.length === 0 || !patterns.every((p) => typeof p === "string" && p.length > 0)) {
    throw new XbenchError(`${where}: "xbench.bench" must be a path or glob, or a non-empty list of them`, { kind: "usage" });
  }
  return patterns.map((p) => repoRelativePattern(p, ""));
}

/** Where the bench files come from, for messages: `in the working tree` or `at REF`. */
function whereLabel(headRef: string | undefined): string {
  return headRef ? `at ${headRef}` : "in the working tree";
}

/**
 * The bench files of a compare, and those of them taken from the working tree although head
 * is `--head REF` (named, untracked files: a wrapper the user did not commit). Named files come
 * from `--bench` or, without it, from package.json (head's); else every `*.bench.*` file. FILTER
 * narrows either list.
 */
export function chooseBenchFiles(
  request: Pick<CompareRequest, "cwd" | "head" | "bench" | "filter">,
  repo: string,
  headSha: string,
): { files: string[]; fromWorkingTree: string[]; exact: string[]; scripts: ScriptRun[]; fromScripts?: ScriptRun[]; tree: string[] } {
  const where = whereLabel(request.head);
  const onHead = request.head ? filesAtRef(repo, headSha) : listFiles(repo);
  const cwdInRepo = relative(repo, request.cwd);
  const flags = (request.bench ?? []).map((p) => repoRelativePattern(isAbsolute(p) ? relative(repo, p) : p, cwdInRepo));
  const pkgText = request.head ? fileAtCommit(repo, headSha, "package.json") : readIfExists(join(repo, "package.json"));
  const fromPackage =
    flags.length === 0 ? packageBenchList(pkgText, request.head ? `package.json at ${request.head}` : "package.json") : undefined;
  const named = flags.length > 0 ? flags : fromPackage;

  const scripts = benchScriptRuns(pkgText, onHead);
  if (!named) {
    const files = selectBenchFiles(onHead, request.filter);
    if (files.length > 0) return { files, fromWorkingTree: [], exact: [], scripts, tree: onHead };
    // No file by the default names: the files package.json's bench scripts run are the suite.
    const run = filterFiles([...new Set(scripts.map((s) => s.file))], request.filter);
    if (run.length > 0)
      return {
        files: run,
        fromWorkingTree: [],
        exact: run,
        scripts,
        fromScripts: scripts.filter((s) => run.includes(s.file)),
        tree: onHead,
      };
    const all = [...onHead.filter(isBenchFile), ...scripts.map((s) => s.file)];
    throw new XbenchError(
      all.length === 0
        ? `no bench files (${BENCH_FILE_NAMES}, or a file package.json's "bench" script runs) ${where}; ${NAMING_HINT}`
        : `no bench file matches "${request.filter}"; bench files ${where}: ${all.join(", ")}`,
      { kind: "usage" },
    );
  }

  // A named file the user has not committed still counts, on both sides: untracked files, and
  // a plain path that exists in the working tree (even if ignored).
  const onHeadSet = new Set(onHead);
  const extra = new Set(request.head ? untrackedFiles(repo) : []);
  for (const pattern of named) {
    if (!isGlob(pattern) && !onHeadSet.has(pattern) && isFile(join(repo, pattern))) extra.add(pattern);
  }
  const candidates = [...onHeadSet, ...[...extra].filter((f) => !onHeadSet.has(f))];
  const { files: picked, unmatched } = selectNamedFiles(candidates, named);
  if (unmatched.length > 0) {
    // Named as the user wrote it (`./bench/x.ts` from a subfolder), not as resolved.
    const typed = flags.length > 0 ? request.bench![flags.indexOf(unmatched[0]!)] : unmatched[0];
    const source = flags.length > 0 ? "--bench" : `package.json "xbench.bench" entry`;
    // A path typed almost right (`idx.ts` for `index.ts`) names the file it is closest to.
    const near = isGlob(unmatched[0]!) ? "" : didYouMean(unmatched[0]!, candidates, Math.max(2, Math.floor(unmatched[0]!.length / 6)));
    throw new XbenchError(`${source} "${typed}" matches no file ${where}${near}`, { kind: "usage" });
  }
  const files = filterFiles(picked, request.filter);
  if (files.length === 0) {
    throw new XbenchError(`no bench file matches "${request.filter}"; bench files ${where}: ${picked.join(", ")}`, { kind: "usage" });
  }
  // Only a `--head REF` side needs them copied: the working tree already is head.
  const fromWorkingTree = request.head ? files.filter((f) => !onHeadSet.has(f)) : [];
  const exact = files.filter((f) => named.includes(f));
  return { files, fromWorkingTree, exact, scripts, tree: onHead };
}

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

/**
 * Resolves refs, finds the bench files on head and lays out the schedule: all orderings of
 * (base, head), rounds rounded up to whole cycles.
 */
export function makePlan(request: CompareRequest): RunPlan {
  const { repo, base, head } = resolveRevisions(request);
  const { files, fromWorkingTree, exact, scripts, fromScripts, tree } = chooseBenchFiles(request, repo, head.sha);
  const headSource = (file: string) => (request.head ? fileAtCommit(repo, head.sha, file) : readIfExists(join(repo, file)));
  const runtime = request.runtime ? { runtime: request.runtime } : chooseRuntime(files, headSource, scripts);
  if (!request.build) {
    // Before any work: a bench file that reaches a workspace package's unbuilt output would measure no side's own source.
    const unbuilt = unbuiltPackages(repo, files, tree, headSource, gitIgnored(repo));
    if (unbuilt.length > 0)
      throw new XbenchError(unbuiltMessage(wantedManager(managerFacts(repo))?.name ?? "npm", unbuilt), { kind: "usage" });
  }
  return {
    version: PLAN_VERSION,
    repo,
    filter: request.filter,
    files,
    ...(fromWorkingTree.length > 0 ? { fromWorkingTree } : {}),
    ...(exact.length > 0 ? { exact } : {}),
    runtime: runtime.runtime,
    ...(runtime.because ? { runtimeFrom: runtime.because } : {}),
    ...(fromScripts ? { fromScripts: fromScripts.map(({ script, command, file }) => ({ script, command, file })) } : {}),
    build: request.build,
    install: request.install,
    timeoutS: request.timeoutS,
    holm: request.holm,
    minEffect: request.minEffect ?? (countMeasure(request.measure) ? COUNT_DEFAULTS.minEffect : DEFAULT_MIN_EFFECT),
    isolate: request.isolate,
    ...(request.all ? { all: true } : {}),
    ...(request.shard ? { shard: request.shard } : {}),
    sampling: samplingRule(request),
    budget: samplingBudget(request.sideTimeMs),
    ...(request.sideTimeMs !== undefined ? { budgetFixed: true } : {}),
    jobs: request.jobs ?? 1,
    filesPerProcess: request.filesPerProcess ?? DEFAULT_FILES_PER_PROCESS,
    ...(countMeasure(request.measure)
      ? {
          measure: request.measure,
          countBudget: countBudget(),
          counter: { valgrind: request.valgrind ?? "valgrind", runtimeFlags: countingFlags(runtime.runtime) },
        }
      : {}),
    // A new order of sides for every run, kept in the plan so that a resumed run continues it.
    seed: randomInt(2 ** 31),
    base: { ref: base.ref, sha: base.sha, dirty: false },
    head: {
      ref: head.ref,
      sha: head.sha,
      dirty: head.dirty,
      headRef: request.head,
      ...("dirtyWith" in head && head.dirtyWith ? { dirtyWith: head.dirtyWith } : {}),
      ...("paths" in head && head.dirty && sameCode(base.sha, head.sha, head.paths, files) ? { sameCode: true } : {}),
    },
    startedAt: new Date().toISOString(),
  };
}

/**
 * Whether a dirty working tree still runs base's code on both sides: the same commit, and no
 * tracked file changed but the bench files (both sides run head's copy of those). Untracked
 * files (a wrapper, notes) exist on head only: a bench file importing one fails on base
 * instead of measuring something else.
 */
export function sameCode(baseSha: string, headSha: string, paths: DirtyPaths, benchFiles: readonly string[]): boolean {
  return baseSha === headSha && paths.changed.every((path) => benchFiles.includes(path));
}

/** Run folders live in git's own folder: per repository, never part of the working tree. */
export function newRunDir(repo: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
  const parent = join(gitCommonDir(repo), "xbench", "runs");
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, `${stamp}-`));
}
