/**
 * Stands in for "mitata" inside a bench process: the bench file's `bench`, `group`,
 * `summary`, `.args()`… are mitata's own; `run()` measures every registered benchmark once,
 * quietly, and keeps the numbers for xbench instead of printing them.
 */
// @ts-nocheck -- bundled from a virtual module; mitata ships no types for this path
import * as mitata from "xbench-internal:mitata";

export * from "xbench-internal:mitata";

/** One measured benchmark (one argument combination of a `bench`). */
export interface MeasuredRun {
  label: string;
  /** Median sample, in nanoseconds. */
  value?: number;
  error?: string;
}

const trials = [];
let measuring;

export function bench(name, fn) {
  const trial = mitata.bench(name, fn);
  trials.push(trial);
  return trial;
}

/** Every argument combination of a trial, in mitata's own order, with its display name. */
function* combinations(trial) {
  const keys = Object.keys(trial._args);
  if (keys.length === 0) {
    yield { args: {}, label: trial._name };
    return;
  }
  const total = keys.reduce((n, k) => n * trial._args[k].length, 1);
  const offsets = new Array(keys.length).fill(0);
  for (let i = 0; i < total; i++) {
    const args = {};
    let label = trial._name;
    for (let k = 0; k < keys.length; k++) args[keys[k]] = trial._args[keys[k]][offsets[k]];
    for (const key of keys) label = label.replaceAll(`$${key}`, String(args[key]));
    // A name without `$arg` placeholders would repeat; keep rows apart by their arguments.
    if (label === trial._name) label = `${trial._name} (${keys.map((k) => String(args[k])).join(", ")})`;
    yield { args, label };
    let k = 0;
    do offsets[k] = (offsets[k] + 1) % trial._args[keys[k]].length;
    while (offsets[k++] === 0 && k < keys.length);
  }
}

async function measureAll() {
  const budget = Number(process.env.XBENCH_BENCH_TIME_NS);
  const runs = [];
  for (const trial of trials) {
    for (const { args, label } of combinations(trial)) {
      const options = { args, inner_gc: trial._gc === "inner", gc: !trial._gc ? false : undefined };
      if (budget > 0) options.min_cpu_time = budget;
      try {
        const stats = await mitata.measure(trial.f, options);
        runs.push({ label, value: stats.p50 > 0 ? stats.p50 : stats.avg });
      } catch (error) {
        runs.push({ label, error: String(error?.message ?? error).split("\n")[0] });
      }
    }
  }
  return runs;
}

/** Measures once however often it is called; the bench file may or may not call it. */
export function run() {
  measuring ??= measureAll();
  return measuring.then(() => ({ benchmarks: [], layout: [], context: {} }));
}

export function measuredRuns() {
  measuring ??= measureAll();
  return measuring;
}
