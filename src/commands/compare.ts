import { defineCommand } from "../args/define.ts";
import type { Flags, FlagValues } from "../args/types.ts";
import { minEffect, positiveInt } from "../args/values.ts";
import { join, resolve } from "pathe";
import { EXIT_BISECT_SKIP, XbenchError, usageError } from "../errors.ts";
import { log } from "../output/log.ts";
import { renderCompareEvents } from "../output/compare-events.ts";
import { printError } from "../output/errors.ts";
import { GATE_FLAGS, gateRule, RUN_FLAGS, runSettings, TIME_FLAGS } from "./flags.ts";
import { pullRequestTarget, upsertComment, writeJobSummary, writeStepOutput, type PullRequestTarget } from "../output/github.ts";
import { readyHelpers } from "../output/helper-cache.ts";
import { createTicker } from "../output/progress.ts";
import { withCleanup } from "../util/scope.ts";
import { bisectInProgress } from "../git/git.ts";
import { decideGate, exitStatus } from "../report/gate.ts";
import { MAX_ROUNDS, MIN_ROUNDS, headLabel, makePlan, newRunDir, resolveRevisions } from "../compare/plan.ts";
import { withSideHelpers } from "../compare/tracer-suite.ts";
import {
  DEFAULT_ITERATIONS,
  MARKDOWN_MARKER as TRACER_COMMENT_MARKER,
  renderMarkdown as renderTracerMarkdown,
  renderTerminal as renderTracerTerminal,
} from "../suites/tracer/index.ts";
import { runTracerBenchWithProgress } from "../output/tracer-progress.ts";
import { colorFor } from "../output/color.ts";
import { checkOutputTargets, prettyJson, tableStream, writeReport } from "../output/writer.ts";
import { runCompare } from "../compare/engine.ts";
import { checkProfiler } from "../compare/profile-run.ts";
import { createStore, inRunFolder, openStore, treeChange, treeState, type RunStore, type SamplingRule } from "../compare/run/store.ts";
import { failureLines, nothingCompared } from "../report/row-stats.ts";
import { analyzeResult } from "../report/analysis.ts";
import { FILE_FLAGS, fileTargets, fileTexts, renderer } from "../report/outputs.ts";
import { requireBundler } from "../runner/bundle.ts";
import { checkRuntime } from "../runner/runtimes.ts";
import { checkCounting, countMeasure } from "../runner/valgrind.ts";
import { COMMENT_MARKER } from "../report/markdown.ts";
import type { GateRule } from "../model/result.ts";
import { parseShard, resultSettings } from "../compare/shard.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";

/** `--rounds` of a bench-file compare: a whole number of rounds the stop rule accepts. */
function checkRounds(rounds: number): number {
  if (rounds < MIN_ROUNDS) throw usageError(`--rounds must be a whole number from ${MIN_ROUNDS} to ${MAX_ROUNDS} (got ${rounds})`);
  if (rounds > MAX_ROUNDS) throw usageError(`--rounds must be at most ${MAX_ROUNDS} (got ${rounds}); narrow the benchmarks instead`);
  return rounds;
}

/** `10 rounds`, or `6+ rounds until ±1.0% or 120 s`. */
function describeSampling(rule: SamplingRule): string {
  if (rule.targetHalfWidth === undefined) return `${rule.minRounds} rounds`;
  return `${rule.minRounds}+ rounds until every interval is within ±${(rule.targetHalfWidth * 100).toFixed(1)}% or ${rule.maxTimeS} s`;
}

/** `benchmark.js ("bench": "node benchmark.js")`: each file a bench script runs, with the script. */
function describeScripts(runs: NonNullable<RunStore["plan"]["fromScripts"]>): string {
  return runs.map(({ script, command, file }) => `${file} (${JSON.stringify(script)}: ${JSON.stringify(command)})`).join(", ");
}

/** A flag of compare's table, as typed. */
type CompareFlag = `--${keyof typeof COMPARE_FLAGS}`;

/** Flags that set up a bench-file run and stay fixed for its life; a suite takes none of them. */
const BENCH_RUN_FLAGS: CompareFlag[] = [
  "--bench",
  "--target",
  "--max-time",
  "--isolate",
  "--jobs",
  "--files-per-process",
  "--all",
  "--shard",
  "--runtime",
  "--measure",
  "--build",
  "--install",
  "--timeout",
  "--time",
  "--holm",
  "--min-effect",
];

/** Flags that shape a run; a resumed run keeps its own. */
const PLAN_FLAGS: CompareFlag[] = ["--base", "--head", "--rounds", ...BENCH_RUN_FLAGS];

/**
 * compare's flags, one line each: help, strict checking and parsing all read this table
 * (src/args/types.ts says what each field does). A new flag is one entry here, read in `run`
 * as `flags.<name>`.
 */
const COMPARE_FLAGS = {
  bench: RUN_FLAGS.bench,
  base: { type: "string", valueHint: "REF", description: "Base ref (default: merge-base of HEAD with origin/main, main or master)" },
  head: { type: "string", valueHint: "REF", description: "Head ref (default: the working tree, uncommitted edits included)" },
  rounds: {
    type: "string",
    valueHint: "N",
    description: `Run exactly N rounds (${MIN_ROUNDS} to ${MAX_ROUNDS}, rounded up to whole cycles); with --target or --max-time, the minimum`,
    // Whole and at least 1 here (`--suite tracer` takes any); checkRounds holds bench files to their range.
    parse: positiveInt(1, `a whole number from ${MIN_ROUNDS} to ${MAX_ROUNDS}, or at least 1 with --suite`),
  },
  target: RUN_FLAGS.target,
  "max-time": RUN_FLAGS["max-time"],
  isolate: RUN_FLAGS.isolate,
  jobs: RUN_FLAGS.jobs,
  "files-per-process": RUN_FLAGS["files-per-process"],
  shard: {
    type: "string",
    valueHint: "I/N",
    description: "Measure the I-th of N shares of the bench files (one CI runner each); merge with xbench report --merge",
    parse: parseShard,
  },
  all: RUN_FLAGS.all,
  runtime: RUN_FLAGS.runtime,
  measure: RUN_FLAGS.measure,
  build: RUN_FLAGS.build,
  install: { type: "boolean", description: "Install dependencies per side instead of linking head's node_modules" },
  ...TIME_FLAGS,
  ...FILE_FLAGS,
  comment: { type: "boolean", description: "On GitHub Actions, create or update one sticky PR comment" },
  verbose: {
    type: "boolean",
    description: "A note for each row that missed the sampling target, and each of no work measured, not only one for all",
  },
  holm: { type: "boolean", description: "Holm-correct the intervals across rows" },
  "min-effect": {
    type: "string",
    valueHint: "PCT",
    description: `A row whose 95% interval lies within ±PCT percent reads "same": no change beyond it (default: ${DEFAULT_MIN_EFFECT * 100})`,
    parse: minEffect,
  },
  profile: {
    type: "enum",
    options: ["verdict", "all"],
    bare: "verdict",
    description:
      "After the rounds, profile each row with a verdict (--profile all: every timed row) in extra duet processes under the CPU profiler: which functions' self time per iteration changed, and a .cpuprofile per side (node, bun)",
  },
  resume: { type: "string", path: "dir", description: "Continue an interrupted run from its run folder" },
  ...GATE_FLAGS,
  suite: {
    type: "enum",
    options: ["tracer"],
    description: "Instead of bench files, run a built-in suite with each side's own build (tracer: xbench's helpers)",
  },
} as const satisfies Flags;

type CompareFlags = FlagValues<typeof COMPARE_FLAGS>;

export const compareCommand = defineCommand({
  meta: {
    name: "compare",
    description:
      "Benchmark the merge-base against the working tree, both sides alternating in each bench process, with a paired 95% CI per row. Bench files are read as they are: mitata, vitest bench, tinybench, Benchmark.js or Deno.bench",
  },
  args: {
    filter: { type: "positional", required: false, description: "Substring or glob that narrows the bench files" },
    ...COMPARE_FLAGS,
  },
  exitStatuses: [
    "0    finished; with --fail-on or --fail-above, the gate passed (undecided rows pass)",
    "1    the gate failed: a row's interval lies wholly past its line (or xbench itself failed: a build, the PR comment)",
    "2    bad input: a flag, a ref, no bench files",
    "3    a benchmark failed to run, or nothing was measured on both sides",
    "125  with a gate, under git bisect run: this commit cannot be judged (undecided, not measured, a failed build); git skips it",
    "130  interrupted (Ctrl-C); --resume continues",
  ],
  examples: [
    "xbench compare --base main",
    "xbench compare --base HEAD --rounds 20          # A/A: the noise floor of this machine",
    "xbench compare --bench test/bench/index.ts      # a suite not named *.bench.ts",
    "xbench compare --base v1.2.0 --head v1.3.0 --markdown report.md",
    'xbench compare parse --json result.json         # bench files whose path has "parse"',
    "xbench compare --base main --fail-above 10      # exit 1 when a row is confidently >10% slower",
  ],
  async run({ flags, positionals: [filter], given }) {
    if (flags.suite === "tracer") return compareTracerSuite(flags, filter, given);
    const rule = gateRule(flags);
    try {
      return await compareBenchFiles(flags, filter, given, rule);
    } catch (error) {
      // Under git bisect run, a commit that cannot be built or measured is skipped, not called bad.
      if (!rule || !(error instanceof XbenchError) || error.kind !== "failure" || !bisectInProgress(process.cwd())) throw error;
      printError(error.message);
      return sayBisectSkip();
    }
  },
});

/** A compare of bench files, judged by `rule` when there is one; returns the exit status. */
async function compareBenchFiles(
  flags: CompareFlags,
  filter: string | undefined,
  given: CompareFlag[],
  rule: GateRule | undefined,
): Promise<number> {
  requireBundler();
  // Fail before measuring anything when a report could never be written or the comment posted.
  const targets = fileTargets(flags);
  checkOutputTargets(targets);
  const commentTarget = flags.comment ? pullRequestTarget() : undefined;
  readyHelpers();
  if (flags.profile && !flags.resume && flags.runtime) checkProfiler(flags.runtime);
  const counted = flags.resume ? undefined : countMeasure(flags.measure);
  if (counted && flags.profile)
    throw usageError(`--profile times functions under the CPU profiler; it does not combine with --measure ${counted}`);
  // Valgrind and the counter module, before any work (a resumed run checks its own measure below).
  const valgrind = counted ? checkCounting(counted) : undefined;
  let store: RunStore;
  if (flags.resume) {
    const clash = given.find((flag) => PLAN_FLAGS.includes(flag));
    if (clash) throw usageError(`--resume continues a run with its own settings; drop ${clash}`);
    if (filter) throw usageError("--resume continues a run with its own bench files; drop the filter");
    store = openStore(resolve(flags.resume));
    // New rounds must measure the tree the saved ones did: a mix would read as a change.
    const moved = store.plan.head.tree && treeChange(store.plan.repo, store.plan.head.tree);
    if (moved)
      throw usageError(
        `cannot resume ${store.dir}: the working tree changed since the run began (${moved}); its rounds measured the tree as it was. Put it back, or start a new compare`,
      );
    // The run folder is trusted input (docs/reliability.md): what it will run is said first.
    if (store.plan.build) log.info(`--build ${JSON.stringify(store.plan.build)}, from the run folder's plan.json`);
    const resumed = countMeasure(store.plan.measure);
    if (resumed) checkCounting(resumed);
    await checkRuntime(store.plan.runtime, store.plan.repo);
    log.info(`resuming ${store.dir}: ${store.records.length} bench processes already measured`);
  } else {
    const made = makePlan({
      cwd: process.cwd(),
      filter: filter || undefined,
      bench: flags.bench,
      base: flags.base || undefined,
      head: flags.head || undefined,
      rounds: flags.rounds !== undefined ? checkRounds(flags.rounds) : undefined,
      ...(flags.shard !== undefined ? { shard: flags.shard } : {}),
      ...runSettings(flags),
      holm: flags.holm,
      ...(valgrind ? { valgrind } : {}),
    });
    // --profile is the plan's too, so that --resume profiles what the interrupted run was to.
    const plan = flags.profile ? { ...made, profile: flags.profile } : made;
    if (!plan.head.headRef) plan.head.tree = treeState(plan.repo);
    // A runtime that cannot start is one line now, not a failed row in every round.
    await checkRuntime(plan.runtime, plan.repo, plan.runtimeFrom);
    store = createStore(newRunDir(plan.repo), plan);
  }
  const { plan } = store;
  // A resumed run profiles as it was started, unless --profile is given again.
  const profile = flags.profile ?? plan.profile;
  if (flags.resume && profile && !flags.profile) log.info(`--profile ${profile}, as the run was started`);
  log.info(`base ${plan.base.sha.slice(0, 12)} (${plan.base.ref}) · head ${plan.head.sha.slice(0, 12)} (${headLabel(plan.head)})`);
  const jobs = (plan.jobs ?? 1) > 1 ? ` · ${plan.jobs} processes at once` : "";
  log.info(
    `${plan.files.length} bench file(s) · ${describeSampling(plan.sampling)}${jobs} · runtime ${plan.runtime} · run folder ${store.dir}`,
  );
  if (plan.fromScripts)
    log.info(`bench files from package.json's scripts (no file has a default bench name): ${describeScripts(plan.fromScripts)}`);
  if (plan.runtimeFrom) log.info(`runtime ${plan.runtime}: ${plan.runtimeFrom}`);

  const events = renderCompareEvents(process.stderr, { budgetS: plan.sampling.maxTimeS });
  if (profile) checkProfiler(plan.runtime);
  const outcome = await runCompare(store, events.onEvent, { profile }).finally(events.done);
  const { timing } = outcome;
  const measured = { ...outcome.result, settings: resultSettings(plan) };
  const result = rule ? { ...measured, gate: decideGate(measured.rows, rule) } : measured;
  // One analysis of the result, each format rendered from it at most once.
  const render = renderer(analyzeResult(result), { color: colorFor(tableStream(targets)), dirtyStated: true, verbose: flags.verbose });
  const json = render("json");
  const resultFile = join(store.dir, "result.json");
  inRunFolder(store.dir, resultFile, () => writeFileAtomic(resultFile, json));
  const markdown = render("markdown");
  writeReport({ ...fileTexts(targets, render), table: `${render("term")}\n`, json }, targets, resultFile);
  if (result.profile?.files) log.info(`profiles: ${result.profile.files.base} (base) · ${result.profile.files.head} (head)`);
  else if (result.profile && !result.rows.some((row) => row.profile))
    log.info("--profile: no row has a verdict of slower or faster, so none was profiled (--profile all profiles every row)");
  if (writeJobSummary(markdown)) log.info("report added to the job summary");
  if (commentTarget) await postComment(commentTarget, COMMENT_MARKER, markdown, store.dir);
  // Every output is written (and the comment posted) before the gate decides the exit status.
  if (result.gate) writeStepOutput("outcome", result.gate.outcome);
  const measuring = result.rounds.measuredS !== undefined ? `, ${result.rounds.measuredS.toFixed(1)} s of it measuring` : "";
  log.info(`took ${(timing.wallMs / 1000).toFixed(1)} s${measuring} (${(timing.childMs / 1000).toFixed(1)} s in bench processes)`);
  const failures = failureLines(result.rows);
  for (const line of failures) printError(line);
  // A shard that drew no files (fewer files than shards) measured nothing, and that is fine.
  const empty = result.shard && result.rows.length === 0 ? undefined : nothingCompared(result.rows);
  if (empty && failures.length === 0) printError(empty);
  const bisecting = !!result.gate && bisectInProgress(plan.repo);
  const status = exitStatus({ gate: result.gate, notMeasured: failures.length > 0 || !!empty, bisecting });
  return status === EXIT_BISECT_SKIP ? sayBisectSkip() : status;
}

/**
 * Posts (or updates) the sticky comment, named with its elapsed time while it waits on the
 * API; a Ctrl-C while a request hangs says what was stopped and that the report is written.
 */
async function postComment(target: PullRequestTarget, marker: string, markdown: string, runDir?: string): Promise<void> {
  const ticker = createTicker();
  const onSignal = (signal: string) => {
    ticker.stop();
    const again = runDir ? ` (xbench compare --resume ${runDir} posts it again)` : "";
    log.warn(`${signal}: stopped while posting the PR comment; the report is written${again}`);
  };
  ticker.start("posting the PR comment");
  const how = await withCleanup(onSignal, () => upsertComment(target, marker, markdown)).finally(ticker.stop);
  log.info(`PR comment ${how}`);
}

/** Says why the status is git's "skip", which a reader of the log would not guess. */
function sayBisectSkip(): number {
  log.info(`git bisect in progress: exit ${EXIT_BISECT_SKIP}, this commit cannot be judged (skip)`);
  return EXIT_BISECT_SKIP;
}

/** Flags of a bench-file compare that mean nothing to a suite. */
const BENCH_FILE_FLAGS: CompareFlag[] = ["--resume", "--profile", "--fail-on", "--fail-above", "--html", ...BENCH_RUN_FLAGS];

/**
 * `compare --suite tracer`: base's and head's helpers, each built from its own side, as the
 * base and head arms of the tracer-overhead suite. `--rounds` sets its iterations. Report only:
 * the exit code never depends on the numbers (no gate); `--comment` keeps a sticky comment of its own
 * (a marker apart from the bench-file compare's, so a pull request can carry both).
 */
async function compareTracerSuite(flags: CompareFlags, filter: string | undefined, given: CompareFlag[]): Promise<number> {
  const clash = given.find((flag) => BENCH_FILE_FLAGS.includes(flag));
  if (clash) throw usageError(`--suite tracer does not take ${clash}`);
  if (filter) throw usageError("--suite tracer runs its own rows; drop the filter");
  // Fail before measuring anything when a report could never be written or the comment posted.
  const targets = fileTargets(flags);
  checkOutputTargets(targets);
  const commentTarget = flags.comment ? pullRequestTarget() : undefined;
  const sides = resolveRevisions({ cwd: process.cwd(), base: flags.base || undefined, head: flags.head || undefined });
  const iterations = flags.rounds ?? DEFAULT_ITERATIONS;
  log.info(`base ${sides.base.sha.slice(0, 12)} (${sides.base.ref}) · head ${sides.head.sha.slice(0, 12)} (${headLabel(sides.head)})`);
  const events = renderCompareEvents();
  const result = await withSideHelpers(
    { ...sides, headRef: flags.head || undefined },
    (helpers) => runTracerBenchWithProgress({ headHelperDir: helpers.head, baseHelperDir: helpers.base, iterations }),
    events.onEvent,
  );
  // The markdown file, the job summary and the comment are one text, naming both commits.
  const markdown = renderTracerMarkdown([result], {
    base: sides.base.sha.slice(0, 12),
    head: `${sides.head.sha.slice(0, 12)}${sides.head.dirty ? " (dirty)" : ""}`,
  });
  writeReport({ table: renderTracerTerminal(result), json: prettyJson(result), markdown }, targets);
  if (writeJobSummary(markdown)) log.info("report added to the job summary");
  if (commentTarget) await postComment(commentTarget, TRACER_COMMENT_MARKER, markdown);
  return 0;
}
