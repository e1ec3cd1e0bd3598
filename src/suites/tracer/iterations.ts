/**
 * The measuring loop of the tracer suite, free of processes so it can be tested. Every
 * iteration takes one ordering of the arms and, for each cell (backend x row), runs that
 * ordering `passes` times back to back (ABC ABC ABC ...); an arm's value for the iteration is
 * the median of its passes. Repeating the ordering, rather than launching one arm several
 * times in a row, keeps every arm's launches inside the same stretch of time, so load that
 * drifts during an iteration hits all arms alike. Warm-up iterations run first and are not
 * counted.
 */
import { median } from "../../stats/quantile.ts";
import type { ArmName, Backend, RowName } from "./model.ts";

/** One backend's one row: the unit the arms are compared on. */
export interface Cell {
  backend: Backend;
  row: RowName;
}

/** Measures one arm once on one cell and returns its value in ns. */
export type Measure = (cell: Cell, arm: ArmName) => number;

/** Passes over the ordering per iteration, per row (at least 1). */
export type Passes = Readonly<Record<RowName, number>>;

/** The ordering of the arms for every counted iteration (whole cycles), passes, and the warm-up count. */
export interface IterationPlan {
  orders: ArmName[][];
  passes: Passes;
  warmup: number;
}

/** Each cell's counted values per arm, in iteration order. */
export interface CellSamples {
  cell: Cell;
  samples: Partial<Record<ArmName, number[]>>;
}

export interface IterationHooks {
  /** Called after every iteration; `counted` is false during warm-up. */
  onIteration?: (done: number, total: number, counted: boolean) => void;
}

/** One iteration of one cell: the ordering `passes` times over, each arm's median. */
function runCell(cell: Cell, order: readonly ArmName[], passes: number, measure: Measure): Map<ArmName, number> {
  const values = new Map<ArmName, number[]>(order.map((arm) => [arm, []]));
  for (let pass = 0; pass < passes; pass++) {
    for (const arm of order) values.get(arm)!.push(measure(cell, arm));
  }
  return new Map([...values].map(([arm, list]) => [arm, median(list)]));
}

/**
 * Runs the warm-up iterations (orderings taken from the start of the plan, results thrown
 * away) and then every planned iteration, and returns each cell's values per arm.
 */
export async function runIterations(
  cells: readonly Cell[],
  plan: IterationPlan,
  measure: Measure,
  hooks: IterationHooks = {},
): Promise<CellSamples[]> {
  if (plan.orders.length === 0) throw new Error("runIterations: the plan has no iterations");
  for (const [row, passes] of Object.entries(plan.passes)) {
    if (!Number.isInteger(passes) || passes < 1) throw new Error(`runIterations: passes for ${row} must be a whole number >= 1`);
  }
  const results: CellSamples[] = cells.map((cell) => ({ cell, samples: {} }));
  const total = plan.warmup + plan.orders.length;
  for (let i = 0; i < total; i++) {
    const counted = i >= plan.warmup;
    const order = counted ? plan.orders[i - plan.warmup]! : plan.orders[i % plan.orders.length]!;
    for (const result of results) {
      const values = runCell(result.cell, order, plan.passes[result.cell.row], measure);
      if (counted) for (const [arm, value] of values) (result.samples[arm] ??= []).push(value);
    }
    hooks.onIteration?.(i + 1, total, counted);
    // Launches are synchronous (tighter timing); between iterations, let a pending Ctrl-C or
    // SIGTERM handler run, so a long run stops promptly and cleans up.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return results;
}
