/** Pure parts of pointing compare at a real project: named bench files, empty results, wide intervals, help text. */
import { describe, expect, test } from "bun:test";
import { closest, editDistance } from "../../src/util/suggest.ts";
import { filterFiles, repoRelativePattern, selectNamedFiles } from "../../src/compare/discover.ts";
import { benchBasename, rowId } from "../../src/compare/identity.ts";
import { describeDirty, headLabel, packageBenchList } from "../../src/compare/plan.ts";
import { collectRows } from "../../src/compare/rows.ts";
import type { RoundRecord } from "../../src/compare/run/store.ts";
import { analyzeRows, failureLines, nothingCompared, type RawRow } from "../../src/report/row-stats.ts";
import { formatBound, formatInterval, rowCells, rowNotes } from "../../src/report/text.ts";
import { renderJson } from "../../src/report/json.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { SCHEMA_ID, SCHEMA_VERSION, type CompareResult, type Row } from "../../src/model/result.ts";
import { renderTerminal } from "../../src/report/terminal.ts";
import { failureTail } from "../../src/util/text.ts";
import { analyzeResult, showRow } from "../../src/report/analysis.ts";

describe("bench files named by the project", () => {
  const files = [
    "test/bench/index.ts",
    "test/bench/util.ts",
    "bench/a.bench.ts",
    "bench/b.bench.ts",
    "node_modules/x/bench.ts",
    "src/router.ts",
  ];

  test("a plain path names one file whatever it is called; a glob every match outside node_modules", () => {
    expect(selectNamedFiles(files, ["test/bench/index.ts"])).toEqual({ files: ["test/bench/index.ts"], unmatched: [] });
    expect(selectNamedFiles(files, ["**/bench.ts", "bench/*.ts"]).files).toEqual(["bench/a.bench.ts", "bench/b.bench.ts"]);
    expect(selectNamedFiles(files, ["test/bench/index.ts", "test/bench/index.ts"]).files).toEqual(["test/bench/index.ts"]);
  });

  test("patterns that match nothing are reported, the rest still picked", () => {
    expect(selectNamedFiles(files, ["bench/*.ts", "test/bench/missing.ts", "index.ts"])).toEqual({
      files: ["bench/a.bench.ts", "bench/b.bench.ts"],
      unmatched: ["test/bench/missing.ts", "index.ts"],
    });
  });

  test("a pattern typed in a subfolder is taken relative to it", () => {
    expect(repoRelativePattern("./bench/x.ts", "packages/p")).toBe("packages/p/bench/x.ts");
    expect(repoRelativePattern("../q/x.ts", "packages/p")).toBe("packages/q/x.ts");
    expect(repoRelativePattern("test/bench/index.ts", "")).toBe("test/bench/index.ts");
    expect(repoRelativePattern("./**/*.bench.ts", "")).toBe("**/*.bench.ts");
  });

  test("FILTER narrows a named list by substring or glob", () => {
    expect(filterFiles(["test/bench/index.ts", "bench/a.bench.ts"], "index")).toEqual(["test/bench/index.ts"]);
    expect(filterFiles(["test/bench/index.ts", "bench/a.bench.ts"], "*.bench.ts")).toEqual(["bench/a.bench.ts"]);
  });

  test('package.json "xbench": { "bench": [...] }: a list, a single string, or nothing', () => {
    expect(
      packageBenchList(JSON.stringify({ name: "rou3", xbench: { bench: ["test/bench/index.ts", "./bench/*.ts"] } }), "package.json"),
    ).toEqual(["test/bench/index.ts", "bench/*.ts"]);
    expect(packageBenchList(JSON.stringify({ xbench: { bench: "test/bench/index.ts" } }), "package.json")).toEqual(["test/bench/index.ts"]);
    expect(packageBenchList(JSON.stringify({ name: "rou3" }), "package.json")).toBeUndefined();
    expect(packageBenchList(undefined, "package.json")).toBeUndefined();
    expect(packageBenchList("{ not json", "package.json")).toBeUndefined();
    for (const bad of [[], [1], { a: 1 }, [""]]) {
      expect(() => packageBenchList(JSON.stringify({ xbench: { bench: bad } }), "package.json at v2")).toThrow(
        'package.json at v2: "xbench.bench" must be a path or glob, or a non-empty list of them',
      );
    }
  });

  test("a named suite file gets its basename without the extension in row names", () => {
    expect(benchBasename("test/bench/index.ts")).toBe("index");
    expect(benchBasename("bench/router.bench.mjs")).toBe("router");
    expect(rowId("test/bench/index.ts", "lookup › static")).toMatch(/^index-[0-9a-f]{8}: lookup › static$/);
  });
});

describe("a dirty working tree, stated once with what made it dirty", () => {
  test("changed and untracked files, at most three named of each", () => {
    expect(describeDirty({ changed: [], untracked: ["wrap.ts"] })).toBe("1 untracked (wrap.ts)");
    expect(describeDirty({ changed: ["a.ts", "b.ts", "c.ts", "d.ts", "e.ts"], untracked: [] })).toBe(
      "5 changed (a.ts, b.ts, c.ts, … 2 more)",
    );
    expect(describeDirty({ changed: [], untracked: [] })).toBeUndefined();
    expect(headLabel({ ref: "working tree", dirty: true, dirtyWith: "1 untracked (wrap.ts)" })).toBe(
      "working tree, dirty: 1 untracked (wrap.ts)",
    );
    expect(headLabel({ ref: "v2", dirty: false })).toBe("v2");
  });
});

describe("empty results are failures, never a pass", () => {
  test("a file that fails on a side is one line naming file and side, whatever rows it had", () => {
    const file = "test/bench/index.ts";
    const noBenchmark = "registers no benchmark (no bench(), metric() or command() ran when the file loaded)";
    // As the engine records a side it cannot measure: once, expecting the labels the other side has.
    const records: RoundRecord[] = [
      { round: 0, file, job: "base", sides: ["base"], wallMs: 0, error: noBenchmark, expected: ["parse", "stringify"] },
    ];
    const rows = analyzeRows(collectRows([file], 6, records), { holm: false });
    expect(rows.map((r) => r.status)).toEqual(["failed", "failed"]);
    expect(failureLines(rows)).toEqual([`test/bench/index.ts on base: ${noBenchmark}`]);
    const duet: RoundRecord[] = [
      { round: 0, file, job: "duet", sides: ["head", "base"], wallMs: 5, error: "killed after 600 s", expected: ["parse"] },
    ];
    expect(failureLines(analyzeRows(collectRows([file], 6, duet), { holm: false }))).toEqual([
      "test/bench/index.ts on both sides: killed after 600 s",
    ]);
  });

  test("a file that fails the same way on base and head failed on both sides, not on base", () => {
    const file = "bench/url.bench.ts";
    const error = "URLPattern is not defined";
    const records: RoundRecord[] = (["base", "head"] as const).map((side) => ({
      round: 0,
      file,
      job: side,
      sides: [side],
      wallMs: 0,
      error,
      expected: ["match"],
    }));
    const both = analyzeRows(collectRows([file], 6, records), { holm: false });
    expect(failureLines(both)).toEqual([`${file} on both sides: ${error}`]);
    expect(rowNotes(both.map(showRow)).map((n) => n.text)).toEqual([`failed on both sides (base and head): ${error}`]);
    // Different errors on each side stay apart: the first one is the row's.
    const apart = records.map((r, i) => ({ ...r, error: `${error} (${i})` }));
    expect(failureLines(analyzeRows(collectRows([file], 6, apart), { holm: false }))).toEqual([`${file} on base: ${error} (0)`]);
    // A row that throws on each side in one process, the same way.
    const rows: RoundRecord = {
      round: 0,
      file,
      job: "duet",
      sides: ["base", "head"],
      wallMs: 1,
      rows: (["base", "head"] as const).map((side) => ({ label: "match", side, unit: "ns" as const, error: "boom" })),
    };
    expect(failureLines(analyzeRows(collectRows([file], 6, [rows]), { holm: false }))).toEqual([`${file} on both sides: boom`]);
  });

  test("one line per file, side and error; rows named only when not the whole file", () => {
    const raw = (label: string, error?: RawRow["error"]): RawRow => ({
      id: rowId("t.bench.ts", label),
      file: "t.bench.ts",
      label,
      unit: "ns",
      base: [1, 2],
      head: [1, 2],
      presentOn: { base: true, head: true },
      ...(error ? { error } : {}),
    });
    const rows = analyzeRows([raw("fine"), raw("fragile", { side: "head", message: "broken on purpose\n    at spin" })], { holm: false });
    expect(failureLines(rows)).toEqual(['t.bench.ts on head ("fragile"): broken on purpose']);
  });

  test("a table with no row measured on both sides says why", () => {
    expect(nothingCompared([])).toBe("no benchmark was measured: the bench files reported no rows");
    const onlyOneSide = analyzeRows(
      [
        { id: "x: new", file: "x.ts", label: "new", unit: "ns", base: [null, null], head: [1, 2], presentOn: { base: false, head: true } },
        { id: "x: old", file: "x.ts", label: "old", unit: "ns", base: [1, 2], head: [null, null], presentOn: { base: true, head: false } },
      ],
      { holm: false },
    );
    expect(nothingCompared(onlyOneSide)).toBe("no benchmark was measured on both sides (1 new, 1 removed)");
    const measured = analyzeRows(
      [{ id: "x: t", file: "x.ts", label: "t", unit: "ns", base: [1, 2], head: [1, 2], presentOn: { base: true, head: true } }],
      { holm: false },
    );
    expect(nothingCompared(measured)).toBeUndefined();
    // An empty loop on both sides was measured: `no work measured` is an answer, not a failure.
    const empty = analyzeRows(
      [{ id: "x: e", file: "x.ts", label: "e", unit: "ns", base: [0.3, 0.31], head: [0.3, 0.32], presentOn: { base: true, head: true } }],
      { holm: false },
    );
    expect(empty[0]!.status).toBe("no-work");
    expect(nothingCompared(empty)).toBeUndefined();
  });
});

describe("intervals too wide for a percentage", () => {
  test.each([
    [9.99, "+999.0%"],
    [10, ">+999%"],
    [282586.492, ">+999%"],
    // biome-ignore lint/correctness/noPrecisionLoss: the value a real run printed
    [3.4134216554237784e24, ">+999%"],
    [-0.999, "-99.9%"],
    [-0.99995, "<-99.9%"],
    [-1, "-100.0%"], // unbounded below: a ratio of 0
    [Infinity, "+∞"], // unbounded above (fewer than 6 rounds)
    [0.123, "+12.3%"],
  ])("%d is %s", (x, text) => expect(formatBound(x)).toBe(text));

  test("terminal and markdown print the bounds, the JSON keeps the numbers", () => {
    expect(formatInterval([-0.99999, 282586.492])).toBe("[<-99.9%, >+999%]");
    const row: Row = {
      id: "index-00000000: wide",
      file: "test/bench/index.ts",
      label: "wide",
      unit: "ns",
      status: "ok",
      base: [100, 9000],
      head: [20000, 10],
      stats: {
        n: 2,
        // biome-ignore lint/correctness/noPrecisionLoss: the value a real run printed
        delta: 3.4134216554237784e24,
        ci: [-0.99999, 282586.492],
        verdict: "~",
        baseMedian: 4550,
        headMedian: 10005,
        ratioMedian: 1,
        ratioQ1: 0,
        ratioQ3: 2,
      },
    };
    expect(rowCells(showRow(row))).toMatchObject({ delta: ">+999%", ci: "[<-99.9%, >+999%]" });
    const result: CompareResult = {
      schema: SCHEMA_ID,
      schemaVersion: SCHEMA_VERSION,
      xbenchVersion: "0.1.0",
      runtime: "node",
      rounds: { requested: 2, planned: 2, completed: 2, cycle: 2 },
      base: { ref: "main", sha: "a".repeat(40), dirty: false },
      head: { ref: "working tree", sha: "b".repeat(40), dirty: false },
      loadavg: { start: [1, 1, 1], end: [1, 1, 1] },
      startedAt: "2026-11-30T00:00:00.000Z",
      finishedAt: "2026-11-30T00:01:00.000Z",
      holm: false,
      rows: [row],
    };
    for (const text of [renderTerminal(analyzeResult(result), { color: false }), renderMarkdown(analyzeResult(result))]) {
      expect(text).toContain("[<-99.9%, >+999%]");
      expect(text).not.toContain("e+");
      expect(text).not.toContain("28258649");
    }
    expect(JSON.parse(renderJson(result)).rows[0].stats.ci).toEqual([-0.99999, 282586.492]);
  });
});

describe("did you mean", () => {
  test("the closest command within two edits, or a prefix", () => {
    const names = ["compare", "trace", "bench", "report"];
    expect(closest("compre", names)).toBe("compare");
    expect(closest("comapre", names)).toBe("compare");
    expect(closest("comp", names)).toBe("compare");
    expect(closest("trce", names)).toBe("trace");
    expect(closest("frobnicate", names)).toBeUndefined();
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});

describe("the output of a failed setup step", () => {
  test("the last lines, and the start of the first error when it scrolled out of them", () => {
    const usage = Array.from({ length: 20 }, (_, i) => `npm error   --option-${i}`);
    const out = ["npm error code EUSAGE", "npm error", "npm error Missing: left-pad@1.3.0 from lock file", ...usage].join("\n");
    expect(failureTail(out, 3).split("\n")).toEqual([
      "npm error code EUSAGE",
      "npm error Missing: left-pad@1.3.0 from lock file",
      "npm error   --option-0",
      "npm error   --option-1",
      "…",
      "npm error   --option-17",
      "npm error   --option-18",
      "npm error   --option-19",
    ]);
    expect(failureTail("a\nb\nc\n", 2)).toBe("b\nc");
    expect(failureTail("cannot build: ready missing\n", 15)).toBe("cannot build: ready missing");
  });
});
