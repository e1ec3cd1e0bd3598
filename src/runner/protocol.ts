/**
 * What a bench process reports to xbench: one JSON file, written once at the end, never
 * scraped from human output. Bumped when the shape changes.
 */
export const CHILD_PROTOCOL = 1;

export type ChildUnit = "ns" | "count" | "bytes";

/** One benchmark's value in this process, or the error it threw. */
export interface ChildRow {
  label: string;
  unit: ChildUnit;
  /**
   * A measurement that varies from run to run although its unit is not time (a command's
   * peak RSS): compared with a paired interval like a time, not exactly like a count.
   */
  sampled?: true;
  value?: number;
  error?: string;
}

export interface ChildReport {
  protocol: typeof CHILD_PROTOCOL;
  runtime: string;
  rows: ChildRow[];
}

/** Environment variables the parent sets for a bench process. */
export const CHILD_ENV = {
  /** Where the child writes its ChildReport. */
  resultFile: "XBENCH_RESULT_FILE",
  /** Minimum sampling time per benchmark, in nanoseconds (mitata's default otherwise). */
  benchTimeNs: "XBENCH_BENCH_TIME_NS",
  /** JSON argv prefix of `xbench exec-stats`, which times a command and reads its peak RSS. */
  execStats: "XBENCH_EXEC_STATS",
} as const;

export function parseChildReport(text: string): ChildReport {
  const report = JSON.parse(text) as ChildReport;
  if (report?.protocol !== CHILD_PROTOCOL || !Array.isArray(report.rows)) {
    throw new Error(`bench process spoke protocol ${String(report?.protocol)}, expected ${CHILD_PROTOCOL}`);
  }
  return report;
}
