import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "pathe";
import { embeddedHelpers } from "../helpers/cache.ts";
import { optionalHelper } from "../helpers/index.ts";
import type { CompareResult, Row, Runtime, Side } from "../model/result.ts";
import { SCHEMA_ID, SCHEMA_VERSION } from "../model/result.ts";
import { analyzeRows } from "../report/analyze.ts";
import { BUNDLE_SOURCES, bundle } from "../runner/bundle.ts";
import { CHILD_ENV, CHILD_PROTOCOL, type Job, type JobSide } from "../runner/protocol.ts";
import { runtimeLaunch } from "../runner/runtimes.ts";
import { killRunningChildren, runBenchProcess, type BenchOutcome } from "../runner/spawn.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import { LEVEL, SEQUENTIAL_LEVEL } from "../stats/paired.ts";
import { currentLoad } from "../util/load.ts";
import { VERSION } from "../version.ts";
import { withCleanup, type Cleanup } from "../util/scope.ts";
import { XbenchError } from "../errors.ts";
import { emptyFileVerdict, scanBenchSource, type EmptyFileVerdict } from "./diagnose.ts";
import { runtimeMismatch } from "./runtime-fit.ts";
import { globToRegExp } from "./discover.ts";
import { assignShards } from "./shard.ts";
import { measureReason, sameSources, type BundleSources, type SideBundle } from "./unchanged.ts";
import { layoutDraw } from "./layout.ts";
import { ignoreEvents, type OnCompareEvent } from "./events.ts";
import { expectedLabels, planFile, type FilePlan, type InventoryOutcome } from "./jobs.ts";
import { CYCLE, measureRounds, type MeasuredFile, type RunProcess, type RunShared } from "./rounds.ts";
import { makeRunTemp, ownPath } from "./reclaim.ts";
import { profileRows, type ProfileRows } from "./profile-run.ts";
import { collectRows } from "./rows.ts";
import type { StopReason } from "./sampling.ts";
import {
  buildSide,
  checkoutHead,
  checkoutSide,
  copyBenchFiles,
  installCommand,
  installDependencies,
  linkDependencies,
  nearestNodeModules,
  type SideTree,
} from "./sides.ts";
import { recordKey, type RunPlan, type RunStore } from "./store.ts";

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

/** One side's compiled copy of each bench file, or why it does not compile. */
export type SideBundles = Map<string, { path?: string; error?: string }>;

/** Each side's compiled copy of each bench file (or why it does not compile), and the driver. */
export interface Bundles {
  driver: string;
  sides: Record<Side, SideBundles>;
}

/** Dependencies (linked from the repository, or installed) and the build of one checked-out side. */
export async function setUpSide(plan: RunPlan, side: SideTree, onEvent: OnCompareEvent = ignoreEvents): Promise<void> {
  if (side.root !== plan.repo) {
    if (plan.install) {
      const argv = await installCommand(side.root);
      // An install takes seconds to minutes: named, with its elapsed time, never silent.
      if (argv) {
        onEvent({ type: "working", what: `installing ${side.side}'s dependencies (${argv.join(" ")})` });
        const started = performance.now();
        await installDependencies(side, argv);
        onEvent({ type: "installed", side: side.side, command: argv, seconds: (performance.now() - started) / 1000 });
      }
    } else linkDependencies(plan.repo, side, plan.files);
  }
  if (plan.build) {
    onEvent({ type: "working", what: `building ${side.side} (${plan.build})` });
    await buildSide(side, plan.build);
  }
}

/** Sets both sides up: worktrees, head's bench files on base, dependencies, builds. */
async function prepareSides(store: RunStore, tmp: string, cleanup: Cleanup, onEvent: OnCompareEvent): Promise<Record<Side, SideTree>> {
  const { plan } = store;
  const base = checkoutSide(plan.repo, tmp, "base", plan.base.sha, cleanup, onEvent);
  const head = checkoutHead(plan.repo, tmp, plan.head.sha, plan.head.headRef, cleanup, onEvent);
  copyBenchFiles(plan, head.root, base.root);
  for (const side of [base, head]) await setUpSide(plan, side, onEvent);
  return { base, head };
}

/**
 * The driver every bench process runs; it imports only runtime built-ins and the side bundles.
 * It goes into the node_modules of `root` (head's) where there is one, because deno takes the
 * project's settings (package.json and its node_modules layout, npm's or pnpm's, deno.json)
 * from where the main module is: from a temp folder it resolves no package of the project's.
 */
export async function bundleDriver(tmp: string, runtime: Runtime, root: string, tag: string, cleanup: Cleanup): Promise<string> {
  const modules = nearestNodeModules(root, "");
  const outDir = modules ? join(modules, ".cache", "xbench", `${tag}-driver`) : join(tmp, "driver");
  ownPath(tmp, outDir, cleanup);
  return bundle({ kind: "driver", outDir, runtime });
}

/**
 * Compiles each bench file of one side. Bundles go inside the node_modules nearest each bench
 * file on its side, so the packages a bench file imports resolve from that side, exactly as the
 * project's own code would; `tag` keeps each side's (each commit's) folders apart.
 */
export async function bundleSide(
  tree: SideTree,
  files: readonly string[],
  runtime: Runtime,
  tag: string,
  tmp: string,
  cleanup: Cleanup,
): Promise<SideBundles> {
  const bundles: SideBundles = new Map();
  for (const [i, file] of files.entries()) {
    const modules = nearestNodeModules(tree.root, file);
    const outDir = modules ? join(modules, ".cache", "xbench", `${tag}-${i}`) : join(tmp, "bundles", tag, String(i));
    ownPath(tmp, outDir, cleanup);
    try {
      bundles.set(file, { path: await bundle({ kind: "side", benchFile: join(tree.root, file), outDir, runtime }) });
    } catch (error) {
      bundles.set(file, { error: (error as Error).message });
    }
  }
  return bundles;
}

async function bundleAll(store: RunStore, sides: Record<Side, SideTree>, tmp: string, cleanup: Cleanup): Promise<Bundles> {
  const runId = store.dir.split("/").pop()!;
  const { files, runtime } = store.plan;
  return {
    driver: await bundleDriver(tmp, runtime, sides.head.root, runId, cleanup),
    sides: {
      base: await bundleSide(sides.base, files, runtime, `${runId}-base`, tmp, cleanup),
      head: await bundleSide(sides.head, files, runtime, `${runId}-head`, tmp, cleanup),
    },
  };
}

/** Starts bench processes for one run: the runtime, each side's root, the environment. */
function processRunner(store: RunStore, sides: Record<Side, SideTree>, bundles: Bundles) {
  const { plan } = store;
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
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
  const start = (job: Job, order: readonly Side[], timeoutMs: number): Promise<BenchOutcome> => {
    // A duet process runs in head's root: both sides' bundles import by absolute path.
    const root = sides[order.length === 1 ? order[0]! : "head"].root;
    const launch = runtimeLaunch(plan.runtime, root, bundles.driver);
    const resultFile = join(store.dir, `result-process-${serial++}.ndjson`);
    return runBenchProcess({
      argv: launch.argv,
      cwd: root,
      env: { ...env, ...launch.env, XBENCH_SIDE: order.length === 1 ? order[0]! : "both", [CHILD_ENV.job]: JSON.stringify(job) },
      resultFile,
      timeoutMs,
    }).finally(() => rmSync(resultFile, { force: true }));
  };
  const run: RunProcess = (file, kind, order, parts, rows = {}) => {
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
    return start(job, order, plan.timeoutS * 1000);
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
    if (both.error === undefined) return { ...outcome, inventories: both.report.inventories, loadMs: both.wallMs };
    outcome.duetError = both.error;
  }
  for (const side of loadable) {
    const alone = await run(file, "inventory", [side], "all");
    if (alone.error !== undefined) outcome.errors[side] = alone.error;
    else {
      outcome.inventories[side] = alone.report.inventories[side];
      outcome.loadMs = Math.max(outcome.loadMs ?? 0, alone.wallMs);
    }
  }
  if (outcome.duetError !== undefined && Object.keys(outcome.errors).length > 0) delete outcome.duetError;
  return outcome;
}

/**
 * For a file whose sides loaded and registered nothing at all: an error that says why (it
 * times itself, it uses a library xbench does not read, …), or a skip for a helper module a
 * pattern matched. Undefined for a file that registers something or failed to load.
 */
function emptyFile(file: string, outcome: InventoryOutcome, headRoot: string, exact: string[]): EmptyFileVerdict | undefined {
  const inventories = SIDES.map((side) => outcome.inventories[side]);
  if (Object.keys(outcome.errors).length > 0 || inventories.some((inv) => !inv)) return undefined;
  if (inventories.some((inv) => inv!.benchmarks.length + inv!.metrics.length + inv!.commands.length > 0)) return undefined;
  let source = "";
  try {
    source = readFileSync(join(headRoot, file), "utf8");
  } catch {
    // Unreadable now though it loaded: judge by what the sides reported.
  }
  const apis = inventories.flatMap((inv) => inv!.apis ?? []);
  return emptyFileVerdict(file, scanBenchSource(source), apis, exact.includes(file));
}

/** The folder of package `name` that code in `dir` resolves to (node's lookup upwards), if any. */
function packageDir(dir: string, name: string): string | undefined {
  const pkg = name.startsWith("@") ? name.split("/").slice(0, 2).join("/") : name.split("/")[0]!;
  for (let at = dir; ; at = join(at, "..")) {
    const candidate = join(at, "node_modules", pkg);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (at === "/" || at === join(at, "..")) return undefined;
  }
}

/** A hash of every file in a package's folder (its own node_modules left out), memoized per folder. */
const packageHashes = new Map<string, string>();
function packageHash(dir: string): string {
  let hash = packageHashes.get(dir);
  if (hash !== undefined) return hash;
  const digest = createHash("sha256");
  const walk = (at: string, rel: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      if (entry.name === "node_modules") continue;
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(join(at, entry.name), path);
      else if (entry.isFile())
        digest
          .update(`${path}\0`)
          .update(readFileSync(join(at, entry.name)))
          .update("\0");
    }
  };
  walk(dir, "");
  hash = digest.digest("hex");
  packageHashes.set(dir, hash);
  return hash;
}

/**
 * The same package on both sides: the same folder (base links head's node_modules by
 * default), or, installed per side, folders whose files are the same.
 */
function samePackageOnBothSides(baseBundle: string, headBundle: string) {
  return (specifier: string): boolean => {
    const a = packageDir(join(baseBundle, ".."), specifier);
    const b = packageDir(join(headBundle, ".."), specifier);
    if (a === b) return true;
    if (!a || !b) return false;
    return packageHash(a) === packageHash(b);
  };
}

/** Files under `root` (outside node_modules and .git) that a package.json "xbench.inputs" glob matches, with their content. */
function declaredInputs(root: string, globs: RegExp[]): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === ".git") continue;
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(dir, entry.name), path);
      else if (entry.isFile() && globs.some((glob) => glob.test(path))) found.set(path, readFileSync(join(dir, entry.name), "utf8"));
    }
  };
  walk(root, "");
  return found;
}

function sameInputs(sides: Record<Side, SideTree>, patterns: string[] | undefined): boolean | undefined {
  if (!patterns || patterns.length === 0) return undefined;
  const globs = patterns.map(globToRegExp);
  const [base, head] = SIDES.map((side) => declaredInputs(sides[side].root, globs));
  return base!.size === head!.size && [...base!].every(([path, text]) => head!.get(path) === text);
}

/** head's package.json "xbench": { "inputs": [...] }: files bench files read at run time. */
function inputPatterns(headRoot: string): string[] | undefined {
  try {
    const inputs = JSON.parse(readFileSync(join(headRoot, "package.json"), "utf8"))?.xbench?.inputs;
    if (typeof inputs === "string") return [inputs];
    return Array.isArray(inputs) && inputs.every((i) => typeof i === "string") ? inputs : undefined;
  } catch {
    return undefined;
  }
}

/** A side's bundle of a file with the project files it was made of (runner/bundle.ts writes them). */
function readSideBundle(bundle: string, root: string): SideBundle {
  return { text: readFileSync(bundle, "utf8"), ...readBundleSources(bundle, root) };
}

/** The project files a bundle was made of (sources.json beside it), without reading the bundle. */
function readBundleSources(bundle: string, root: string): BundleSources {
  return { sources: JSON.parse(readFileSync(join(bundle, "..", BUNDLE_SOURCES), "utf8")) as Array<[string, string]>, root };
}

/**
 * Bench files whose code is the same on both sides (compare/unchanged.ts): their rows cannot
 * differ, so they are listed but not measured. None with `--all`, and none in an A/A run,
 * whose point is to measure the noise of identical code.
 */
function unchangedFiles(plan: RunPlan, sides: Record<Side, SideTree>, bundles: Bundles): Set<string> {
  const unchanged = new Set<string>();
  // An A/A run (the same commit, dirty at most through bench files and untracked ones) measures all.
  const aa = plan.base.sha === plan.head.sha && (!plan.head.dirty || plan.head.sameCode === true);
  if (plan.all || aa) return unchanged;
  const patterns = inputPatterns(sides.head.root);
  let inputs: { same: boolean | undefined } | undefined;
  // Declared inputs are read once, and only if a file that reads files at run time asks.
  const sameDeclaredInputs = () => (inputs ??= { same: sameInputs(sides, patterns) }).same;
  for (const file of plan.files) {
    const [base, head] = SIDES.map((s) => bundles.sides[s].get(file)?.path);
    if (!base || !head) continue;
    const reason = measureReason(
      readSideBundle(base, sides.base.root),
      readSideBundle(head, sides.head.root),
      samePackageOnBothSides(base, head),
      sameDeclaredInputs,
    );
    if (reason === undefined) unchanged.add(file);
  }
  return unchanged;
}

/**
 * The files this run measures: all of them, or with `--shard I/N` the I-th share, balanced by
 * the rows each file has to measure (none for unchanged code). Every shard inventories every
 * file, so every shard computes the same assignment.
 */
function ownShare<T extends { plan: FilePlan; outcome: InventoryOutcome; unchanged: boolean }>(plan: RunPlan, files: T[]): T[] {
  if (!plan.shard) return files;
  const weight = ({ outcome, unchanged }: T) =>
    unchanged
      ? 0
      : Math.max(0, ...SIDES.map((side) => expectedLabels(outcome, { name: side, kind: "isolated", sides: [side], parts: "all" }).length));
  const assigned = assignShards(
    files.map((f) => ({ file: f.plan.file, weight: weight(f) })),
    plan.shard.count,
  );
  return files.filter((f) => assigned.get(f.plan.file) === plan.shard!.index);
}

/** Records once that a file's rows were not measured because its code is the same on both sides. */
function recordUnchanged(store: RunStore, file: string, outcome: InventoryOutcome, done: Set<string>): void {
  if (done.has(recordKey(0, file, "unchanged"))) return;
  const labels = [...new Set(SIDES.flatMap((s) => expectedLabels(outcome, { name: s, kind: "isolated", sides: [s], parts: "all" })))];
  store.append({ round: 0, file, job: "unchanged", sides: [], wallMs: 0, expected: labels });
  done.add(recordKey(0, file, "unchanged"));
}

/** Records a file that cannot be measured on a side once, so its rows show as failed. */
function recordFailedSides(store: RunStore, plan: FilePlan, outcome: InventoryOutcome, done: Set<string>): void {
  for (const side of SIDES) {
    const error = plan.failed[side];
    if (error === undefined || done.has(recordKey(0, plan.file, side))) continue;
    const labels = [...new Set(SIDES.flatMap((s) => expectedLabels(outcome, { name: s, kind: "isolated", sides: [s], parts: "all" })))];
    store.append({ round: 0, file: plan.file, job: side, sides: [side], wallMs: 0, error, expected: labels });
    done.add(recordKey(0, plan.file, side));
  }
}

/**
 * Runs (or continues) a compare: inventories, then rounds of bench processes, each outcome
 * appended to the run folder the moment it arrives, until the sampling rule says stop. What
 * happens along the way goes to `onEvent`; the engine itself never writes to the terminal.
 */
export async function runCompare(
  store: RunStore,
  onEvent: OnCompareEvent = ignoreEvents,
  options: { profile?: ProfileRows } = {},
): Promise<CompareOutcome> {
  const started = performance.now();
  const onSignal = (signal: string) => {
    killRunningChildren();
    onEvent({ type: "interrupted", signal, runDir: store.dir });
  };
  return withCleanup(onSignal, async (cleanup) => {
    noteStartLoad(store);
    const tmp = makeRunTemp("xbench-compare-", store.plan.repo, cleanup, onEvent);
    const sides = await prepareSides(store, tmp, cleanup, onEvent);
    onEvent({ type: "working", what: `bundling ${store.plan.files.length} bench file(s) for base and head` });
    const bundles = await bundleAll(store, sides, tmp, cleanup);
    const outcome = await runRounds(store, sides, bundles, onEvent, started);
    if (!options.profile) return outcome;
    // Profiled processes come after the rounds and add to the wall time, never to a row's interval.
    const result = await profileRows({ store, sides, bundles, onEvent }, outcome.result, options.profile);
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
 * The rounds of a compare whose sides are checked out and bundled (by runCompare, or by bisect,
 * which keeps each commit's bundles across its steps). Continues what `store` already holds,
 * so a store given more rounds in its plan runs only the new ones. The caller owns the
 * cleanup scope and the signal handling.
 */
export async function runRounds(
  store: RunStore,
  sides: Record<Side, SideTree>,
  bundles: Bundles,
  onEvent: OnCompareEvent,
  started = performance.now(),
): Promise<CompareOutcome> {
  noteStartLoad(store);
  const run = timedRunner(processRunner(store, sides, bundles));
  const done = new Set(store.records.map((r) => recordKey(r.round, r.file, r.job)));
  const files = await inventoryFiles(store, sides, bundles, run.run, done, onEvent);
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

/** Every bench process counts as bench time: inventories, and those that failed or timed out. */
function timedRunner(runners: { run: RunProcess; runShared: RunShared }): { run: RunProcess; runShared: RunShared; childMs: () => number } {
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

/**
 * Inventories every bench file and returns those this run measures: a file that registers
 * nothing is skipped or fails the run, one whose code is the same on both sides and one that
 * cannot load on a side are recorded once, and with `--shard` only this shard's files remain.
 */
async function inventoryFiles(
  store: RunStore,
  sides: Record<Side, SideTree>,
  bundles: Bundles,
  run: RunProcess,
  done: Set<string>,
  onEvent: OnCompareEvent,
): Promise<MeasuredFile[]> {
  const { plan } = store;
  const files: MeasuredFile[] = [];
  const unchanged = unchangedFiles(plan, sides, bundles);
  const inventoried: Array<MeasuredFile & { unchanged: boolean }> = [];
  for (const file of plan.files) {
    onEvent({ type: "working", what: `loading ${file}` });
    const outcome = await takeInventory(file, bundles, run);
    const mismatch = runtimeMismatch(file, outcome, sides.head.root, plan.runtime);
    if (mismatch !== undefined) throw new XbenchError(mismatch, { kind: "usage" });
    const empty = emptyFile(file, outcome, sides.head.root, plan.exact ?? []);
    if (empty?.kind === "error") throw new XbenchError(empty.message, { kind: "usage" });
    if (empty?.kind === "skip") {
      onEvent({ type: "skipped", file, note: empty.note });
      continue;
    }
    const filePlan = planFile(file, outcome, { isolate: plan.isolate });
    inventoried.push({ plan: filePlan, outcome, unchanged: unchanged.has(file) && Object.keys(filePlan.failed).length === 0 });
  }
  for (const { plan: filePlan, outcome, unchanged: same } of ownShare(plan, inventoried)) {
    const file = filePlan.file;
    if (same) {
      recordUnchanged(store, file, outcome, done);
      continue;
    }
    recordFailedSides(store, filePlan, outcome, done);
    onEvent({ type: "inventoried", file, loaded: SIDES.filter((side) => outcome.inventories[side] !== undefined) });
    if (filePlan.isolatedBecause && !plan.isolate) onEvent({ type: "isolated", file, because: filePlan.isolatedBecause });
    files.push({ plan: filePlan, outcome });
  }
  if (files.length === 0 && inventoried.length === 0)
    throw new XbenchError(`none of the ${plan.files.length} bench files registers a benchmark`, { kind: "usage" });
  return files;
}

/**
 * The analyzed rows after a number of rounds. Records only grow between rounds, so the rows of
 * a number of rounds are analyzed once: the progress event, the stop rule and the result all
 * read the same analysis.
 */
function rowAnalysis(store: RunStore): (rounds: number) => Row[] {
  const { plan } = store;
  const minEffect = plan.minEffect ?? DEFAULT_MIN_EFFECT;
  const level = analysisLevel(plan);
  let analyzed: { rounds: number; rows: Row[] } | undefined;
  return (rounds) => {
    if (analyzed?.rounds !== rounds)
      analyzed = { rounds, rows: analyzeRows(collectRows(plan.files, rounds, store.records), { holm: plan.holm, minEffect, level }) };
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
    minEffect: plan.minEffect ?? DEFAULT_MIN_EFFECT,
    ...(plan.shard ? { shard: plan.shard } : {}),
    rows: run.rows,
  };
}
