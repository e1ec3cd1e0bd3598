import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { ancestors, nearestNodeModules } from "../../src/compare/sides/sides.ts";
import { join } from "pathe";
import { globToRegExp, selectBenchFiles, selectNamedFiles } from "../../src/compare/discover.ts";
import { pullRequestTarget } from "../../src/output/github.ts";
import { benchBasename, rowId } from "../../src/compare/identity.ts";
import { clock, createProgress, progressLine } from "../../src/output/progress.ts";
import { collectRows, WHOLE_FILE } from "../../src/compare/rows.ts";
import { analyzeRows } from "../../src/report/row-stats.ts";
import { createStore, openStore, type RoundRecord, type RunPlan } from "../../src/compare/run/store.ts";
import type { ChildRow } from "../../src/runner/protocol.ts";
import { pinFileLocation } from "../../src/runner/bundle.ts";
import { tempDir } from "../support/xbench.ts";

describe("bench file discovery", () => {
  const files = [
    "a.bench.ts",
    "bench/config.bench.ts",
    "bench/tracer.bench.mjs",
    "src/x.ts",
    "node_modules/p/y.bench.ts",
    "b.bench.js",
    "notes.bench.md",
  ];
  test("finds bench files, skips node_modules and non-scripts, sorted", () => {
    expect(selectBenchFiles(files)).toEqual(["a.bench.ts", "b.bench.js", "bench/config.bench.ts", "bench/tracer.bench.mjs"]);
  });
  test("a filter without wildcards is a substring of the path", () => {
    expect(selectBenchFiles(files, "config")).toEqual(["bench/config.bench.ts"]);
    expect(selectBenchFiles(files, "bench/")).toEqual(["bench/config.bench.ts", "bench/tracer.bench.mjs"]);
  });
  test("a glob matches the path or the basename", () => {
    expect(selectBenchFiles(files, "bench/*.bench.ts")).toEqual(["bench/config.bench.ts"]);
    expect(selectBenchFiles(files, "**/*.mjs")).toEqual(["bench/tracer.bench.mjs"]);
    expect(selectBenchFiles(files, "?.bench.*")).toEqual(["a.bench.ts", "b.bench.js"]);
    expect(globToRegExp("a.b*").test("a.bc")).toBe(true);
    expect(globToRegExp("a.b*").test("axbc")).toBe(false);
  });
  test("braces, classes and extglobs, as bash reads them (the forms --help shows)", () => {
    expect(selectBenchFiles(files, "bench/*.{ts,mjs}")).toEqual(["bench/config.bench.ts", "bench/tracer.bench.mjs"]);
    expect(selectBenchFiles(files, "[ab].bench.*")).toEqual(["a.bench.ts", "b.bench.js"]);
    expect(selectBenchFiles(files, "**/*.bench.@(js|mjs)")).toEqual(["b.bench.js", "bench/tracer.bench.mjs"]);
    expect(selectNamedFiles(["src/x.bench.ts", "src/y.bench.cts", "src/z.bench.js"], ["src/*.bench.?(c|m)ts"]).files).toEqual([
      "src/x.bench.ts",
      "src/y.bench.cts",
    ]);
    // The default --help names, typed as a --bench glob, pick what the default search picks.
    const tree = ["a/b.bench.mts", "c.benchmark.jsx", "d.bench.rs", "e.bench.ts.map", "f/g.benchmark.cjs"];
    expect(selectNamedFiles(tree, ["**/*.{bench,benchmark}.?(c|m)[jt]s?(x)"]).files).toEqual([
      "a/b.bench.mts",
      "c.benchmark.jsx",
      "f/g.benchmark.cjs",
    ]);
  });
});

describe("row identity", () => {
  test("basename plus 8 hex of the path's sha256", () => {
    expect(benchBasename("src/node/config/configScale.bench.ts")).toBe("configScale");
    // sha256("src/node/config/configScale.bench.ts") starts with these 8 hex digits.
    expect(rowId("src/node/config/configScale.bench.ts", "x (1)")).toMatch(/^configScale-[0-9a-f]{8}: x \(1\)$/);
    expect(rowId("a/index.bench.ts", "l")).not.toBe(rowId("b/index.bench.ts", "l"));
    expect(rowId("a/index.bench.ts", "l")).toBe(rowId("a/index.bench.ts", "l"));
  });
});

describe("collecting rows from round records", () => {
  const ok = (round: number, side: "base" | "head", value: number, extra: Array<Omit<ChildRow, "side">> = []): RoundRecord => ({
    round,
    file: "f.bench.ts",
    job: side,
    sides: [side],
    wallMs: 1,
    rows: [{ label: "t", unit: "ns" as const, value }, ...extra].map((r) => ({ ...r, side })),
  });
  const duet = (round: number, values: [number, number], extra: ChildRow[] = []): RoundRecord => ({
    round,
    file: "f.bench.ts",
    job: "duet",
    sides: ["head", "base"],
    wallMs: 1,
    rows: [
      { label: "t", side: "base", unit: "ns", value: values[0] },
      { label: "t", side: "head", unit: "ns", value: values[1] },
      ...extra,
    ],
  });
  test("aligns values by round, null where a round is missing", () => {
    const rows = collectRows(["f.bench.ts"], 3, [ok(0, "base", 10), ok(0, "head", 11), ok(2, "head", 12), ok(2, "base", 9)]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.base).toEqual([10, null, 9]);
    expect(rows[0]!.head).toEqual([11, null, 12]);
    expect(rows[0]!.presentOn).toEqual({ base: true, head: true });
    expect(rows[0]!.mode).toBe("isolated");
  });
  test("rows a file skips are listed after its measured ones and read skipped, never failed", () => {
    const skipped: RoundRecord = { round: 0, file: "f.bench.ts", job: "skipped", sides: [], wallMs: 0, expected: ["huge", "t"] };
    const failed: RoundRecord = { round: 1, file: "f.bench.ts", job: "duet", sides: ["base", "head"], wallMs: 1, error: "killed" };
    const rows = collectRows(["f.bench.ts"], 2, [skipped, duet(0, [10, 11]), failed]);
    expect(rows.map((row) => [row.label, row.skipped ?? false])).toEqual([
      ["t", false],
      ["huge", true],
    ]);
    const analyzed = analyzeRows(rows, { holm: false });
    expect(analyzed.map((row) => row.status)).toEqual(["failed", "skipped"]);
  });

  test("a duet process gives both sides of a round; the mode says how each row was measured", () => {
    const rows = collectRows(["f.bench.ts"], 2, [duet(0, [10, 11]), duet(1, [9, 12])]);
    expect(rows[0]!.base).toEqual([10, 9]);
    expect(rows[0]!.head).toEqual([11, 12]);
    expect(rows[0]!.mode).toBe("duet");
    expect(collectRows(["f.bench.ts"], 2, [duet(0, [10, 11]), ok(1, "base", 9), ok(1, "head", 9)])[0]!.mode).toBe("mixed");
  });
  test("a label on one side only is present on that side only", () => {
    const rows = collectRows(["f.bench.ts"], 2, [ok(0, "base", 1), ok(0, "head", 1, [{ label: "added", unit: "count", value: 2 }])]);
    const added = rows.find((r) => r.label === "added")!;
    expect(added.presentOn).toEqual({ base: false, head: true });
    expect(added.unit).toBe("count");
  });
  test("a benchmark error and a failed process both mark rows failed, naming the side", () => {
    const thrown = collectRows(["f.bench.ts"], 2, [
      ok(0, "base", 1),
      { ...ok(0, "head", 1), rows: [{ label: "t", side: "head", unit: "ns", error: "boom" }] },
    ]);
    expect(thrown[0]!.error).toEqual({ side: "head", message: "boom" });
    const crashed = collectRows(["f.bench.ts"], 2, [
      ok(0, "head", 1),
      { round: 0, file: "f.bench.ts", job: "base", sides: ["base"], wallMs: 1, error: "exited 1" },
    ]);
    expect(crashed[0]!.error).toEqual({ side: "base", message: "exited 1" });
    const nothing = collectRows(["f.bench.ts"], 2, [
      { round: 0, file: "f.bench.ts", job: "base", sides: ["base"], wallMs: 1, error: "syntax" },
    ]);
    expect(nothing[0]!.label).toBe(WHOLE_FILE);
  });
  test("rows a process measured before it failed keep their values; the rest fail, on both sides for a duet", () => {
    const partial: RoundRecord = { ...duet(1, [10, 11]), error: "timed out after 5 s", expected: ["t", "slow"] };
    const rows = collectRows(["f.bench.ts"], 2, [
      duet(
        0,
        [10, 11],
        [
          { label: "slow", side: "base", unit: "ns", value: 5 },
          { label: "slow", side: "head", unit: "ns", value: 5 },
        ],
      ),
      partial,
    ]);
    const t = rows.find((r) => r.label === "t")!;
    expect(t.error).toBeUndefined();
    expect(t.base).toEqual([10, 10]);
    const slow = rows.find((r) => r.label === "slow")!;
    expect(slow.error).toEqual({ side: "both", message: "timed out after 5 s" });
    expect(slow.base).toEqual([5, null]);
  });
});

describe("progress", () => {
  test("clock and the status line", () => {
    expect(clock(5)).toBe("0:05");
    expect(clock(3725)).toBe("1:02:05");
    expect(progressLine({ round: 2, rounds: 10, elapsedS: 8, load: [1, 0.5, 0.25] })).toBe(
      "round 2/10 · 0:08 elapsed · ETA 0:32 · load 1.00 0.50 0.25",
    );
    expect(progressLine({ round: 8, elapsedS: 20, note: "widest ±2.0% (target ±1.0%)", load: [1, 0.5, 0.25] })).toBe(
      "round 8 · 0:20 elapsed · widest ±2.0% (target ±1.0%) · load 1.00 0.50 0.25",
    );
  });

  /** The round numbers a log (no TTY) gets lines for, and the stream's text. */
  function logged(updates: Array<{ round: number; elapsedS: number; rounds?: number }>, budgetS?: number): number[] {
    let text = "";
    const stream = { isTTY: false, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
    const progress = createProgress(stream, budgetS === undefined ? {} : { budgetS });
    for (const u of updates) progress.update(u);
    progress.done();
    return [...text.matchAll(/^round (\d+)/gm)].map((m) => Number(m[1]));
  }

  test("in a log: the first round, then one line per tenth of the budget or of fixed rounds, and the last state", () => {
    // 240 rounds in 60 s of a 60 s budget: a line every 6 s, not 240.
    const timed = Array.from({ length: 240 }, (_, i) => ({ round: i + 1, elapsedS: (i + 1) / 4 }));
    const lines = logged(timed, 60);
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines[0]).toBe(1);
    expect(lines.at(-1)).toBe(240);
    const fixed = Array.from({ length: 100 }, (_, i) => ({ round: i + 1, rounds: 100, elapsedS: i }));
    expect(logged(fixed)).toEqual([1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    // Neither: every 10 s.
    expect(logged(timed)).toEqual([1, 40, 80, 120, 160, 200, 240]);
  });
});

describe("run folder", () => {
  test("a torn last line is dropped and the next record starts on its own line", () => {
    const { dir, cleanup } = tempDir();
    try {
      const plan = { version: 2, files: [] } as unknown as RunPlan;
      const store = createStore(dir, plan);
      store.append({ round: 0, file: "f", job: "base", sides: ["base"], wallMs: 1 });
      appendFileSync(join(dir, "rounds.ndjson"), '{"round":0,"file":"f","si');
      const reopened = openStore(dir);
      expect(reopened.records).toHaveLength(1);
      reopened.append({ round: 0, file: "f", job: "head", sides: ["head"], wallMs: 2 });
      expect(openStore(dir).records.map((r) => r.job)).toEqual(["base", "head"]);
      expect(readFileSync(join(dir, "rounds.ndjson"), "utf8").endsWith("\n")).toBe(true);
    } finally {
      cleanup();
    }
  });
});

describe("GitHub environment", () => {
  test("reads the pull request from the event file, then from the ref", () => {
    const { dir, cleanup } = tempDir();
    try {
      const event = join(dir, "event.json");
      writeFileSync(event, JSON.stringify({ pull_request: { number: 42 } }));
      const base = { GITHUB_TOKEN: "t", GITHUB_REPOSITORY: "o/r" };
      expect(pullRequestTarget({ ...base, GITHUB_EVENT_PATH: event }).number).toBe(42);
      expect(pullRequestTarget({ ...base, GITHUB_REF: "refs/pull/7/merge" })).toEqual({
        api: "https://api.github.com",
        repository: "o/r",
        number: 7,
        token: "t",
      });
      expect(() => pullRequestTarget({ GITHUB_REF: "refs/heads/main" })).toThrow(/GITHUB_TOKEN, GITHUB_REPOSITORY, a pull request/);
    } finally {
      cleanup();
    }
  });
});

describe("bundled sources keep their location", () => {
  test("import.meta and __dirname point at the original file", () => {
    const out = pinFileLocation("a(import.meta.dirname, import.meta.url, __dirname, x.__dirname, import.meta.filename)", "/r/b/c.ts");
    expect(out).toBe('a("/r/b", "file:///r/b/c.ts", "/r/b", x.__dirname, "/r/b/c.ts")');
  });
});

describe("dependencies of workspace packages", () => {
  test("folders from a bench file up to the root", () => {
    expect(ancestors("packages/p/bench/x.bench.ts")).toEqual(["packages/p/bench", "packages/p", "packages", ""]);
    expect(ancestors("x.bench.ts")).toEqual([""]);
  });
  test("the nearest node_modules wins", () => {
    const { dir, cleanup } = tempDir();
    try {
      mkdirSync(join(dir, "node_modules"));
      mkdirSync(join(dir, "packages", "p", "node_modules"), { recursive: true });
      expect(nearestNodeModules(dir, "packages/p/x.bench.ts")).toBe(join(dir, "packages", "p", "node_modules"));
      expect(nearestNodeModules(dir, "packages/q/x.bench.ts")).toBe(join(dir, "node_modules"));
    } finally {
      cleanup();
    }
  });
});
