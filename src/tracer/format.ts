/** Output formats of `xbench trace`: summary, json, ndjson. */
import { ACCESS_MODES, type Access } from "./types.ts";
import type { TraceResult } from "./run.ts";

export type TraceFormat = "summary" | "json" | "ndjson";

/** Counts of paths per mode (a path with two modes counts in both). */
export function modeCounts(accesses: readonly Access[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(ACCESS_MODES.map((m) => [m, 0]));
  for (const a of accesses) for (const m of a.modes) counts[m] = (counts[m] ?? 0) + 1;
  return counts;
}

/** One line: counts per mode, backend, completeness. */
export function summaryLine(result: TraceResult): string {
  const counts = modeCounts(result.accesses);
  const parts = ACCESS_MODES.map((m) => `${counts[m]} ${m}`).join(", ");
  const used = result.backendsUsed.length ? result.backendsUsed.join("+") : "none";
  return `traced ${result.accesses.length} paths (${parts}); backend ${result.backend} (used: ${used}); ${
    result.complete ? "complete" : "INCOMPLETE"
  }`;
}

function accessJson(a: Access): Record<string, unknown> {
  return {
    path: a.path,
    ...(a.pathHex ? { pathHex: a.pathHex } : {}),
    modes: a.modes,
    pid: a.pid,
    ...(a.truncated ? { truncated: true } : {}),
  };
}

/** The accesses in `format`, ending with a newline. */
export function formatAccesses(result: TraceResult, format: TraceFormat): string {
  const sorted = [...result.accesses].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (format === "ndjson") return sorted.map((a) => JSON.stringify(accessJson(a))).join("\n") + (sorted.length ? "\n" : "");
  if (format === "json") {
    return `${JSON.stringify(
      {
        backend: result.backend,
        backendsUsed: result.backendsUsed,
        complete: result.complete,
        incompleteReasons: result.incompleteReasons,
        changes: result.changes,
        exitCode: result.exitCode,
        ...(result.signal ? { signal: result.signal } : {}),
        accesses: sorted.map(accessJson),
      },
      null,
      2,
    )}\n`;
  }
  const width = ACCESS_MODES.join(",").length;
  const lines = sorted.map((a) => `${a.modes.join(",").padEnd(width)}  ${a.path}`);
  return `${[...lines, summaryLine(result)].join("\n")}\n`;
}
