/**
 * Files that share a process (src/compare/rounds/shared.ts): which files go together, in which order,
 * and how one process's outcome becomes each file's, as if each had had a process of its own.
 */
import { describe, expect, test } from "bun:test";
import { roundSeconds, sharedProcessMs } from "../../src/compare/rounds/allocate.ts";
import { SHARED_LOAD_SHARE, shareFiles, splitShared } from "../../src/compare/rounds/shared.ts";
import { parseChildLines, type ChildLine } from "../../src/runner/protocol.ts";
import type { BenchOutcome } from "../../src/runner/spawn.ts";

const FILES = ["a.bench.ts", "b.bench.ts", "c.bench.ts"];

function outcome(lines: ChildLine[], extra: Partial<BenchOutcome> = {}): BenchOutcome {
  return { report: parseChildLines(lines.map((l) => JSON.stringify(l)).join("\n")), wallMs: 1000, ...extra };
}

const row = (file: string, label: string): ChildLine => ({ t: "row", file, label, side: "base", unit: "ns", value: 1 });

describe("which files share a process", () => {
  test("every file once, at most N a process, in an order drawn per round and the same for the same seed", () => {
    const items = Array.from({ length: 40 }, (_, i) => i);
    const groups = shareFiles(items, 16, 7, 3);
    expect(groups.map((g) => g.length)).toEqual([16, 16, 8]);
    expect(groups.flat().sort((a, b) => a - b)).toEqual(items);
    expect(shareFiles(items, 16, 7, 3)).toEqual(groups);
    const firsts = new Set(Array.from({ length: 20 }, (_, round) => shareFiles(items, 40, 7, round)[0]![0]));
    expect(firsts.size).toBeGreaterThan(5);
    expect(shareFiles([], 16, 7, 0)).toEqual([]);
    expect(shareFiles(items, 1, 7, 0).every((g) => g.length === 1)).toBe(true);
  });
});

describe("one process's outcome, file by file", () => {
  test("finished files get their rows and time, the process's start shared among them", () => {
    const split = splitShared(
      FILES,
      outcome([
        row("a.bench.ts", "x"),
        { t: "file-end", file: "a.bench.ts", ms: 300 },
        row("b.bench.ts", "y"),
        { t: "file-end", file: "b.bench.ts", ms: 200 },
        row("c.bench.ts", "z"),
        { t: "file-end", file: "c.bench.ts", ms: 200 },
        { t: "end" },
      ]),
    );
    expect(split.notRun).toEqual([]);
    expect(split.parts.map((p) => [p.file, p.outcome.report.rows.map((r) => r.label), p.outcome.error])).toEqual([
      ["a.bench.ts", ["x"], undefined],
      ["b.bench.ts", ["y"], undefined],
      ["c.bench.ts", ["z"], undefined],
    ]);
    expect(split.parts.map((p) => p.outcome.wallMs)).toEqual([400, 300, 300]);
    expect(split.parts[0]!.outcome.report.rows[0]).not.toHaveProperty("file");
  });

  test("a crash is the file it happened in; files after it are not run; a load error is its file's alone", () => {
    const split = splitShared(
      FILES,
      outcome(
        [
          { t: "load-error", file: "a.bench.ts", side: "head", message: "SyntaxError: nope" },
          { t: "file-end", file: "a.bench.ts", ms: 100 },
          row("b.bench.ts", "y"),
        ],
        { error: "exited 7", timedOut: true },
      ),
    );
    expect(split.parts.map((p) => [p.file, p.outcome.error, p.outcome.timedOut])).toEqual([
      ["a.bench.ts", "SyntaxError: nope", undefined],
      ["b.bench.ts", "exited 7", true],
    ]);
    expect(split.parts[1]!.outcome.report.rows.map((r) => r.label)).toEqual(["y"]);
    expect(split.parts[1]!.outcome.wallMs).toBe(900);
    expect(split.notRun).toEqual(["c.bench.ts"]);
  });
});

describe("what a shared process costs", () => {
  const BUDGET = { batchNs: 1e6, sideNs: 50e6, warmupNs: 12.5e6, minBatches: 8 };
  test("the costliest file's start once, the others' loads at their share", () => {
    expect(sharedProcessMs([500, 400, 300], [100, 100, 100])).toBeCloseTo(500 + SHARED_LOAD_SHARE * 700 + 300, 9);
    expect(sharedProcessMs([], [])).toBe(0);
  });

  test("a round of nine duet files costs less shared than one process each", () => {
    const files = Array.from({ length: 9 }, () => ({ loadMs: 700, rows: 6, processes: 1 }));
    const alone = roundSeconds(files, BUDGET, 2, 1);
    const shared = roundSeconds(files, BUDGET, 2, 16);
    expect(shared).toBeLessThan(alone);
    // The rows' own time is the same: only the loads differ.
    expect(alone - shared).toBeCloseTo((8 * 700 * (1 - SHARED_LOAD_SHARE)) / 2 / 1000, 6);
  });
});
