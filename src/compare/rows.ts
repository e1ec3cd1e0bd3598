import type { RawRow } from "../report/row-stats.ts";
import { perIteration, type MeasureMode, type Side, type Unit } from "../model/result.ts";
import type { CountedTime } from "../runner/protocol.ts";
import type { RoundRecord } from "./run/store.ts";
import { rowId } from "./identity.ts";

/** Label used when a bench file produced no report on either side, so its failure still shows. */
export const WHOLE_FILE = "(bench file)";

/** A counted row's measured windows of one side and round (of n iterations each, `value` per iteration), added to its totals. */
function addCounted(target: RawRow, time: CountedTime, windows: number, n: number, value: number): void {
  const totals = (target.counted ??= { windows: 0, iterations: 0, events: 0, wallNs: 0, cpuNs: 0, systemNs: 0, waits: 0 });
  totals.windows += windows;
  totals.iterations += windows * n;
  totals.events += windows * n * value;
  totals.wallNs += time.wallNs;
  totals.cpuNs += time.cpuNs;
  totals.systemNs += time.systemNs;
  totals.waits += time.waits ?? 0;
}

/** Whom a failed process's error is charged to: its one side, or both for a duet process. */
function blamed(record: RoundRecord): Side | "both" {
  return record.job === "duet" || record.job === "unchanged" || record.job === "skipped" ? "both" : record.job;
}

/**
 * Charges an error to a row: the first one stays, and the same message from the other side
 * makes it both sides' (a file that fails the same way on base and head failed on both).
 */
function charge(target: RawRow, error: { side: Side | "both"; message: string }): void {
  if (!target.error) target.error = error;
  else if (target.error.side !== error.side && target.error.side !== "both" && target.error.message === error.message) {
    target.error = { side: "both", message: error.message };
  }
}

/**
 * Turns the run's records into rows: one per (file, label) seen on either side, values in
 * round order (null where a round is missing), and the first error each side hit. A process
 * that failed marks the rows it did not measure failed, on the sides it held; the rows it
 * measured before failing keep their values. `unit`: what the run's benchmark rows measure, for
 * rows no process reported (unchanged code, a failed process).
 */
export function collectRows(files: string[], rounds: number, records: RoundRecord[], unit: Unit = "ns"): RawRow[] {
  const rows: RawRow[] = [];
  for (const file of files) {
    const mine = records.filter((r) => r.file === file).sort((a, b) => a.round - b.round);
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
          base: new Array(rounds).fill(null),
          head: new Array(rounds).fill(null),
          presentOn: { base: false, head: false },
        };
        byLabel.set(label, found);
      }
      return found;
    };
    const modes = new Map<string, Set<MeasureMode>>();
    const skipped: string[] = [];
    const failures: Array<{ error: { side: Side | "both"; message: string }; measured: Set<string>; expected?: string[] }> = [];
    for (const record of mine) {
      if (record.job === "unchanged") {
        for (const label of record.expected ?? []) {
          const target = row(label, unit);
          target.presentOn = { base: true, head: true };
          target.unchanged = true;
        }
        continue;
      }
      if (record.job === "skipped") {
        skipped.push(...(record.expected ?? []));
        continue;
      }
      if (record.error !== undefined) {
        const measured = new Set((record.rows ?? []).filter((r) => r.value !== undefined).map((r) => r.label));
        const expected = record.expected?.length ? record.expected : undefined;
        failures.push({ error: { side: blamed(record), message: record.error }, measured, expected });
      }
      for (const child of record.rows ?? []) {
        const target = row(child.label, child.unit, child.sampled);
        target.presentOn[child.side] = true;
        if (perIteration(child.unit) && !child.sampled) {
          const mode: MeasureMode = record.job === "duet" ? "duet" : "isolated";
          modes.set(child.label, (modes.get(child.label) ?? new Set()).add(mode));
        }
        if (child.error !== undefined) charge(target, { side: child.side, message: child.error });
        else if (child.value !== undefined && record.round < rounds) {
          target[child.side][record.round] = child.value;
          if (record.job === "duet") (target.firstSide ??= new Array(rounds).fill(null))[record.round] = record.sides[0] ?? null;
          if (child.counted) addCounted(target, child.counted, child.batches ?? 1, child.iterations ?? 1, child.value);
          if (child.floor !== undefined) target.floor = Math.max(target.floor ?? 0, child.floor);
        }
      }
    }
    for (const [label, seen] of modes) {
      const target = byLabel.get(label)!;
      target.mode = seen.size === 1 ? [...seen][0]! : "mixed";
    }
    // A failed process fails the rows it did not get to; what it measured before stays.
    for (const { error, measured, expected } of failures) {
      for (const label of expected ?? []) row(label, unit);
      if (byLabel.size === 0) row(WHOLE_FILE, unit);
      for (const target of byLabel.values()) {
        if (measured.has(target.label) || (expected && !expected.includes(target.label))) continue;
        if (error.side === "both") target.presentOn.base = target.presentOn.head = true;
        else target.presentOn[error.side] = true;
        charge(target, error);
      }
    }
    // Skipped rows after the file's measured ones: listed, never failed by a process that did not run them.
    for (const label of skipped) {
      if (byLabel.has(label)) continue;
      const target = row(label, "ns");
      target.presentOn = { base: true, head: true };
      target.skipped = true;
    }
    rows.push(...byLabel.values());
  }
  return rows;
}
