import { resolve } from "pathe";
import { defineCommand } from "../args/define.ts";
import type { Flags, FlagValues } from "../args/types.ts";
import { minEffect, positiveInt } from "../args/values.ts";
import { RUN_FLAGS, runSettings, TIME_FLAGS } from "./flags.ts";
import { usageError, XbenchError } from "../errors.ts";
import { isShallowEdge, repoRoot, resolveCommit, tryResolveCommit } from "../git/git.ts";
import { ENTRY_SCHEMA, ENTRY_VERSION, type HistoryEntry } from "../history/entry.ts";
import { checkHistoryRef, fetchHistory, HISTORY_REF, pushHistory, readHistory, storeEntry } from "../history/store.ts";
import { runCompare } from "../compare/engine.ts";
import { makePlan, MAX_ROUNDS, MIN_ROUNDS, newRunDir } from "../compare/plan.ts";
import { resultSettings } from "../compare/shard.ts";
import { SideSetupError } from "../compare/sides/prepare.ts";
import { createStore, openStore, type RunPlan, type RunStore } from "../compare/run/store.ts";
import { renderCompareEvents } from "../output/compare-events.ts";
import { printError } from "../output/errors.ts";
import { readyHelpers } from "../output/helper-cache.ts";
import { log } from "../output/log.ts";
import { failureLines, nothingCompared } from "../report/row-stats.ts";
import { summaryLine } from "../report/text.ts";
import { requireBundler } from "../runner/bundle.ts";
import { checkRuntime } from "../runner/runtimes.ts";
import { checkCounting, countMeasure } from "../runner/valgrind.ts";

/** A benchmark failed or nothing was measured: the entry is stored, its rows are gaps (README's exit table). */
const EXIT_NOT_MEASURED = 3;

/** history record's flags, one line each (src/args/types.ts says what each field does). */
const RECORD_FLAGS = {
  commit: { type: "string", valueHint: "REF", description: "The commit to record (default: HEAD)" },
  push: {
    type: "string",
    valueHint: "REMOTE",
    description: "Fetch REMOTE's history first, then push the entry to it; a push another recorder won is merged and retried",
  },
  resume: {
    type: "string",
    path: "dir",
    description: "Continue an interrupted (or unstored) record from its run folder, then store its entry",
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
  measure: RUN_FLAGS.measure,
  build: RUN_FLAGS.build,
  install: { type: "boolean", description: "Install dependencies per side instead of linking the repository's node_modules" },
  ...TIME_FLAGS,
  "min-effect": { type: "string", valueHint: "PCT", description: "The stored result's minimum effect, as for compare", parse: minEffect },
} as const satisfies Flags;

type RecordFlags = FlagValues<typeof RECORD_FLAGS>;

export const historyRecordCommand = defineCommand({
  meta: {
    name: "record",
    description:
      "Compare a commit (default HEAD) against its first parent, as compare does (unchanged code skipped), and store the result under refs/xbench/history; --push sends it to a remote",
  },
  args: {
    filter: { type: "positional", required: false, description: "Substring or glob that narrows the bench files" },
    ...RECORD_FLAGS,
  },
  exitStatuses: [
    "0    recorded (and pushed)",
    "1    the compare failed (a build, an install): the failure is recorded, a gap in the history; or git failed",
    "2    bad input: a flag, a ref, a commit without a parent, no bench files",
    "3    recorded, but a benchmark failed or nothing was measured: those rows are gaps",
    "130  interrupted (Ctrl-C); nothing is recorded, --resume DIR continues",
  ],
  examples: [
    "xbench history record                           # HEAD against HEAD^ into refs/xbench/history",
    "xbench history record --push origin             # and push it (what the GitHub Action runs on main)",
    "xbench history record --commit main~3 --max-time 300",
  ],
  async run({ flags, positionals: [filter], given }) {
    requireBundler();
    readyHelpers();
    const root = repoRoot(process.cwd());
    // A ref that is no history is said now, not after the compare has run.
    checkHistoryRef(root);
    const store = flags.resume ? await reopenRecord(flags.resume, filter, given) : await newRecord(root, flags, filter);
    const { plan } = store;
    const commit = plan.head.sha;
    const parent = plan.base.sha;
    if (flags.push && fetchHistory(root, flags.push)) log.info(`merged ${flags.push}'s ${HISTORY_REF}`);
    log.info(`recording ${commit.slice(0, 12)} against its parent ${parent.slice(0, 12)} · ${plan.files.length} bench file(s)`);
    const entry = await nothingRecorded(commit, () => measure(store, commit, parent));
    const kept = entry.result ? undefined : measuredEntry(root, commit);
    if (kept) {
      // A failed recording is no better answer than a measured one: the measured entry stays.
      printError(`the compare failed: ${entry.error}`);
      printError(`nothing recorded: ${HISTORY_REF} keeps the measured entry of ${commit.slice(0, 12)} (recorded ${kept.recordedAt})`);
      return 1;
    }
    storeOrSay(root, entry, store.dir);
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

/** A record's run folder, planned from the flags: the commit as head, its first parent as base. */
async function newRecord(root: string, flags: RecordFlags, filter: string | undefined): Promise<RunStore> {
  if (flags.rounds !== undefined && flags.rounds > MAX_ROUNDS)
    throw usageError(`--rounds must be at most ${MAX_ROUNDS} (got ${flags.rounds})`);
  const counted = countMeasure(flags.measure);
  const valgrind = counted ? checkCounting(counted) : undefined;
  const commit = resolveCommit(root, flags.commit ?? "HEAD", "--commit");
  const parent = tryResolveCommit(root, `${commit}^1`);
  if (!parent) throw noParent(root, commit);
  const plan: RunPlan = {
    ...makePlan({
      cwd: root,
      filter: filter || undefined,
      bench: flags.bench,
      base: parent,
      head: commit,
      rounds: flags.rounds,
      ...runSettings(flags),
      holm: false,
      ...(valgrind ? { valgrind } : {}),
    }),
    record: true,
  };
  await checkRuntime(plan.runtime, plan.repo, plan.runtimeFrom);
  return createStore(newRunDir(plan.repo), plan);
}

/** A record's run folder reopened (`--resume`): its own settings, commit and parent. */
async function reopenRecord(dir: string, filter: string | undefined, given: readonly string[]): Promise<RunStore> {
  const clash = given.find((flag) => flag !== "--resume" && flag !== "--push");
  if (clash) throw usageError(`--resume records a run with its own settings; drop ${clash}`);
  if (filter) throw usageError("--resume records a run with its own bench files; drop the filter");
  const store = openStore(resolve(dir));
  if (!store.plan.record)
    throw usageError(
      `${store.dir} is a compare's run folder, not a history record's: continue it with xbench compare --resume ${store.dir}`,
    );
  const counted = countMeasure(store.plan.measure);
  if (counted) checkCounting(counted);
  await checkRuntime(store.plan.runtime, store.plan.repo);
  log.info(`resuming ${store.dir}: ${store.records.length} bench processes already measured`);
  return store;
}

/** Why a commit has no parent to be compared against: the first commit, or the edge of a shallow clone. */
function noParent(root: string, commit: string): XbenchError {
  if (isShallowEdge(root, commit))
    return usageError(
      `${commit.slice(0, 12)}'s parent is not in this clone (it is shallow, cut at ${commit.slice(0, 12)}): fetch it with git fetch --deepen=1, or all of the history with git fetch --unshallow`,
    );
  return usageError(`${commit.slice(0, 12)} has no parent: the first commit has nothing to be compared against`);
}

/**
 * Runs `work`; a failure of xbench's own (not the commit's: that becomes an entry) says that
 * nothing was recorded, since the entry already there stays as it was.
 */
async function nothingRecorded<T>(commit: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof XbenchError && error.kind === "failure")
      throw new XbenchError(`nothing recorded for ${commit.slice(0, 12)}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** The entry of `commit` already in the history when it holds a measured result; else undefined. */
function measuredEntry(root: string, commit: string): HistoryEntry | undefined {
  try {
    const stored = readHistory(root).get(commit);
    return stored?.result ? stored : undefined;
  } catch {
    return undefined; // an unreadable history is the store's to report
  }
}

/** Stores the entry; a git that cannot (a full disk) says nothing was recorded and how to store the saved rounds. */
function storeOrSay(root: string, entry: HistoryEntry, runDir: string): void {
  try {
    storeEntry(root, entry);
  } catch (error) {
    if (!(error instanceof XbenchError) || error.kind !== "failure") throw error;
    throw new XbenchError(
      `nothing recorded for ${entry.commit.slice(0, 12)}: ${error.message}. The measured rounds are saved; once git can write again, store them with: xbench history record --resume ${runDir}`,
      { cause: error },
    );
  }
}

/**
 * The compare of the commit against its parent, as an entry; a compare whose side cannot be
 * installed or built becomes an entry saying why (the commit's answer, a gap). Any other
 * failure is xbench's own and is thrown: it says nothing about the commit.
 */
async function measure(store: RunStore, commit: string, parent: string): Promise<HistoryEntry> {
  const { plan } = store;
  const events = renderCompareEvents(process.stderr, { budgetS: plan.sampling.maxTimeS });
  const base = { schema: ENTRY_SCHEMA, schemaVersion: ENTRY_VERSION, commit, parent } as const;
  try {
    const { result } = await runCompare(store, events.onEvent).finally(events.done);
    return { ...base, recordedAt: new Date().toISOString(), result: { ...result, settings: resultSettings(plan) } };
  } catch (error) {
    // A build or an install that fails is this commit's answer (a gap); Ctrl-C, bad input and xbench's own failures are not.
    if (!(error instanceof SideSetupError)) throw error;
    return { ...base, recordedAt: new Date().toISOString(), error: error.message };
  }
}
