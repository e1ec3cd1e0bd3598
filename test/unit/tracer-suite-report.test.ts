import { describe, expect, test } from "bun:test";
import {
  MARKDOWN_MARKER,
  escapeMarkdown,
  formatChange,
  formatSpread,
  formatTime,
  renderMarkdown,
  renderTerminal,
} from "../../src/suites/tracer/report.ts";
import { TRACER_SCHEMA_ID, type TracerResult, type TracerRow } from "../../src/suites/tracer/model.ts";

function row(backend: TracerRow["backend"], name: TracerRow["row"], withBase: boolean): TracerRow {
  const spread = { median: 0.012, q1: -0.004, q3: 0.029 };
  return {
    backend,
    row: name,
    workload: name === "launch" ? { threads: 2, opens: 0 } : { threads: 2, opens: 2048 },
    samples: withBase ? { head: [2, 2], base: [2, 2], untracked: [1, 1] } : { head: [2, 2], untracked: [1, 1] },
    medians: withBase ? { head: 1_520_000, base: 1_500_000, untracked: 1_100_000 } : { head: 1_520_000, untracked: 1_100_000 },
    ...(withBase ? { change: spread } : {}),
    overhead: withBase
      ? { head: { median: 0.38, q1: 0.3, q3: 0.45 }, base: { median: 0.36, q1: 0.3, q3: 0.4 } }
      : { head: { median: 0.38, q1: 0.3, q3: 0.45 } },
  };
}

function result(os: string, withBase: boolean): TracerResult {
  return {
    schema: TRACER_SCHEMA_ID,
    schemaVersion: 1,
    xbenchVersion: "0.1.0",
    os,
    arch: "x64",
    backends: ["preload", "seccomp"],
    arms: withBase ? ["head", "base", "untracked"] : ["head", "untracked"],
    iterations: { requested: 30, planned: 36, cycle: 6, warmup: 2, seed: 1 },
    passes: { launch: 5, access: 1 },
    helpers: withBase ? { head: "/h", base: "/b" } : { head: "/h" },
    loadavg: { start: [1, 2, 3], end: [1.5, 2, 3] },
    startedAt: "2026-11-30T01:00:00.000Z",
    finishedAt: "2026-11-30T01:02:00.000Z",
    rows: (["preload", "seccomp"] as const).flatMap((b) => [row(b, "launch", withBase), row(b, "access", withBase)]),
  };
}

describe("tracer report formatting", () => {
  test("signed percentages with one decimal; a rounded zero has no sign flip", () => {
    expect(formatChange(0.0123)).toBe("+1.2%");
    expect(formatChange(-0.0456)).toBe("-4.6%");
    expect(formatChange(-0.0001)).toBe("+0.0%");
    expect(formatChange(0)).toBe("+0.0%");
    expect(formatSpread({ median: 0.012, q1: -0.004, q3: 0.029 })).toBe("+1.2% [-0.4% .. +2.9%]");
  });

  test("times carry their unit with three significant digits", () => {
    expect(formatTime(512)).toBe("512 ns");
    expect(formatTime(15_234)).toBe("15.2 µs");
    expect(formatTime(1_520_000)).toBe("1.52 ms");
    expect(formatTime(2_500_000_000)).toBe("2.50 s");
  });

  test("markdown escaping of outside text", () => {
    expect(escapeMarkdown("a|b_c<d>")).toBe("a\\|b\\_c\\<d\\>");
  });
});

describe("tracer report rendering", () => {
  test("terminal: header lines and one line per backend and row", () => {
    const text = renderTerminal(result("linux", true));
    expect(text).toContain("bench tracer | linux x64 | 36 iterations (6 cycles of 6 orderings) + 2 warm-up");
    expect(text).toContain("loadavg start 1.00 2.00 3.00 | end 1.50 2.00 3.00");
    const lines = text.split("\n").filter((l) => /^(preload|seccomp) /.test(l));
    expect(lines.length).toBe(4);
    expect(lines[0]).toMatch(/^preload\s+launch\s+\+1\.2%\s+\[-0\.4% \.\. \+2\.9%\]\s+1\.52 ms\s+1\.50 ms\s+1\.10 ms\s+\+38\.0%/);
  });

  test("markdown: marker, one section per OS, a table row per backend and row", () => {
    const md = renderMarkdown([result("linux", true), result("darwin", true)]);
    expect(md.startsWith(MARKDOWN_MARKER)).toBe(true);
    expect(md).toContain("### linux");
    expect(md).toContain("### darwin");
    expect(md.indexOf("### linux")).toBeLessThan(md.indexOf("### darwin"));
    expect(md).toContain(
      "| preload | launch | +1.2% | [-0.4% .. +2.9%] | 1.52 ms | 1.50 ms | 1.10 ms | +38.0% [+30.0% .. +45.0%] | +36.0% [+30.0% .. +40.0%] |",
    );
    expect(md).toContain("(2 threads × 2048 opens)");
    expect(md).toContain("never fails the job");
  });

  test("without a base arm the change column says n/a", () => {
    const md = renderMarkdown([result("linux", false)]);
    expect(md).toContain("| seccomp | access | n/a |  | 1.52 ms |  | 1.10 ms | +38.0% [+30.0% .. +45.0%] |  |");
    expect(md).toContain("no base arm");
    expect(renderTerminal(result("linux", false))).toContain("no base (--base-helper)");
  });
});
