import { defineCommand } from "citty";
import { usageError } from "../errors.ts";
import { planBisect, runBisect } from "../compare/bisect.ts";
import { MAX_ROUNDS, MIN_ROUNDS } from "../compare/plan.ts";
import { renderBisectMarkdown, renderBisectTerminal, stepLine } from "../output/bisect-report.ts";
import { renderCompareEvents } from "../output/compare-events.ts";
import { log } from "../output/log.ts";
import { checkOutputTargets, prettyJson, writeReport } from "../output/writer.ts";
import { RUNTIMES, type Runtime } from "../model/result.ts";
import { requireBundler } from "../runner/bundle.ts";
import { flagValues, parseDuration, parsePercent, parsePositiveInt } from "./flags.ts";

const DEFAULT_STEP_ROUNDS = 6;
const DEFAULT_MAX_ROUNDS = 24;

/** `bisect` exits 0 when it names a commit or a range, 1 when --bad is not confidently slower (nothing to find). */
const EXIT_NOTHING_FOUND = 1;

export const bisectCommand = defineCommand({
  meta: {
    name: "bisect",
    description:
      "Find the first commit from --good to --bad (first-parent) at which a row became more than PCT slower than at --good, by duet compares in worktrees",
  },
  args: {
    filter: { type: "positional", required: false, description: "Substring or glob that narrows the bench files" },
    good: { type: "string", valueHint: "REF", description: "A commit that is not slower: every step compares against it" },
    bad: { type: "string", valueHint: "REF", description: "A commit that is slower (default: HEAD)" },
    above: {
      type: "string",
      valueHint: "PCT",
      description: "A step is bad when a row's 95% interval lies wholly above +PCT%, good when wholly below",
    },
    bench: {
      type: "string",
      valueHint: "PATH|GLOB",
      description: "Bench file or glob, repeatable, as for compare; every commit runs --bad's bench files",
    },
    rounds: { type: "string", valueHint: "N", description: `Rounds of each step (default: ${DEFAULT_STEP_ROUNDS})` },
    "max-rounds": {
      type: "string",
      valueHint: "N",
      description: `An undecided step doubles its rounds up to N, then is skipped (default: ${DEFAULT_MAX_ROUNDS})`,
    },
    runtime: { type: "enum", options: [...RUNTIMES], description: "Runtime for the bench processes", default: "node" },
    build: { type: "string", valueHint: "CMD", description: "Command run once per commit before any timing" },
    install: { type: "boolean", description: "Install dependencies per commit instead of linking the repository's node_modules" },
    isolate: { type: "boolean", description: "One side per bench process instead of both sides alternating in one" },
    holm: { type: "boolean", description: "Holm-correct the intervals across rows" },
    timeout: { type: "string", valueHint: "S", description: "Seconds one bench process may run before it is killed", default: "600" },
    time: { type: "string", valueHint: "MS", description: "Sampling time per benchmark and side in each bench process, in ms" },
    json: { type: "string", valueHint: "FILE", description: "Write the steps and the ending as JSON to FILE, - for stdout" },
    markdown: { type: "string", valueHint: "FILE", description: "Write the steps and the ending as markdown to FILE" },
  },
  async run({ args, rawArgs }) {
    requireBundler();
    if (!args.good) throw usageError("bisect needs --good REF: a commit that is not slower", true);
    if (args.above === undefined) throw usageError("bisect needs --above PCT: how much slower makes a commit bad", true);
    const targets = { json: args.json ? String(args.json) : undefined, markdown: args.markdown ? String(args.markdown) : undefined };
    checkOutputTargets(targets);
    const rounds = parsePositiveInt("rounds", args.rounds ?? DEFAULT_STEP_ROUNDS, MIN_ROUNDS);
    const maxRounds = parsePositiveInt("max-rounds", args["max-rounds"] ?? Math.max(DEFAULT_MAX_ROUNDS, rounds), rounds);
    if (maxRounds > MAX_ROUNDS) throw usageError(`--max-rounds must be at most ${MAX_ROUNDS} (got ${maxRounds})`);
    const plan = planBisect({
      cwd: process.cwd(),
      good: String(args.good),
      bad: args.bad ? String(args.bad) : undefined,
      above: parsePercent("above", args.above) / 100,
      filter: args.filter ? String(args.filter) : undefined,
      bench: flagValues(rawArgs, "--bench"),
      rounds,
      maxRounds,
      runtime: args.runtime as Runtime,
      build: args.build ? String(args.build) : undefined,
      install: !!args.install,
      isolate: !!args.isolate,
      holm: !!args.holm,
      timeoutS: parseDuration("timeout", args.timeout, "s"),
      sideTimeMs: args.time !== undefined ? parseDuration("time", args.time, "ms") : undefined,
    });
    const last = plan.path.length - 1;
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
