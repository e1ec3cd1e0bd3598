/**
 * Which bench processes a round of one bench file needs, decided from what each side of the
 * file registers (its inventory). Pure: data in, data out.
 *
 * By default a file's mitata benchmarks run as a duet: one process loads both sides and
 * measures them alternately. They run one side per process (isolated) when the user asks
 * (`--isolate`), when the file asks (`isolate()` from "xbench"), or when the two sides cannot
 * be loaded into one process. Metrics and command rows always run one side per process: a
 * metric may count what its process did, and a command row's launch is its own process anyway.
 */
import type { Side } from "../../model/result.ts";
import type { JobKind, JobParts, SideInventory } from "../../runner/protocol.ts";

export type TimedMode = "duet" | "isolated";

export interface FilePlan {
  file: string;
  /** How the file's mitata benchmarks are measured; absent when no side has any. */
  timed?: TimedMode;
  /** Why the timed rows run one side per process. */
  isolatedBecause?: string;
  /** Sides that register metrics or command rows. */
  extras: Side[];
  /** Sides on which the file cannot be measured, with the one-line reason. */
  failed: Partial<Record<Side, string>>;
}

export interface FileJob {
  /** Unique within a round and file: `duet`, `base` or `head`. */
  name: "duet" | Side;
  kind: Exclude<JobKind, "inventory">;
  /** Sides loaded into the process, in the order they are loaded, warmed and measured. */
  sides: Side[];
  parts: JobParts;
}

export interface InventoryOutcome {
  inventories: Partial<Record<Side, SideInventory>>;
  /** Per side: why it could not be loaded on its own. */
  errors: Partial<Record<Side, string>>;
  /** Why both sides could not be loaded into one process, when they could not. */
  duetError?: string;
  /** Wall time of the process that listed the sides (ms): what a bench process of this file costs to start and load. */
  loadMs?: number;
}

function problemOf(inventory: SideInventory): string | undefined {
  if (inventory.benchmarks.length + inventory.metrics.length + inventory.commands.length === 0) {
    return "registers no benchmark (no bench(), metric() or command() ran when the file loaded)";
  }
  return undefined;
}

export function planFile(file: string, outcome: InventoryOutcome, options: { isolate: boolean }): FilePlan {
  const failed: Partial<Record<Side, string>> = {};
  for (const side of ["base", "head"] as const) {
    const inventory = outcome.inventories[side];
    const problem = outcome.errors[side] ?? (inventory ? problemOf(inventory) : "was not loaded");
    if (problem !== undefined) failed[side] = problem;
  }
  const live = (["base", "head"] as const).filter((side) => failed[side] === undefined);
  const inventories = live.map((side) => outcome.inventories[side]!);
  const extras = live.filter((side) => {
    const inventory = outcome.inventories[side]!;
    return inventory.metrics.length + inventory.commands.length > 0;
  });
  const plan: FilePlan = { file, extras, failed };
  if (!inventories.some((inventory) => inventory.benchmarks.length > 0)) return plan;
  const isolatedBecause = options.isolate
    ? "--isolate"
    : inventories.some((inventory) => inventory.isolate)
      ? "the file calls isolate()"
      : outcome.duetError !== undefined
        ? `both sides cannot load into one process: ${outcome.duetError}`
        : undefined;
  return { ...plan, timed: isolatedBecause ? "isolated" : "duet", ...(isolatedBecause ? { isolatedBecause } : {}) };
}

/** The processes of one round of a file, sides in the round's order. Nothing runs for a file that failed on a side. */
export function jobsFor(plan: FilePlan, order: readonly Side[]): FileJob[] {
  if (Object.keys(plan.failed).length > 0) return [];
  if (plan.timed === "isolated") return order.map((side) => ({ name: side, kind: "isolated", sides: [side], parts: "all" }));
  const jobs: FileJob[] = plan.timed === "duet" ? [{ name: "duet", kind: "duet", sides: [...order], parts: "timed" }] : [];
  for (const side of order) {
    if (plan.extras.includes(side)) jobs.push({ name: side, kind: "isolated", sides: [side], parts: "extras" });
  }
  return jobs;
}

/** The labels a job is to measure (of `only`, when given), so that a process that fails is charged only for what it missed. */
export function expectedLabels(outcome: InventoryOutcome, job: FileJob, only?: readonly string[]): string[] {
  return job.sides.flatMap((side) => {
    const inventory = outcome.inventories[side];
    if (!inventory) return [];
    const timed = job.parts === "extras" ? [] : inventory.benchmarks;
    const extras =
      job.parts === "timed" ? [] : [...inventory.metrics.map((m) => m.label), ...inventory.commands.flatMap((c) => [c, `${c} (peak RSS)`])];
    return [...timed, ...extras].filter((label) => !only || only.includes(label));
  });
}
