/**
 * The main module of every bench process. It reads its job from XBENCH_JOB, loads each side's
 * compiled bench file in the order given (so which side loads, warms and runs first varies
 * from process to process), measures what the job asks, appends one JSON line per row to
 * XBENCH_RESULT_FILE, and exits, so that a handle a bench file left open cannot hang it.
 */
import { appendFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { commandRows, firstLine, metricRows } from "xbench-internal:extras";
import { measureRegion, now, prepare, sample } from "xbench-internal:sampler";
import { openCounter } from "xbench-internal:counter";
import { sampleCounts } from "xbench-internal:count-sampler";
import type { Side } from "../../model/result.ts";
import type { ChildLine, Job, JobFile, JobSide, LayoutDraw, SamplingBudget } from "../protocol.ts";
import type { Sampled, Subject } from "./sampler.ts";
import type { CountHost, CountSampled } from "./count-sampler.ts";
import type { BenchmarkCase, SideDescription } from "./side.ts";

/** Registrations go to the side whose file is loading (see bench/api.ts). */
const LOADING_SIDE_KEY = Symbol.for("xbench.loadingSide");
const slot = globalThis as { [LOADING_SIDE_KEY]?: Side; __xbenchHeapPads?: unknown[][] };

/** One side's bench file, loaded: what it registered. */
type Described = SideDescription & { side: Side };

const job = JSON.parse(process.env.XBENCH_JOB!) as Job;
// A compiled xbench runs bench processes as bun through BUN_BE_BUN (runtimes.ts): what a bench
// file starts, xbench exec-stats included, must see the user's environment, not that switch.
if (process.env.XBENCH_BE_BUN) {
  delete process.env.BUN_BE_BUN;
  delete process.env.XBENCH_BE_BUN;
}
const resultFile = process.env.XBENCH_RESULT_FILE!;
/** process.exit as the runtime has it: a benchmark's own calls go through the wrapper below. */
const exit = process.exit.bind(process);

/**
 * A counting process (docs/counting.md): the counter is opened before any bench file loads, so
 * that every subject measures collection, not the clock.
 */
const counter = job.counting ? openCounter(job.counting) : undefined;
if (counter) measureRegion(counter.region);
const unit = counter?.measure ?? "ns";

/** What a counting sampler needs of this process: its clocks, its waits, a full collection. */
const countHost: CountHost = {
  clock: now,
  cpu: typeof process.cpuUsage === "function" ? () => process.cpuUsage() : undefined,
  waits: typeof process.resourceUsage === "function" ? () => process.resourceUsage().voluntaryContextSwitches : undefined,
  // A young generation emptied before each window: otherwise whether a scavenge falls inside a
  // window depends on the windows before it, which the order of sides changes (docs/counting.md).
  gc: (() => {
    const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
    if (bun?.gc) return () => bun.gc(true);
    const gc = (globalThis as { gc?: (options?: { type: "minor" | "major" }) => void }).gc;
    return typeof gc === "function" ? () => gc({ type: "minor" }) : undefined;
  })(),
};

/** In a shared process, the file being loaded or measured: its rows carry its name. */
let currentFile: string | undefined;

function emit(line: ChildLine): void {
  const tagged = currentFile !== undefined && (line.t === "row" || line.t === "load-error") ? { ...line, file: currentFile } : line;
  try {
    appendFileSync(resultFile, `${JSON.stringify(tagged)}\n`);
  } catch (error) {
    // The run folder's disk, not the benchmark: said in a line xbench reads (spawn.ts), and the
    // process ends at once, so that a full disk is never read as a failed benchmark.
    const code = (error as { code?: string }).code ?? "EIO";
    process.stderr.write(`\nxbench-driver: cannot write ${resultFile}: ${code}\n`);
    exit(1);
  }
}

/**
 * Loads each side's bundle in order. A side that cannot load ends the process, or, in a shared
 * process, only that file's turn (undefined: the process goes on with the next file).
 */
async function load(sides: JobSide[], draw: LayoutDraw): Promise<Described[] | undefined> {
  const described: Described[] = [];
  for (const { side, bundle } of sides) {
    if (draw === "side") heapPads.push(padHeap());
    slot[LOADING_SIDE_KEY] = side;
    process.env.XBENCH_SIDE = side;
    try {
      const module = await import(pathToFileURL(bundle).href);
      described.push({ side, ...(await module.describeSide(side)) });
    } catch (error) {
      emit({ t: "load-error", side, message: firstLine(error) });
      if (currentFile === undefined) process.exit(1);
      return undefined;
    } finally {
      slot[LOADING_SIDE_KEY] = undefined;
    }
  }
  return described;
}

function inventory(description: Described): ChildLine {
  return {
    t: "inventory",
    side: description.side,
    benchmarks: description.benchmarks.map((b) => b.label),
    apis: description.apis,
    metrics: description.metrics.map((m) => ({ label: m.label, unit: m.unit })),
    commands: description.commands.map((c) => c.label),
    isolate: description.isolate,
    ...(description.skipped.length > 0 ? { skipped: description.skipped } : {}),
  };
}

/**
 * Where an error thrown outside any await of the sampler goes (a timer a benchmark set, a
 * deferred benchmark's callback): to the row being prepared or measured. Outside a row, such
 * an error ends the process as it would without xbench.
 */
let failRow: ((error: unknown) => void) | undefined;
function onStrayError(error: unknown): void {
  if (failRow) {
    failRow(error);
    return;
  }
  console.error(error);
  exit(1); // the driver's own exit, not a benchmark's
}

/** Runs a row's work; an error thrown outside it while it runs fails it too. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  const stray = new Promise<never>((_, reject) => {
    failRow = reject;
  });
  const running = work();
  running.catch(() => {});
  try {
    return await Promise.race([running, stray]);
  } finally {
    failRow = undefined;
  }
}

/**
 * The row being measured, so that a process the runtime ends while a benchmark awaits (node
 * exits 13 when nothing is left to wait on but an unsettled promise) still says which row.
 */
let measuring: { label: string; sides: Side[] } | undefined;
let ended = false;
/** The status a benchmark passed to process.exit() while it ran: its own exit, not a promise left unsettled. */
let exitCalled: number | string | undefined;
process.exit = ((code?: number | string | null) => {
  if (measuring && !ended) exitCalled = code ?? process.exitCode ?? 0;
  return exit(code as number | undefined);
}) as typeof process.exit;
process.on("exit", (code) => {
  if (ended || !measuring) return;
  if (exitCalled !== undefined) {
    const message = `the benchmark called process.exit(${exitCalled}) while it ran: a benchmark must return, not end the process`;
    for (const side of measuring.sides) emit({ t: "row", label: measuring.label, side, unit, error: message });
    return;
  }
  // The event loop ran dry while the benchmark awaited: node then exits by itself (0, or 13
  // for the top-level await it leaves unsettled); any other status is the benchmark's exit().
  const message =
    code === 0 || code === 13
      ? "its promise never settled: the process ran out of work while the benchmark (or its setup) awaited it"
      : `the process exited (${code}) while this benchmark ran`;
  for (const side of measuring.sides) emit({ t: "row", label: measuring.label, side, unit, error: message });
});

/** Measures one label on every side that has it: alternately when two sides do. */
async function measureLabel(label: string, cases: Array<{ side: Side; benchmark: BenchmarkCase }>, budget: SamplingBudget): Promise<void> {
  measuring = { label, sides: cases.map((c) => c.side) };
  try {
    await measureCases(label, cases, budget);
  } finally {
    measuring = undefined;
  }
}

async function measureCases(label: string, cases: Array<{ side: Side; benchmark: BenchmarkCase }>, budget: SamplingBudget): Promise<void> {
  const subjects: Array<{ side: Side; subject: Subject }> = [];
  for (const { side, benchmark } of cases) {
    try {
      subjects.push({ side, subject: await guarded(() => prepare(benchmark)) });
    } catch (error) {
      emit({ t: "row", label, side, unit, error: firstLine(error) });
    }
  }
  if (subjects.length === 0) return;
  // The side whose batch ran last: the one that threw, when the other side's row is fine.
  let running = 0;
  // After a stray error the sampler may still be waiting on this row's work: when it resumes,
  // its next batch throws instead of running beside the next row.
  let abandoned = false;
  const tracked = subjects.map(({ subject }, index) => ({
    batch: (n: number) => {
      if (abandoned) throw new Error("abandoned after an error");
      running = index;
      return subject.batch(n);
    },
    finish: subject.finish,
  }));
  try {
    const floor = counter ? await emptyLoopCount() : undefined;
    const results: Array<Sampled | CountSampled> = await guarded(() =>
      counter && job.counting ? sampleCounts(tracked, job.counting.budget, counter, countHost) : sample(tracked, budget),
    );
    for (const s of subjects) await s.subject.finish();
    subjects.forEach((s, i) => {
      const { value, batches, iterations, batchNs, halves, warmupNs } = results[i]!;
      const counted = "counted" in results[i]! ? { counted: results[i].counted, events: results[i].events, floor } : {};
      emit({ t: "row", label, side: s.side, unit, value, batches, iterations, batchNs, halves, warmupNs, ...counted });
    });
  } catch (error) {
    abandoned = true;
    // Only this row fails, on the side that threw; the file's other rows are measured next.
    emit({ t: "row", label, side: subjects[running]!.side, unit, error: firstLine(error) });
  }
}

let emptyLoop: number | undefined;

/**
 * What an empty benchmark counts per iteration in this process: the loop around a body. A row at
 * it on both sides had its body optimized away (report/row-stats.ts). Counted once, like a row.
 */
async function emptyLoopCount(): Promise<number> {
  if (emptyLoop === undefined) {
    const empty = await prepare({ label: "(empty loop)", api: "mitata", fn: () => {}, args: {}, gc: false });
    emptyLoop = (await sampleCounts([empty], job.counting!.budget, counter!, countHost))[0]!.value;
  }
  return emptyLoop;
}

/** Which timed labels to measure (all when `labels` is absent: a profiled process names one) and any row's own budget. */
type Selection = Pick<Job, "labels" | "rowBudgets">;

async function measureTimed(described: Described[], selection: Selection): Promise<void> {
  const labels = [...new Set(described.flatMap((d) => d.benchmarks.map((b) => b.label)))].filter(
    (l) => !selection.labels || selection.labels.includes(l),
  );
  for (const label of labels) {
    const cases = described.flatMap((d) => {
      const benchmark = d.benchmarks.find((b) => b.label === label);
      return benchmark ? [{ side: d.side, benchmark }] : [];
    });
    await measureLabel(label, cases, selection.rowBudgets?.[label] ?? job.budget);
  }
}

/**
 * A shared process: each file's sides loaded and measured in turn, as a process of its own
 * would, then a line with the time it took, so the parent can tell finished files from the one
 * a crash or a timeout cut short.
 */
async function measureFiles(files: JobFile[]): Promise<void> {
  for (const file of files) {
    const start = performance.now();
    currentFile = file.file;
    const described = await load(file.sides, file.layout ?? "none");
    if (described) await measureTimed(described, file);
    currentFile = undefined;
    emit({ t: "file-end", file: file.file, ms: performance.now() - start });
  }
}

async function measureExtras(description: Described): Promise<void> {
  const rows = [...(await metricRows(description.metrics)), ...(await commandRows(description.commands, job.execStats))];
  for (const row of rows) emit({ t: "row", side: description.side, ...row });
}

/**
 * A random amount of live heap, of random shapes, and a function of random length compiled (its
 * bytecode goes to old space, where a module's compiled functions go). Two builds of a module
 * (other paths, another load order, one function changed) otherwise get different but fixed
 * layouts in every process: a bias of up to a few percent on allocation-heavy benchmarks. Drawn
 * per process (`job.layout`, see compare/rounds/layout.ts), the layout becomes noise that the pairing
 * of rounds cancels: wider intervals, no bias.
 */
function padHeap(): unknown[] {
  const keep: unknown[] = [];
  const count = Math.floor(Math.random() * 256);
  for (let i = 0; i < count; i++) {
    const size = Math.floor(Math.random() * 64);
    if (i % 4 === 0) keep.push({ i, size });
    else if (i % 4 === 1) keep.push(new Array(size).fill(i));
    else if (i % 4 === 2) keep.push(String(i).padEnd(size * 4, "x"));
    else keep.push(new Float64Array(size));
  }
  const steps = Math.floor(Math.random() * 256);
  const compiled = new Function("x", `let y = x;\n${"y = (y * 31 + 7) | 0;\n".repeat(steps)}return y;`);
  compiled(count);
  keep.push(compiled);
  return keep;
}

/** Kept alive for the whole process; on the global so that a test can see what was drawn. */
const heapPads: unknown[][] = [];
slot.__xbenchHeapPads = heapPads;
const layout = job.layout ?? (job.kind === "isolated" ? "process" : "none");
if (layout === "process") heapPads.push(padHeap());
if (job.files) {
  process.on("uncaughtException", onStrayError);
  process.on("unhandledRejection", onStrayError);
  await measureFiles(job.files);
} else {
  const described = (await load(job.sides, layout))!;
  if (job.kind === "inventory") {
    for (const description of described) emit(inventory(description));
  } else {
    process.on("uncaughtException", onStrayError);
    process.on("unhandledRejection", onStrayError);
    if (job.parts !== "extras") await measureTimed(described, job);
    if (job.parts !== "timed") for (const description of described) await measureExtras(description);
  }
}
ended = true;
emit({ t: "end" });
process.exit(0);
