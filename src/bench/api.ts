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
export type MetricUnit = "ns" | "count" | "bytes";

export interface MetricDefinition {
  label: string;
  unit: MetricUnit;
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
}

const REGISTRY_KEY = Symbol.for("xbench.registry");

/** One registry per process, shared even if the module is loaded twice. */
export function registry(): Registry {
  const slot = globalThis as { [REGISTRY_KEY]?: Registry };
  return (slot[REGISTRY_KEY] ??= { metrics: [], commands: [] });
}

export function metric(label: string, measure: () => number | Promise<number>, options: { unit?: MetricUnit } = {}): void {
  registry().metrics.push({ label, unit: options.unit ?? "count", measure });
}

export function command(label: string, argv: string[], options: CommandOptions = {}): void {
  if (argv.length === 0) throw new Error(`command row ${label}: empty argv`);
  registry().commands.push({ label, argv, options });
}
