/**
 * Bundled into each side's copy of a bench file: after the file has loaded, lists what it
 * registered, one entry per row: every argument combination of every mitata benchmark,
 * named with its groups (`parse › small (100)`), then the xbench metrics and commands.
 */
import { registeredTrials } from "xbench-internal:shim";
import { registry } from "xbench-internal:api";
import { distinctLabels, registeredBenchmarks, skippedBenchmarks, usedApis } from "xbench-internal:registry";
import type { CommandDefinition, MetricDefinition } from "../../bench/api.ts";
import type { Around, BenchApi } from "./registry.ts";
import type { Trial } from "./shim.ts";

/** One benchmark (for mitata, with one set of arguments): what the sampler measures. */
export interface BenchmarkCase {
  label: string;
  api: BenchApi;
  fn: (...args: unknown[]) => unknown;
  args: Record<string, unknown>;
  /** mitata's `.gc()` setting: "inner" collects before every batch. */
  gc: "inner" | "once" | boolean;
  /** `this` for each call (Benchmark.js's benchmark object). */
  self?: unknown;
  /** fn takes Deno's BenchContext and may time a section of itself with b.start()/b.end(). */
  section?: boolean;
  /** Hooks of the other APIs, run outside the timing. */
  around?: Around;
}

export interface SideDescription {
  benchmarks: BenchmarkCase[];
  /** The benchmark APIs the file loaded, whether or not it registered anything with them. */
  apis: BenchApi[];
  metrics: MetricDefinition[];
  commands: CommandDefinition[];
  isolate: boolean;
  /** Labels of benchmarks the file declares and skips (`bench.skip`, `skipIf`, left out by `.only`): rows that read skipped. */
  skipped: string[];
}

/** Joins group names and a benchmark's name into its row label. */
export function rowLabel(groups: string[], name: string): string {
  return [...groups, name].join(" › ");
}

/** Every argument combination of a trial, in mitata's own order, with its display name. */
function* combinations(trial: Trial): Generator<{ args: Record<string, unknown>; name: string }> {
  const keys = Object.keys(trial._args);
  if (keys.length === 0) {
    yield { args: {}, name: trial._name };
    return;
  }
  const values = keys.map((key) => trial._args[key]!);
  const total = values.reduce((n, v) => n * v.length, 1);
  const offsets: number[] = new Array(keys.length).fill(0);
  for (let i = 0; i < total; i++) {
    const args: Record<string, unknown> = {};
    let name = trial._name;
    for (let k = 0; k < keys.length; k++) args[keys[k]!] = values[k]![offsets[k]!];
    for (const key of keys) name = name.replaceAll(`$${key}`, String(args[key]));
    // A name without `$arg` placeholders would repeat; keep rows apart by their arguments.
    if (name === trial._name) name = `${trial._name} (${keys.map((k) => String(args[k])).join(", ")})`;
    yield { args, name };
    let k = 0;
    do offsets[k] = (offsets[k]! + 1) % values[k]!.length;
    while (offsets[k++] === 0 && k < keys.length);
  }
}

/** vitest's, tinybench's, Benchmark.js's and Deno's benchmarks; with `.only` on any, only those (the others are skipped). */
async function otherBenchmarks(): Promise<{ cases: BenchmarkCase[]; skipped: string[] }> {
  const all = await registeredBenchmarks();
  const picked = all.some((entry) => entry.only) ? all.filter((entry) => entry.only) : all;
  const left = [...skippedBenchmarks(), ...all.filter((entry) => !picked.includes(entry))];
  const skipped = left.map((entry) => rowLabel(entry.groups, entry.name));
  const cases = picked.map((entry) => ({
    label: rowLabel(entry.groups, entry.name),
    api: entry.api,
    fn: entry.fn,
    args: {},
    gc: false,
    ...(entry.self !== undefined ? { self: entry.self } : {}),
    ...(entry.section ? { section: true } : {}),
    around: entry.around,
  }));
  return { cases, skipped };
}

export async function describeSide(side: string): Promise<SideDescription> {
  const benchmarks: BenchmarkCase[] = [];
  for (const { trial, groups } of registeredTrials()) {
    for (const { args, name } of combinations(trial)) {
      benchmarks.push({ label: rowLabel(groups, name), api: "mitata", fn: trial.f, args, gc: trial._gc });
    }
  }
  const others = await otherBenchmarks();
  benchmarks.push(...others.cases);
  const extras = registry(side);
  // One namespace for every row of the file: a repeated label gets a number, never loses its row.
  const labels = distinctLabels([
    ...benchmarks.map((b) => b.label),
    ...extras.metrics.map((m) => m.label),
    ...extras.commands.map((c) => c.label),
  ]);
  const named = <T extends { label: string }>(items: T[]): T[] =>
    items.map((item) => {
      const label = labels.shift()!;
      return label === item.label ? item : { ...item, label };
    });
  return {
    benchmarks: named(benchmarks),
    apis: usedApis(),
    metrics: named(extras.metrics),
    commands: named(extras.commands),
    isolate: extras.isolate,
    // A skipped label that is also a row's (the same name measured elsewhere) is that row.
    skipped: [...new Set(others.skipped)].filter((label) => !benchmarks.some((b) => b.label === label)),
  };
}
