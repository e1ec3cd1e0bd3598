/**
 * The main module of every bench process. It reads its job from XBENCH_JOB, loads each side's
 * compiled bench file in the order given (so which side loads, warms and runs first varies
 * from process to process), measures what the job asks, appends one JSON line per row to
 * XBENCH_RESULT_FILE, and exits, so that a handle a bench file left open cannot hang it.
 */
// @ts-nocheck -- bundled from a virtual module
import { appendFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { commandRows, metricRows } from "xbench-internal:extras";
import { prepare, sample } from "xbench-internal:sampler";

/** Registrations go to the side whose file is loading (see bench/api.ts). */
const LOADING_SIDE_KEY = Symbol.for("xbench.loadingSide");

const job = JSON.parse(process.env.XBENCH_JOB);
// A compiled xbench runs bench processes as bun through BUN_BE_BUN (runtimes.ts): what a bench
// file starts, xbench exec-stats included, must see the user's environment, not that switch.
if (process.env.XBENCH_BE_BUN) {
  delete process.env.BUN_BE_BUN;
  delete process.env.XBENCH_BE_BUN;
}
const resultFile = process.env.XBENCH_RESULT_FILE;

function emit(line) {
  appendFileSync(resultFile, `${JSON.stringify(line)}\n`);
}

function firstLine(error) {
  return String(error?.message ?? error).split("\n")[0];
}

async function load(sides) {
  const described = [];
  for (const { side, bundle } of sides) {
    globalThis[LOADING_SIDE_KEY] = side;
    process.env.XBENCH_SIDE = side;
    try {
      const module = await import(pathToFileURL(bundle).href);
      described.push({ side, ...(await module.describeSide(side)) });
    } catch (error) {
      emit({ t: "load-error", side, message: firstLine(error) });
      process.exit(1);
    } finally {
      globalThis[LOADING_SIDE_KEY] = undefined;
    }
  }
  return described;
}

function inventory(description) {
  return {
    t: "inventory",
    side: description.side,
    benchmarks: description.benchmarks.map((b) => b.label),
    apis: description.apis,
    metrics: description.metrics.map((m) => ({ label: m.label, unit: m.unit })),
    commands: description.commands.map((c) => c.label),
    isolate: description.isolate,
    duplicates: description.duplicates,
  };
}

/** Measures one label on every side that has it: alternately when two sides do. */
async function measureLabel(label, cases) {
  const subjects = [];
  for (const { side, benchmark } of cases) {
    try {
      subjects.push({ side, subject: await prepare(benchmark) });
    } catch (error) {
      emit({ t: "row", label, side, unit: "ns", error: firstLine(error) });
    }
  }
  if (subjects.length === 0) return;
  try {
    const results = await sample(
      subjects.map((s) => s.subject),
      job.budget,
    );
    for (const s of subjects) await s.subject.finish();
    subjects.forEach((s, i) => {
      const { value, batches, iterations, batchNs } = results[i];
      emit({ t: "row", label, side: s.side, unit: "ns", value, batches, iterations, batchNs });
    });
  } catch (error) {
    // Which side threw is known only when one side runs; with two, blame both.
    for (const s of subjects) emit({ t: "row", label, side: s.side, unit: "ns", error: firstLine(error) });
  }
}

async function measureTimed(described) {
  // A job may name the labels to measure (a profiled process measures one row).
  const labels = [...new Set(described.flatMap((d) => d.benchmarks.map((b) => b.label)))].filter(
    (l) => !job.labels || job.labels.includes(l),
  );
  for (const label of labels) {
    const cases = described.flatMap((d) => {
      const benchmark = d.benchmarks.find((b) => b.label === label);
      return benchmark ? [{ side: d.side, benchmark }] : [];
    });
    await measureLabel(label, cases);
  }
}

async function measureExtras(description) {
  const rows = [...(await metricRows(description.metrics)), ...(await commandRows(description.commands, job.execStats))];
  for (const row of rows) emit({ t: "row", side: description.side, ...row });
}

/**
 * A random amount of live heap, of random shapes, before anything loads, in a process that runs
 * one side. Two builds of the same code (other paths, another load order) otherwise get
 * different but fixed heap layouts: a bias of a few percent on allocation-heavy benchmarks,
 * which one side keeps for a whole run when each side has processes of its own. Drawn per
 * process, the layout becomes noise that the pairing of rounds cancels (wider intervals, no
 * bias). Not in a duet: both sides share the process's layout there, and the truth lab
 * measured the duet's intervals wider and its A/A rows no better with it (2/12 against 0/12).
 */
function padHeap() {
  const keep = [];
  const count = Math.floor(Math.random() * 256);
  for (let i = 0; i < count; i++) {
    const size = Math.floor(Math.random() * 64);
    if (i % 4 === 0) keep.push({ i, size });
    else if (i % 4 === 1) keep.push(new Array(size).fill(i));
    else if (i % 4 === 2) keep.push(String(i).padEnd(size * 4, "x"));
    else keep.push(new Float64Array(size));
  }
  return keep;
}

if (job.kind === "solo") globalThis.__xbenchHeapPad = padHeap();
const described = await load(job.sides);
if (job.kind === "inventory") {
  for (const description of described) emit(inventory(description));
} else {
  if (job.parts !== "extras") await measureTimed(described);
  if (job.parts !== "timed") for (const description of described) await measureExtras(description);
}
emit({ t: "end" });
process.exit(0);
