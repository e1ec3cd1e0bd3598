import { defineCommand } from "../args/define.ts";
import { percent, positiveInt } from "../args/values.ts";
import { RUN_FLAGS, TIME_FLAGS } from "./flags.ts";
import { usageError } from "../errors.ts";
import { planBisect, runBisect } from "../compare/bisect/bisect.ts";
import { MAX_ROUNDS, MIN_ROUNDS } from "../compare/plan.ts";
import { renderBisectMarkdown, renderBisectTerminal, stepLine } from "../output/bisect-report.ts";
import { renderCompareEvents } from "../output/compare-events.ts";
import { log } from "../output/log.ts";
import { checkOutputTargets, prettyJson, writeReport } from "../output/writer.ts";
import { requireBundler } from "../runner/bundle.ts";
import { checkRuntime } from "../runner/runtimes.ts";
import { readyHelpers } from "../output/helper-cache.ts";
import { checkCounting, countMeasure } from "../runner/valgrind.ts";

const DEFAULT_STEP_ROUNDS = 6;
const DEFAULT_MAX_ROUNDS = 24;

/** `bisect` exits 0 when it names a commit or a range, 1 when --bad is not confidently slower (or faster): nothing to find. */
const EXIT_NOTHING_FOUND = 1;

export const bisectCommand = defineCommand({
  meta: {
    name: "bisect",
    description:
      "Find the first commit from --good to --bad (first-parent) at which a row became more than PCT slower (or with --faster, faster) than at --good, by duet compares in worktrees",
  },
  args: {
    filter: { type: "positional", required: false, description: "Substring or glob that narrows the bench files" },
    good: { type: "string", valueHint: "REF", description: "A commit that is not slower: every step compares against it" },
    bad: { type: "string", valueHint: "REF", description: "A commit that is slower (default: HEAD)" },
    above: {
      type: "string",
      valueHint: "PCT",
      description: "A step is bad when a row's 95% interval lies wholly above +PCT%, good when wholly below",
      parse: percent,
    },
    faster: {
      type: "string",
      valueHint: "PCT",
      description: "Instead of --above: find the first commit at which a row became more than PCT% faster than at --good",
      parse: percent,
    },
    bench: {
      type: "string",
      valueHint: "PATH|GLOB",
      description: "Bench file or glob, repeatable, as for compare; every commit runs --bad's bench files",
      repeatable: true,
    },
    rounds: {
      type: "string",
      valueHint: "N",
      description: "Rounds of each step",
      default: String(DEFAULT_STEP_ROUNDS),
      parse: positiveInt(MIN_ROUNDS),
    },
    "max-rounds": {
      type: "string",
      valueHint: "N",
      description: `An undecided step doubles its rounds up to N, then is skipped (default: ${DEFAULT_MAX_ROUNDS})`,
      parse: positiveInt(1),
    },
    runtime: RUN_FLAGS.runtime,
    measure: RUN_FLAGS.measure,
    build: { type: "string", valueHint: "CMD", description: "Command run once per commit before any timing" },
    install: { type: "boolean", description: "Install dependencies per commit instead of linking the repository's node_modules" },
    isolate: { type: "boolean", description: "One side per bench process instead of both sides alternating in one" },
    holm: { type: "boolean", description: "Holm-correct the intervals across rows" },
    ...TIME_FLAGS,
    json: { type: "string", path: "file", description: "Write the steps and the ending as JSON to FILE, - for stdout" },
    markdown: { type: "string", path: "file", description: "Write the steps and the ending as markdown to FILE" },
  },
  exitStatuses: [
    "0    a first bad commit, or the smallest range of commits holding it, was found",
    "1    --bad is not confidently more than PCT slower (faster) than --good: nothing to find (or xbench itself failed)",
    "2    bad input: a flag, a ref, --good not a first-parent ancestor of --bad; a step that measured nothing against --good or at --bad",
    "130  interrupted (Ctrl-C); worktrees and bundles are removed",
  ],
  examples: [
    "xbench bisect --good v1.2.0 --above 10          # the first commit since v1.2.0 >10% slower",
    "xbench bisect --good main~40 --bad main --above 5 parse --markdown bisect.md",
    "xbench bisect --good v1.2.0 --faster 20          # the first commit since v1.2.0 >20% faster",
  ],
  async run({ flags, positionals: [filter] }) {
    requireBundler();
    readyHelpers();
    if (!flags.good) throw usageError("bisect needs --good REF: a commit that is not slower", true);
    if (flags.above !== undefined && flags.faster !== undefined) throw usageError("bisect takes --above or --faster, not both");
    if (flags.above === undefined && flags.faster === undefined)
      throw usageError("bisect needs --above PCT: how much slower makes a commit bad (or --faster PCT)", true);
    const targets = { json: flags.json || undefined, markdown: flags.markdown || undefined };
    checkOutputTargets(targets);
    const counted = countMeasure(flags.measure);
    const valgrind = counted ? checkCounting(counted) : undefined;
    const { rounds } = flags;
    const maxRounds = flags["max-rounds"] ?? Math.max(DEFAULT_MAX_ROUNDS, rounds);
    if (maxRounds < rounds) throw usageError(`--max-rounds must be an integer of at least ${rounds} (got ${maxRounds})`);
    if (maxRounds > MAX_ROUNDS) throw usageError(`--max-rounds must be at most ${MAX_ROUNDS} (got ${maxRounds})`);
    const plan = planBisect({
      cwd: process.cwd(),
      good: flags.good,
      bad: flags.bad || undefined,
      above: (flags.above ?? flags.faster)! / 100,
      direction: flags.faster !== undefined ? "faster" : "slower",
      filter: filter || undefined,
      bench: flags.bench,
      rounds,
      maxRounds,
      runtime: flags.runtime,
      measure: flags.measure,
      ...(valgrind ? { valgrind } : {}),
      build: flags.build || undefined,
      install: flags.install,
      isolate: flags.isolate,
      holm: flags.holm,
      timeoutS: flags.timeout,
      sideTimeMs: flags.time,
    });
    const last = plan.path.length - 1;
    // A runtime that cannot start is one line now, not a step that measured nothing.
    await checkRuntime(plan.compare.runtime, plan.compare.repo);
    log.info(
      `good ${plan.good.sha.slice(0, 12)} (${plan.good.ref}) · bad ${plan.bad.sha.slice(0, 12)} (${plan.bad.ref}) · ${last} commits on the first-parent path`,
    );
    log.info(`${plan.compare.files.length} bench file(s) from --bad · ${rounds} rounds a step, up to ${maxRounds} when undecided`);
    // Steps are the result, so they go where the report goes: stdout, unless --json - takes it.
    const out = targets.json === "-" ? process.stderr : process.stdout;
    const events = renderCompareEvents();
    const result = await runBisect(
      plan,
      (step) => {
        events.done();
        out.write(`${stepLine(step, last)}\n`);
      },
      events.onEvent,
    ).finally(events.done);
    writeReport({ table: renderBisectTerminal(result), json: prettyJson(result), markdown: renderBisectMarkdown(result) }, targets);
    return result.conclusion.kind === "not-bad" ? EXIT_NOTHING_FOUND : 0;
  },
});
