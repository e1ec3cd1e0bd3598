/**
 * Row statistics of the tracer suite: per backend and row, the median of the per-iteration
 * head/base change with its quartiles, and the overhead of tracking against the untracked
 * arm as context. The math itself is src/stats (paired.ts, quantile.ts).
 */
import { overhead } from "../../stats/paired.ts";
import { median } from "../../stats/quantile.ts";
import type { Cell, CellSamples } from "./iterations.ts";
import type { ArmSamples, TracerRow, Workload } from "./model.ts";

function armSamples(cell: Cell, samples: CellSamples["samples"]): ArmSamples {
  const { head, base, untracked } = samples;
  if (!head || !untracked) throw new Error(`tracer ${cell.backend} ${cell.row}: head and untracked must both have run`);
  return base ? { head, base, untracked } : { head, untracked };
}

/**
 * One row of the report from one cell's per-iteration values (head, untracked, and base when
 * it ran). Throws a one-line error naming the row on unpaired or non-positive values.
 */
export function summarizeRow(cell: Cell, workload: Workload, values: CellSamples["samples"]): TracerRow {
  const samples = armSamples(cell, values);
  const name = (what: string) => `tracer ${cell.backend} ${cell.row} (${what})`;
  const row: TracerRow = {
    backend: cell.backend,
    row: cell.row,
    workload,
    samples,
    medians: { head: median(samples.head), untracked: median(samples.untracked) },
    overhead: { head: overhead(samples.head, samples.untracked, name("head vs untracked")) },
  };
  if (samples.base) {
    row.medians.base = median(samples.base);
    row.change = overhead(samples.head, samples.base, name("head vs base"));
    row.overhead.base = overhead(samples.base, samples.untracked, name("base vs untracked"));
  }
  return row;
}
