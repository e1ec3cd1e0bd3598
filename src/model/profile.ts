/**
 * What `compare --profile` adds to the result (docs/profile.md): per profiled row, the user
 * functions whose self time per iteration changed, from extra duet processes run under the
 * runtime's CPU profiler. Optional fields of the result: files without them read as before.
 */
import type { Side } from "./side.ts";

/**
 * `both`: the function (same name, same original file) ran on both sides; `new`: only head's
 * code has it; `removed`: only base's (a rename is one of each); `not called on head` / `not
 * called on base`: it ran on one side only, and the other side's file still has it.
 */
export type FunctionStatus = "both" | "new" | "removed" | "not called on head" | "not called on base";

export interface FunctionProfile {
  name: string;
  /** Original file, relative to the repository root. */
  file: string;
  /** 1-based line in head's file (base's for a removed function). */
  line: number;
  status: FunctionStatus;
  /** Median over the profiled processes of the self time per iteration, ns (0 where the side lacks it). */
  base: number;
  head: number;
  /** Hodges–Lehmann estimate of head − base self time per iteration, ns, over the processes. */
  change: number;
  /** Its 95% signed-rank interval, ns; unbounded below 6 processes. */
  ci: [number, number];
  /** The function's part of the row's time per iteration (head's; base's for a removed function). */
  share: number;
}

export interface RowProfile {
  /** Profiled processes this row's figures come from. */
  processes: number;
  /** Sorted by the size of `change`, largest first. */
  functions: FunctionProfile[];
  /** Per side, the median per-iteration time outside the listed functions (runtime, packages, xbench's loop), ns. */
  other: Record<Side, number>;
  /** No profiled process of the row gave a profile: the first one's error. */
  error?: string;
}

export interface ProfileSummary {
  /** `verdict`: rows with a verdict of slower or faster; `all`: every timed row measured in a duet. */
  rows: "verdict" | "all";
  /** Profiled processes per row. */
  processes: number;
  /** The profiler's sampling interval, µs. */
  intervalUs: number;
  /** Each side's merged profile (Chrome's .cpuprofile), absolute paths. */
  files?: Record<Side, string>;
}
