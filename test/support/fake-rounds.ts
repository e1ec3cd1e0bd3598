/**
 * The rounds (src/compare/rounds/rounds.ts measureRounds) on a fake bench-process runner: each
 * process request is answered in-process with seeded synthetic values per row and side (base
 * 100 ns, head 110 ns, log-normal noise of the row's own spread), on a fake clock that a process
 * moves on by what it would have taken. What was asked is recorded: the file(s), the sides in
 * order, the rows, when it started and ended on the clock, and how many processes ran at once.
 * Fast and deterministic: no runtime, no bundle, no real time.
 */
import type { MeasuredFile, RoundsContext, RowSelection, RunProcess, RunShared } from "../../src/compare/rounds/rounds.ts";
import { measureRounds } from "../../src/compare/rounds/rounds.ts";
import { planFile, type InventoryOutcome } from "../../src/compare/rounds/jobs.ts";
import { rowAnalysis } from "../../src/compare/engine.ts";
import { samplingBudget } from "../../src/compare/plan.ts";
import type { CompareEvent } from "../../src/compare/events.ts";
import { PLAN_VERSION, recordKey, type RoundRecord, type RunPlan, type RunStore, type SamplingRule } from "../../src/compare/run/store.ts";
import type { Side } from "../../src/model/side.ts";
import type { ChildRow, SamplingBudget } from "../../src/runner/protocol.ts";
import type { BenchOutcome } from "../../src/runner/spawn.ts";
import { mulberry32 } from "../../src/schedule/prng.ts";

/** One benchmark of a fake file: its time per side (ns) and the standard deviation of ln(value) from process to process. */
export interface FakeRow {
  label: string;
  baseNs?: number;
  headNs?: number;
  noise?: number;
}

export interface FakeFile {
  file: string;
  rows: FakeRow[];
  /** What a process of the file takes to start and load (ms). */
  loadMs?: number;
}

/** One bench process the rounds asked for. */
export interface FakeCall {
  /** The files it measures: one, or a shared process's, in the order it runs them. */
  files: string[];
  order: Side[];
  /** Per file, the rows asked for (all when `labels` is absent). */
  rows: RowSelection[];
  /** On the fake clock (ms since the run began). */
  startMs: number;
  endMs: number;
  /** Processes running when it started, itself included. */
  running: number;
}

export interface FakeRun {
  ctx: RoundsContext;
  store: RunStore;
  calls: FakeCall[];
  events: CompareEvent[];
  /** The most processes that ran at once. */
  maxRunning: () => number;
  run: () => ReturnType<typeof measureRounds>;
}

export interface FakeOptions {
  files: FakeFile[];
  rule: SamplingRule;
  jobs?: number;
  /** The plan's seed: the order of sides per round. */
  seed?: number;
  /** The values' seed. */
  noiseSeed?: number;
  /** What the run folder already holds (a resumed run). */
  records?: RoundRecord[];
  /** Files share processes, up to this many (`--files-per-process`); without it each file has its own. */
  filesPerProcess?: number;
  /** A shared process ends (as a crash) when it reaches this file: the files after it are not reached. */
  crashAt?: string;
  budget?: SamplingBudget;
  budgetFixed?: boolean;
}

const gauss = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

function planOf(options: FakeOptions): RunPlan {
  return {
    version: PLAN_VERSION,
    repo: "/fake",
    files: options.files.map((f) => f.file),
    base: { ref: "main", sha: "b".repeat(40), dirty: false },
    head: { ref: "working tree", sha: "h".repeat(40), dirty: false },
    seed: options.seed ?? 1,
    startedAt: "2025-01-01T00:00:00.000Z",
    runtime: "node",
    install: false,
    timeoutS: 60,
    holm: false,
    isolate: false,
    sampling: options.rule,
    budget: options.budget ?? samplingBudget(),
    ...(options.budgetFixed ? { budgetFixed: true } : {}),
    jobs: options.jobs ?? 1,
    filesPerProcess: options.filesPerProcess ?? 1,
  };
}

/** A run folder in memory: what `append` adds is in `records`, as openStore would read it back. */
function memoryStore(plan: RunPlan, records: RoundRecord[]): RunStore {
  return { dir: "/fake/run", plan, records, append: (record) => void records.push(record), savePlan: () => {} };
}

function inventoryOf(file: FakeFile): InventoryOutcome {
  const inventory = { benchmarks: file.rows.map((r) => r.label), metrics: [], commands: [], isolate: false };
  return { inventories: { base: inventory, head: { ...inventory } }, errors: {}, loadMs: file.loadMs ?? 50 };
}

/** The rounds of these fake files, ready to run: `run()` calls measureRounds as the engine does. */
export function fakeRounds(options: FakeOptions): FakeRun {
  const plan = planOf(options);
  const store = memoryStore(
    plan,
    (options.records ?? []).map((r) => structuredClone(r)),
  );
  const byName = new Map(options.files.map((f) => [f.file, f]));
  const random = mulberry32(options.noiseSeed ?? 7);
  const calls: FakeCall[] = [];
  const events: CompareEvent[] = [];
  let clockMs = 0;
  let running = 0;
  let most = 0;

  /** One file's part of a process: a value per row asked for and side, and what sampling them took (ms). */
  const measure = (name: string, order: readonly Side[], rows: RowSelection): { rows: ChildRow[]; ms: number } => {
    const file = byName.get(name)!;
    const out: ChildRow[] = [];
    let ms = file.loadMs ?? 50;
    for (const row of file.rows) {
      if (rows.labels && !rows.labels.includes(row.label)) continue;
      const budget = rows.rowBudgets?.[row.label] ?? plan.budget;
      for (const side of order) {
        const ns = (side === "base" ? row.baseNs : row.headNs) ?? (side === "base" ? 100 : 110);
        const value = ns * Math.exp((row.noise ?? 0.01) * gauss(random));
        const half = Math.exp(((row.noise ?? 0.01) / 4) * gauss(random));
        out.push({
          label: row.label,
          side,
          unit: "ns",
          value,
          halves: [value * half, value / half],
          warmupNs: budget.warmupNs,
          batches: Math.round(budget.sideNs / budget.batchNs),
        });
        ms += (budget.sideNs + budget.warmupNs) / 1e6;
      }
    }
    return { rows: out, ms };
  };

  /** A process on the fake clock: counted as running from its start until every process started with it has had a turn. */
  const bench = async (files: string[], order: readonly Side[], rows: RowSelection[], answer: () => BenchOutcome) => {
    running++;
    most = Math.max(most, running);
    const call: FakeCall = { files, order: [...order], rows, startMs: clockMs, endMs: clockMs, running };
    calls.push(call);
    await new Promise((resolve) => setImmediate(resolve));
    const outcome = answer();
    call.endMs = call.startMs + outcome.wallMs;
    clockMs = Math.max(clockMs, call.endMs);
    running--;
    return outcome;
  };

  const run: RunProcess = (file, _kind, order, _parts, rows = {}) =>
    bench([file], order, [rows], () => {
      const measured = measure(file, order, rows);
      return { report: report(measured.rows, {}), wallMs: measured.ms };
    });

  const runShared: RunShared = (files, order) =>
    bench(
      files.map((f) => f.file),
      order,
      files.map((f) => f.rows),
      () => {
        const rows: ChildRow[] = [];
        const fileEnds: Record<string, number> = {};
        let wallMs = 0;
        for (const { file, rows: selection } of files) {
          const measured = measure(file, order, selection);
          wallMs += measured.ms;
          if (file === options.crashAt) return { report: report(rows, fileEnds, false), error: "exited with signal SIGSEGV", wallMs };
          rows.push(...measured.rows.map((row) => ({ ...row, file })));
          fileEnds[file] = measured.ms;
        }
        return { report: report(rows, fileEnds), wallMs };
      },
    );

  const files: MeasuredFile[] = options.files.map((f) => {
    const outcome = inventoryOf(f);
    return { plan: planFile(f.file, outcome, { isolate: false }), outcome };
  });
  const ctx: RoundsContext = {
    store,
    files,
    run,
    ...(options.filesPerProcess ? { runShared } : {}),
    // As runRounds: what the run folder holds is done.
    done: new Set(store.records.map((r) => recordKey(r.round, r.file, r.job))),
    analyze: rowAnalysis(store),
    onEvent: (event) => events.push(event),
    started: 0,
    now: () => clockMs,
  };
  return { ctx, store, calls, events, maxRunning: () => most, run: () => measureRounds(ctx) };
}

function report(rows: ChildRow[], fileEnds: Record<string, number>, ended = true): BenchOutcome["report"] {
  return { inventories: {}, rows, loadErrors: {}, ended, fileLoadErrors: {}, fileEnds };
}
