/**
 * What bench files import from "xbench" beside mitata's API: rows mitata cannot express.
 *
 *   metric("parses per save (4712)", () => harness.parsesPerSave(), { unit: "count" })
 *   metric("open batch (2 threads)", () => medianBatchNs(), { unit: "ns" })
 *   command("node -e 0", ["node", "-e", "0"])
 *
 * A metric is measured once per bench process (so once per arm per round); `count` and
 * `bytes` metrics are compared exactly, `ns` metrics get a paired interval like timings.
 */
import type { Unit } from "../model/result.ts";

export interface MetricDefinition {
  label: string;
  unit: Unit;
  measure: () => number | Promise<number>;
}

export interface CommandOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Launches before the measured one, not counted (default 1). */
  warmup?: number;
  /** Measured launches per bench process; the row's value is their median (default 5). */
  runs?: number;
}

export interface CommandDefinition {
  label: string;
  argv: string[];
  options: CommandOptions;
}

/** Everything a bench file registered beside mitata's benchmarks, in registration order. */
export interface Registry {
  metrics: MetricDefinition[];
  commands: CommandDefinition[];
  /** The file asked for one side per process (`isolate()`). */
  isolate: boolean;
}

const REGISTRY_KEY = Symbol.for("xbench.registry");
/** Set by the bench process while it loads one side's bench file (see runner/child/driver.ts). */
export const LOADING_SIDE_KEY = Symbol.for("xbench.loadingSide");

/**
 * One registry per side being loaded, kept on globalThis: a package that imports "xbench" at
 * run time gets another copy of this module, and must still register into the side whose
 * bench file is loading.
 */
export function registry(side?: string): Registry {
  const slot = globalThis as { [REGISTRY_KEY]?: Record<string, Registry>; [LOADING_SIDE_KEY]?: string };
  const registries = (slot[REGISTRY_KEY] ??= {});
  const key = side ?? slot[LOADING_SIDE_KEY] ?? "";
  return (registries[key] ??= { metrics: [], commands: [], isolate: false });
}

/**
 * Measure this file's benchmarks one side per process. By default base and head are loaded
 * into one process and measured alternately; a file that patches globals, or keeps state
 * that must not be shared with the other side's copy, calls this at the top.
 */
export function isolate(): void {
  registry().isolate = true;
}

export function metric(label: string, measure: () => number | Promise<number>, options: { unit?: Unit } = {}): void {
  registry().metrics.push({ label, unit: options.unit ?? "count", measure });
}

export function command(label: string, argv: string[], options: CommandOptions = {}): void {
  if (argv.length === 0) throw new Error(`command row ${label}: empty argv`);
  registry().commands.push({ label, argv, options });
}
