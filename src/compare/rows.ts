import type { RawRow } from "../report/analyze.ts";
import type { Side, Unit } from "../report/model.ts";
import type { RoundRecord } from "./store.ts";
import { rowId } from "./identity.ts";

/** Label used when a bench file produced no report on either side, so its failure still shows. */
export const WHOLE_FILE = "(bench file)";

/** Why a side of a file failed although its process exited cleanly: it never called bench(). */
export const NO_BENCHMARK = "registers no benchmark (no bench() or command() ran)";

/**
 * Turns the run's records into rows: one per (file, label) seen on either side, values in
 * round order (null where a round is missing), and the first error each side hit. A file
 * whose process failed on one side marks all of that file's rows failed on that side.
 */
export function collectRows(files: string[], planned: number, records: RoundRecord[]): RawRow[] {
  const rows: RawRow[] = [];
  for (const file of files) {
    const mine = records.filter((r) => r.file === file);
    const byLabel = new Map<string, RawRow>();
    const row = (label: string, unit: Unit, sampled?: true): RawRow => {
      let found = byLabel.get(label);
      if (!found) {
        found = {
          id: rowId(file, label),
          file,
          label,
          unit,
          ...(sampled ? { sampled } : {}),
          base: new Array(planned).fill(null),
          head: new Array(planned).fill(null),
          presentOn: { base: false, head: false },
        };
        byLabel.set(label, found);
      }
      return found;
    };
    const processErrors: Partial<Record<Side, string>> = {};
    // A file's process that ran cleanly and registered nothing is that side's failure, not an
    // empty table: an import tree-shaken away or a guard that skips every bench looks the same.
    const registered: Record<Side, boolean> = { base: false, head: false };
    const ranCleanly: Record<Side, boolean> = { base: false, head: false };
    for (const record of [...mine].sort((a, b) => a.round - b.round)) {
      if (record.error !== undefined) {
        processErrors[record.side] ??= record.error;
        continue;
      }
      ranCleanly[record.side] = true;
      if ((record.rows ?? []).length > 0) registered[record.side] = true;
      for (const child of record.rows ?? []) {
        const target = row(child.label, child.unit, child.sampled);
        target.presentOn[record.side] = true;
        if (child.error !== undefined) target.error ??= { side: record.side, message: child.error };
        else if (child.value !== undefined && record.round < planned) target[record.side][record.round] = child.value;
      }
    }
    for (const side of ["base", "head"] as const) {
      if (ranCleanly[side] && !registered[side]) processErrors[side] ??= NO_BENCHMARK;
      const message = processErrors[side];
      if (message === undefined) continue;
      if (byLabel.size === 0) row(WHOLE_FILE, "ns");
      for (const target of byLabel.values()) {
        target.presentOn[side] = true;
        target.error ??= { side, message };
      }
    }
    rows.push(...byLabel.values());
  }
  return rows;
}
