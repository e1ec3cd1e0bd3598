import { defineCommand } from "../args/define.ts";
import { minEffect, positiveInt } from "../args/values.ts";
import { RUN_FLAGS, runSettings, TIME_FLAGS } from "./flags.ts";
import { usageError, XbenchError } from "../errors.ts";
import { repoRoot, resolveCommit, tryResolveCommit } from "../git/git.ts";
import { ENTRY_SCHEMA, ENTRY_VERSION, type HistoryEntry } from "../history/entry.ts";
import { fetchHistory, HISTORY_REF, pushHistory, storeEntry } from "../history/store.ts";
import { runCompare } from "../compare/engine.ts";
import { makePlan, MAX_ROUNDS, MIN_ROUNDS, newRunDir } from "../compare/plan.ts";
import { resultSettings } from "../compare/shard.ts";
import { createStore } from "../compare/store.ts";
import { renderCompareEvents } from "../output/compare-events.ts";
import { printError } from "../output/errors.ts";
import { log } from "../output/log.ts";
import { failureLines, nothingCompared } from "../report/analyze.ts";
import { summaryLine } from "../report/format.ts";
import { requireBundler } from "../runner/bundle.ts";
import { checkRuntime } from "../runner/runtimes.ts";

/** A benchmark failed or nothing was measured: the entry is stored, its rows are gaps (README's exit table). */
const EXIT_NOT_MEASURED = 3;

export const historyRecordCommand = defineCommand({
  meta: {
    name: "record",
    description:
      "Compare a commit (default HEAD) against its first parent, as compare does (unchanged code skipped), and store the result under refs/xbench/history; --push sends it to a remote",
  },
  args: {
    filter: { type: "positional", required: false, description: "Substring or glob that narrows the bench files" },
    commit: { type: "string", valueHint: "REF", description: "The commit to record (default: HEAD)" },
    push: {
      type: "string",
      valueHint: "REMOTE",
      description: "Fetch REMOTE's history first, then push the entry to it; a push another recorder won is merged and retried",
    },
    bench: RUN_FLAGS.bench,
    all: RUN_FLAGS.all,
    rounds: {
      type: "string",
      valueHint: "N",
      description: `Run exactly N rounds (${MIN_ROUNDS} to ${MAX_ROUNDS}); with --target or --max-time, the minimum`,
      parse: positiveInt(MIN_ROUNDS, `a whole number from ${MIN_ROUNDS} to ${MAX_ROUNDS}`),
    },
    target: RUN_FLAGS.target,
    "max-time": RUN_FLAGS["max-time"],
    jobs: RUN_FLAGS.jobs,
    "files-per-process": RUN_FLAGS["files-per-process"],
    isolate: RUN_FLAGS.isolate,
    runtime: RUN_FLAGS.runtime,
    build: RUN_FLAGS.build,
    install: { type: "boolean", description: "Install dependencies per side instead of linking the repository's node_modules" },
    ...TIME_FLAGS,
    "min-effect": { type: "string", valueHint: "PCT", description: "The stored result's minimum effect, as for compare", parse: minEffect },
  },
  exitStatuses: [
    "0    recorded (and pushed)",
    "1    the compare failed (a build, an install): the failure is recorded, a gap in the history; or git failed",
    "2    bad input: a flag, a ref, a commit without a parent, no bench files",
    "3    recorded, but a benchmark failed or nothing was measured: those rows are gaps",
    "130  interrupted (Ctrl-C); nothing is recorded",
  ],
  examples: [
    "xbench history record                           # HEAD against HEAD^ into refs/xbench/history",
    "xbench history record --push origin             # and push it (what the GitHub Action runs on main)",
    "xbench history record --commit main~3 --max-time 300",
  ],
  async run({ flags, positionals: [filter] }) {
    requireBundler();
    if (flags.rounds !== undefined && flags.rounds > MAX_ROUNDS)
      throw usageError(`--rounds must be at most ${MAX_ROUNDS} (got ${flags.rounds})`);
    const root = repoRoot(process.cwd());
    const commit = resolveCommit(root, flags.commit ?? "HEAD", "--commit");
    const parent = tryResolveCommit(root, `${commit}^1`);
    if (!parent) throw usageError(`${commit.slice(0, 12)} has no parent: the first commit has nothing to be compared against`);
    if (flags.push && fetchHistory(root, flags.push)) log.info(`merged ${flags.push}'s ${HISTORY_REF}`);
    const plan = makePlan({
      cwd: root,
      filter: filter || undefined,
      bench: flags.bench,
      base: parent,
      head: commit,
      rounds: flags.rounds,
      ...runSettings(flags),
      holm: false,
    });
    await checkRuntime(plan.runtime, plan.repo, plan.runtimeFrom);
    log.info(`recording ${commit.slice(0, 12)} against its parent ${parent.slice(0, 12)} · ${plan.files.length} bench file(s)`);
    const entry = await measure(plan, commit, parent);
    storeEntry(root, entry);
    log.info(`recorded in ${HISTORY_REF}: ${entry.result ? summaryLine(entry.result.rows) : `failed: ${entry.error}`}`);
    if (flags.push) {
      const merges = pushHistory(root, flags.push);
      log.info(
        `pushed to ${flags.push}${merges > 0 ? ` (merged another recorder's push ${merges} time${merges === 1 ? "" : "s"} first)` : ""}`,
      );
    }
    if (!entry.result) {
      printError(`the compare failed: ${entry.error}`);
      return 1;
    }
    const failures = failureLines(entry.result.rows);
    for (const line of failures) printError(line);
    const empty = nothingCompared(entry.result.rows);
    if (empty && failures.length === 0) printError(empty);
    return failures.length > 0 || empty ? EXIT_NOT_MEASURED : 0;
  },
});

/** The compare of the commit against its parent, as an entry; a compare that fails becomes an entry saying why. */
async function measure(plan: ReturnType<typeof makePlan>, commit: string, parent: string): Promise<HistoryEntry> {
  const store = createStore(newRunDir(plan.repo), plan);
  const events = renderCompareEvents(process.stderr, { budgetS: plan.sampling.maxTimeS });
  const base = { schema: ENTRY_SCHEMA, schemaVersion: ENTRY_VERSION, commit, parent } as const;
  try {
    const { result } = await runCompare(store, events.onEvent).finally(events.done);
    return { ...base, recordedAt: new Date().toISOString(), result: { ...result, settings: resultSettings(plan) } };
  } catch (error) {
    // A build or an install that fails is this commit's answer (a gap); Ctrl-C and bad input are not.
    if (!(error instanceof XbenchError) || error.kind !== "failure") throw error;
    return { ...base, recordedAt: new Date().toISOString(), error: error.message };
  }
}
