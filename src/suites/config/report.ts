import type { SnapshotPolicy } from "./store.ts";
import type { OverheadRatio, TimingRow } from "./suite.ts";

/** What `xbench bench config` measured; also its `--json` document (versioned). */
export interface ConfigSuiteResult {
  schema: "xbench.bench-config/1";
  runtime: string;
  policy: SnapshotPolicy;
  sizes: number[];
  fixtures: { size: number; bytes: number }[];
  rows: TimingRow[];
  metrics: { label: string; unit: "count"; value: number }[];
  /** Parses per save of the reader-on-every-turn edit under each design, per size. */
  designs: { size: number; parsesPerSave: Record<SnapshotPolicy, number> }[];
  readerOverhead: OverheadRatio | null;
}

export function formatTime(ns: number): string {
  if (!Number.isFinite(ns)) return "-";
  if (ns < 1e3) return `${ns.toFixed(1)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(2)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(2)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

/** The terminal table: timing rows, then the exact metrics, then the 5% budget line. */
export function renderConfigSuite(result: ConfigSuiteResult): string {
  const width = Math.max(40, ...result.rows.map((r) => r.label.length), ...result.metrics.map((m) => m.label.length)) + 2;
  const lines = [
    `config suite | runtime ${result.runtime} | store design ${result.policy} | fixtures ${result.fixtures
      .map((f) => `${f.size}: ${(f.bytes / 1e6).toFixed(2)} MB`)
      .join(", ")}`,
    "",
    `${"benchmark".padEnd(width)}${"median".padStart(12)}${"mean".padStart(12)}${"samples".padStart(9)}`,
  ];
  for (const row of result.rows) {
    if (row.error) lines.push(`${row.label.padEnd(width)}  error: ${row.error}`);
    else
      lines.push(
        `${row.label.padEnd(width)}${formatTime(row.p50).padStart(12)}${formatTime(row.avg).padStart(12)}${String(row.samples).padStart(9)}`,
      );
  }
  lines.push("");
  for (const m of result.metrics) {
    const designs = result.designs.find((d) => m.label.endsWith(`(${d.size})`));
    const others = designs
      ? `   (keep-matching ${designs.parsesPerSave["keep-matching"].toFixed(2)}, clear-always ${designs.parsesPerSave["clear-always"].toFixed(2)})`
      : "";
    lines.push(`${m.label.padEnd(width)}${m.value.toFixed(2).padStart(12)}${others}`);
  }
  const o = result.readerOverhead;
  if (o) {
    const verdict = o.ratio <= 1.05 ? "within" : "over";
    lines.push(
      "",
      `reader on every turn vs same-value edit (${o.size}): ratio ${o.ratio.toFixed(3)} (${((o.ratio - 1) * 100).toFixed(1)}%; median of ${o.pairs} interleaved pairs, quartiles ${o.ratioQ1.toFixed(3)} .. ${o.ratioQ3.toFixed(3)}; ${formatTime(o.medianReaderNs)} vs ${formatTime(o.medianSameValueNs)}), ${verdict} the 5% budget`,
    );
  }
  return `${lines.join("\n")}\n`;
}
