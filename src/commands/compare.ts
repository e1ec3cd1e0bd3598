import { writeFileSync } from "node:fs";
import { defineCommand } from "citty";
import { join, resolve } from "pathe";
import { EXIT_STATUS, usageError } from "../errors.ts";
import { log } from "../output/log.ts";
import { renderCompareEvents } from "../output/compare-events.ts";
import { printError } from "../output/errors.ts";
import { flagValues, givenFlag, parsePercent, parsePositiveInt, parsePositiveNumber } from "./flags.ts";
import { pullRequestTarget, upsertComment, writeJobSummary } from "../compare/github.ts";
import {
  DEFAULT_MAX_TIME_S,
  DEFAULT_SIDE_TIME_MS,
  DEFAULT_TARGET,
  MAX_ROUNDS,
  MIN_ROUNDS,
  headLabel,
  makePlan,
  newRunDir,
  resolveRevisions,
} from "../compare/plan.ts";
import type { SamplingRule } from "../compare/store.ts";
import { withSideHelpers } from "../compare/tracer-suite.ts";
import {
  DEFAULT_ITERATIONS,
  MARKDOWN_MARKER as TRACER_COMMENT_MARKER,
  renderMarkdown as renderTracerMarkdown,
  renderTerminal as renderTracerTerminal,
} from "../suites/tracer/index.ts";
import { runTracerBenchWithProgress } from "../output/tracer-progress.ts";
import { checkOutputTargets, jsonTakesStdout, prettyJson, writeReport, type OutputTargets } from "../output/writer.ts";
import { runCompare } from "../compare/engine.ts";
import { createStore, openStore, type RunStore } from "../compare/store.ts";
import { failureLines, nothingCompared } from "../report/analyze.ts";
import { renderJson } from "../report/json.ts";
import { requireBundler } from "../runner/bundle.ts";
import { COMMENT_MARKER, renderMarkdown } from "../report/markdown.ts";
import { renderTerminal } from "../report/terminal.ts";
import { RUNTIMES, type Runtime } from "../model/result.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";

function parseRounds(value: unknown): number {
  const rounds = parsePositiveInt("rounds", value, MIN_ROUNDS);
  if (rounds > MAX_ROUNDS) throw usageError(`--rounds must be at most ${MAX_ROUNDS} (got ${rounds}); narrow the benchmarks instead`);
  return rounds;
}

/** `10 rounds`, or `6+ rounds until ±1.0% or 120 s`. */
function describeSampling(rule: SamplingRule): string {
  if (rule.targetHalfWidth === undefined) return `${rule.minRounds} rounds`;
  return `${rule.minRounds}+ rounds until every interval is within ±${(rule.targetHalfWidth * 100).toFixed(1)}% or ${rule.maxTimeS} s of bench processes`;
}

/** `--json` and `--markdown` as given (citty leaves unset strings undefined). */
function outputTargets(args: { json?: unknown; markdown?: unknown }): OutputTargets {
  return { json: args.json ? String(args.json) : undefined, markdown: args.markdown ? String(args.markdown) : undefined };
}

/** Flags that set up a bench-file run and stay fixed for its life; a suite takes none of them. */
const BENCH_RUN_FLAGS = [
  "--bench",
  "--target",
  "--max-time",
  "--isolate",
  "--runtime",
  "--build",
  "--install",
  "--timeout",
  "--time",
  "--holm",
  "--min-effect",
];

/** Flags that shape a run; a resumed run keeps its own. */
const PLAN_FLAGS = ["--base", "--head", "--rounds", ...BENCH_RUN_FLAGS];

export const compareCommand = defineCommand({
  meta: {
    name: "compare",
    description:
      "Benchmark the merge-base against the working tree, both sides alternating in each bench process, with a paired 95% CI per row",
  },
  args: {
    filter: { type: "positional", required: false, description: "Substring or glob that narrows the bench files" },
    bench: {
      type: "string",
      valueHint: "PATH|GLOB",
      description: 'Bench file or glob, repeatable (default: package.json "xbench": { "bench": [...] }, else **/*.bench.{ts,js,mts,mjs})',
    },
    base: { type: "string", valueHint: "REF", description: "Base ref (default: merge-base of HEAD with origin/main, main or master)" },
    head: { type: "string", valueHint: "REF", description: "Head ref (default: the working tree, uncommitted edits included)" },
    rounds: {
      type: "string",
      valueHint: "N",
      description: `Run exactly N rounds (${MIN_ROUNDS} to ${MAX_ROUNDS}, rounded up to whole cycles); with --target or --max-time, the minimum`,
    },
    target: {
      type: "string",
      valueHint: "PCT",
      description: `Add rounds until every row's 95% interval is within ±PCT percent of its delta (default: ${DEFAULT_TARGET * 100})`,
    },
    "max-time": {
      type: "string",
      valueHint: "S",
      description: `Stop adding rounds after S seconds of bench processes, however wide (default: ${DEFAULT_MAX_TIME_S})`,
    },
    isolate: { type: "boolean", description: "One side per bench process instead of both sides alternating in one process" },
    runtime: { type: "enum", options: [...RUNTIMES], description: "Runtime for the bench processes", default: "node" },
    build: { type: "string", valueHint: "CMD", description: "Command run once per side before any timing" },
    install: { type: "boolean", description: "Install dependencies per side instead of linking head's node_modules" },
    timeout: { type: "string", valueHint: "S", description: "Seconds one bench process may run before it is killed", default: "600" },
    time: {
      type: "string",
      valueHint: "MS",
      description: `Sampling time per benchmark and side in each bench process, in ms (default: ${DEFAULT_SIDE_TIME_MS})`,
    },
    json: { type: "string", valueHint: "FILE", description: "Write the result (JSON schema with raw rounds) to FILE, - for stdout" },
    markdown: { type: "string", valueHint: "FILE", description: "Write the markdown report to FILE" },
    comment: { type: "boolean", description: "On GitHub Actions, create or update one sticky PR comment" },
    holm: { type: "boolean", description: "Holm-correct the intervals across rows" },
    "min-effect": {
      type: "string",
      valueHint: "PCT",
      description: `A row whose 95% interval lies within ±PCT percent reads "same": no change beyond it (default: ${DEFAULT_MIN_EFFECT * 100})`,
    },
    resume: { type: "string", valueHint: "DIR", description: "Continue an interrupted run from its run folder" },
    suite: {
      type: "enum",
      options: ["tracer"],
      description: "Instead of bench files, run a built-in suite with each side's own build (tracer: xbench's helpers)",
    },
  },
  async run({ args, rawArgs }) {
    if (args.suite === "tracer") return compareTracerSuite(args, rawArgs);
    requireBundler();
    // Fail before measuring anything when a report could never be written or the comment posted.
    const targets = outputTargets(args);
    checkOutputTargets(targets);
    const commentTarget = args.comment ? pullRequestTarget() : undefined;
    let store: RunStore;
    if (args.resume) {
      const clash = givenFlag(rawArgs, PLAN_FLAGS);
      if (clash) throw usageError(`--resume continues a run with its own settings; drop ${clash}`);
      if (args.filter) throw usageError("--resume continues a run with its own bench files; drop the filter");
      store = openStore(resolve(String(args.resume)));
      log.info(`resuming ${store.dir}: ${store.records.length} bench processes already measured`);
    } else {
      const plan = makePlan({
        cwd: process.cwd(),
        filter: args.filter ? String(args.filter) : undefined,
        bench: flagValues(rawArgs, "--bench"),
        base: args.base ? String(args.base) : undefined,
        head: args.head ? String(args.head) : undefined,
        rounds: args.rounds !== undefined ? parseRounds(args.rounds) : undefined,
        targetHalfWidth: args.target !== undefined ? parsePositiveNumber("target", args.target) / 100 : undefined,
        maxTimeS: args["max-time"] !== undefined ? parsePositiveNumber("max-time", args["max-time"]) : undefined,
        isolate: !!args.isolate,
        runtime: args.runtime as Runtime,
        build: args.build ? String(args.build) : undefined,
        install: !!args.install,
        timeoutS: parsePositiveNumber("timeout", args.timeout),
        sideTimeMs: args.time !== undefined ? parsePositiveNumber("time", args.time) : undefined,
        holm: !!args.holm,
        minEffect: args["min-effect"] !== undefined ? parsePercent("min-effect", args["min-effect"]) : undefined,
      });
      store = createStore(newRunDir(plan.repo), plan);
    }
    const { plan } = store;
    log.info(`base ${plan.base.sha.slice(0, 12)} (${plan.base.ref}) · head ${plan.head.sha.slice(0, 12)} (${headLabel(plan.head)})`);
    log.info(`${plan.files.length} bench file(s) · ${describeSampling(plan.sampling)} · runtime ${plan.runtime} · run folder ${store.dir}`);

    const events = renderCompareEvents();
    const { result, timing } = await runCompare(store, events.onEvent).finally(events.done);
    const json = renderJson(result);
    writeFileSync(join(store.dir, "result.json"), json);
    const markdown = renderMarkdown(result);
    const table = renderTerminal(result, { color: !jsonTakesStdout(targets) && !!process.stdout.isTTY, dirtyStated: true });
    writeReport({ table: `${table}\n`, json, markdown }, targets);
    if (writeJobSummary(markdown)) log.info("report added to the job summary");
    if (commentTarget) {
      const how = await upsertComment(commentTarget, COMMENT_MARKER, markdown);
      log.info(`PR comment ${how}`);
    }
    const share = timing.wallMs > 0 ? (1 - timing.childMs / timing.wallMs) * 100 : 0;
    log.info(`took ${(timing.wallMs / 1000).toFixed(1)} s, ${share.toFixed(1)}% of it outside bench processes`);
    const failures = failureLines(result.rows);
    for (const line of failures) printError(line);
    const empty = nothingCompared(result.rows);
    if (empty && failures.length === 0) printError(empty);
    return failures.length > 0 || empty ? EXIT_STATUS.failure : 0;
  },
});

/** Flags of a bench-file compare that mean nothing to a suite. */
const BENCH_FILE_FLAGS = ["--resume", ...BENCH_RUN_FLAGS];

/**
 * `compare --suite tracer`: base's and head's helpers, each built from its own side, as the
 * base and head arms of the tracer-overhead suite. `--rounds` sets its iterations. Report only:
 * the exit code never depends on the numbers; `--comment` keeps a sticky comment of its own
 * (a marker apart from the bench-file compare's, so a pull request can carry both).
 */
async function compareTracerSuite(args: Record<string, unknown>, rawArgs: string[]): Promise<number> {
  const clash = givenFlag(rawArgs, BENCH_FILE_FLAGS);
  if (clash) throw usageError(`--suite tracer does not take ${clash}`);
  if (args.filter) throw usageError("--suite tracer runs its own rows; drop the filter");
  // Fail before measuring anything when a report could never be written or the comment posted.
  const targets = outputTargets(args);
  checkOutputTargets(targets);
  const commentTarget = args.comment ? pullRequestTarget() : undefined;
  const sides = resolveRevisions({
    cwd: process.cwd(),
    base: args.base ? String(args.base) : undefined,
    head: args.head ? String(args.head) : undefined,
  });
  const roundsGiven = givenFlag(rawArgs, ["--rounds"]) !== undefined;
  const iterations = roundsGiven ? parsePositiveInt("rounds", args.rounds, 1) : DEFAULT_ITERATIONS;
  log.info(`base ${sides.base.sha.slice(0, 12)} (${sides.base.ref}) · head ${sides.head.sha.slice(0, 12)} (${headLabel(sides.head)})`);
  const events = renderCompareEvents();
  const result = await withSideHelpers(
    { ...sides, headRef: args.head ? String(args.head) : undefined },
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
  if (commentTarget) log.info(`PR comment ${await upsertComment(commentTarget, TRACER_COMMENT_MARKER, markdown)}`);
  return 0;
}
