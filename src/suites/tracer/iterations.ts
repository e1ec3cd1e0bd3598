/**
 * The measuring loop of the tracer suite, free of processes so it can be tested: every
 * iteration runs each cell (backend x row) once per arm, the arms in that iteration's
 * ordering, back to back. Warm-up iterations run first and are not counted.
 */
import type { ArmName, Backend, RowName } from "./model.ts";

/** One backend's one row: the unit the arms are compared on. */
export interface Cell {
  backend: Backend;
  row: RowName;
}

/** Measures one arm on one cell and returns its value in ns. */
export type Measure = (cell: Cell, arm: ArmName) => number;

/** The ordering of the arms for every counted iteration (whole cycles), and the warm-up count. */
export interface IterationPlan {
  orders: ArmName[][];
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

/**
 * Runs the warm-up iterations (orderings taken from the start of the plan, results thrown
 * away) and then every planned iteration, and returns each cell's values per arm.
 */
export function runIterations(
  cells: readonly Cell[],
  plan: IterationPlan,
  measure: Measure,
  hooks: IterationHooks = {},
): CellSamples[] {
  if (plan.orders.length === 0) throw new Error("runIterations: the plan has no iterations");
  const results: CellSamples[] = cells.map((cell) => ({ cell, samples: {} }));
  const total = plan.warmup + plan.orders.length;
  for (let i = 0; i < total; i++) {
    const counted = i >= plan.warmup;
    const order = counted ? plan.orders[i - plan.warmup]! : plan.orders[i % plan.orders.length]!;
    for (const result of results) {
      for (const arm of order) {
        const value = measure(result.cell, arm);
        if (counted) (result.samples[arm] ??= []).push(value);
      }
    }
    hooks.onIteration?.(i + 1, total, counted);
  }
  return results;
}
