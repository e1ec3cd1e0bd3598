/**
 * One row's per-function table from its profiled processes (docs/profile.md).
 *
 * Per process and side, a function's self time per iteration is its share of the side's
 * samples times the side's time per iteration from the row's own rounds (the median of
 * base's rounds, and that times 1 + the row's delta for head, as the table shows them):
 * self samples / side's samples × row time. Shares, not the profiled processes' own timings:
 * a process that the machine's load slows on one side slows all of that side's functions
 * alike, which a share cancels and a timing would not, and the rounds ran without the
 * profiler's overhead. The profile covers warm-up and measured batches alike, and so does the
 * share. A side's functions and its "other" add up to its row time.
 *
 * The change of a function is the paired difference head − base within each process (both
 * sides shared its load), summarised by the Hodges–Lehmann estimate and the signed-rank
 * interval the rows use (stats/signed-rank.ts), on differences rather than log ratios: a
 * function one side lacks has 0 there, and differences add up to the row's change.
 */
import type { FunctionProfile, FunctionStatus, RowProfile } from "../model/profile.ts";
import type { Side } from "../model/result.ts";
import { LEVEL } from "../stats/paired.ts";
import { median } from "../stats/quantile.ts";
import { hodgesLehmannInterval, walshSummary } from "../stats/signed-rank.ts";
import { functionKey, type FunctionId, type ProcessAttribution } from "./attribute.ts";

/** Functions listed per row at most, by the size of their change; the rest count in "other". */
export const MAX_FUNCTIONS = 25;

/** Each side's share of its samples per user function in one process, by functionKey. */
function shares(process: ProcessAttribution, side: Side): Map<string, number> {
  const time = process.sides[side];
  const out = new Map<string, number>();
  if (time.samples > 0) for (const [key, fn] of time.functions) out.set(key, fn.self / time.samples);
  return out;
}

function statusOf(onBase: boolean, onHead: boolean): FunctionStatus {
  return onBase && onHead ? "both" : onHead ? "new" : "removed";
}

/**
 * Whether source text defines a function `name`: `function name(`, `class name`, `name = (…) =>`
 * or `= function`, `name: x =>`, or a method `name(…) {`. A property that merely holds another
 * function (`render: paint`, after a rename) or a call is not a definition.
 */
export function definesFunction(text: string, name: string): boolean {
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const forms = [
    `function\\s*\\*?\\s*${n}\\s*\\(`,
    `class\\s+${n}(?![\\w$])`,
    `${n}\\s*[:=]\\s*(?:async\\s+)?(?:function(?![\\w$])|\\([^)]*\\)\\s*=>|[\\w$]+\\s*=>)`,
    `${n}\\s*\\([^)]*\\)\\s*\\{`,
  ];
  return new RegExp(`(?:^|[^\\w$.])(?:${forms.join("|")})`, "m").test(text);
}

/**
 * A function that ran on one side only, `new` or `removed` by its samples, read against the
 * other side's source: when that side's file still has the name, the function is there and
 * was just not called. `sourceOf(side, file)` is the file's text on a side, undefined if absent.
 */
export function refineStatus(fn: FunctionProfile, sourceOf: (side: Side, file: string) => string | undefined): FunctionProfile {
  if (fn.status !== "new" && fn.status !== "removed") return fn;
  const other: Side = fn.status === "new" ? "base" : "head";
  const text = sourceOf(other, fn.file);
  if (text === undefined || !definesFunction(text, fn.name)) return fn;
  return { ...fn, status: other === "head" ? "not called on head" : "not called on base" };
}

/**
 * The per-function table of one row from its profiled processes (at least one); `rowTime`
 * is each side's time per iteration from the row's rounds, ns.
 */
export function rowProfile(processes: readonly ProcessAttribution[], rowTime: Record<Side, number>): RowProfile {
  const perSide = processes.map((p) => ({ base: shares(p, "base"), head: shares(p, "head") }));
  const ids = new Map<string, { base?: FunctionId; head?: FunctionId }>();
  for (const p of processes)
    for (const side of ["base", "head"] as const)
      for (const [key, fn] of p.sides[side].functions) ids.set(key, { ...ids.get(key), [side]: fn });
  const functions: FunctionProfile[] = [...ids].map(([key, id]) => {
    const base = perSide.map((s) => (s.base.get(key) ?? 0) * rowTime.base);
    const head = perSide.map((s) => (s.head.get(key) ?? 0) * rowTime.head);
    const walsh = walshSummary(head.map((h, i) => h - base[i]!));
    const status = statusOf(!!id.base, !!id.head);
    const shown = status === "removed" ? "base" : "head";
    return {
      name: id[shown]!.name,
      file: id[shown]!.file,
      line: id[shown]!.line,
      status,
      base: median(base),
      head: median(head),
      change: walsh.estimate,
      ci: hodgesLehmannInterval(walsh, LEVEL).interval,
      share: median(perSide.map((s) => s[shown].get(key) ?? 0)),
    };
  });
  const listed = functions.sort((a, b) => Math.abs(b.change) - Math.abs(a.change) || b.share - a.share).slice(0, MAX_FUNCTIONS);
  const other = (side: Side) =>
    rowTime[side] * (1 - median(perSide.map((s) => listed.reduce((sum, f) => sum + (s[side].get(functionKey(f)) ?? 0), 0))));
  return { processes: processes.length, functions: listed, other: { base: other("base"), head: other("head") } };
}
