/**
 * Rows whose code did not change are not measured: a bench file whose two bundles are made of
 * the same project files, with packages that resolve to the same place and no run-time file
 * reads, is reported as `unchanged code` without timing. A file that reads a data file at run
 * time is measured (or compared through the inputs package.json declares); `--all` and an A/A
 * run measure everything.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import type { CompareResult } from "../../src/model/result.ts";
import { COMPARE_ENV, compareIn, repoPerTest } from "../support/compare.ts";
import { xbench, xbenchAsync } from "../support/xbench.ts";

const repoWith = repoPerTest();

/** `count` modules, each with its own bench file of three rows; module i's work is i-th. */
function suite(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`src/m${i}.js`] =
      `export function work${i}(n) { let s = 0; for (let k = 0; k < n; k++) s = (s + k * ${i + 3}) % 65521; return s; }\n`;
    files[`bench/m${i}.bench.js`] = [
      'import { bench, group } from "mitata";',
      `import { work${i} } from "../src/m${i}.js";`,
      `group("m${i}", () => {`,
      `  bench("small", () => work${i}(100));`,
      `  bench("medium", () => work${i}(1000));`,
      `  bench("large", () => work${i}(3000));`,
      "});",
      "",
    ].join("\n");
  }
  return files;
}

const FAST = ["--base", "HEAD", "--rounds", "6"];

describe("compare measures only what changed", () => {
  test("24 files of 3 rows, head changes code two of them reach: 6 rows measured, 66 unchanged code", () => {
    const repo = repoWith(suite(24));
    repo.write({
      "src/m3.js": "export function work3(n) { let s = 0; for (let k = 0; k < 2 * n; k++) s = (s + k * 6) % 65521; return s; }\n",
      "src/m17.js": "export function work17(n) { let s = 1; for (let k = 0; k < n; k++) s = (s * 31 + k) % 65521; return s; }\n",
    });
    const r = compareIn(repo, FAST, { timeMs: 20 });
    expect(r.code).toBe(0);
    const rows = r.result!.rows;
    expect(rows).toHaveLength(72);
    const measured = rows.filter((row) => row.status === "ok").map((row) => row.id.split(":")[0]);
    expect(new Set(measured)).toEqual(new Set(rows.filter((row) => /^m(3|17)-/.test(row.id)).map((row) => row.id.split(":")[0])));
    expect(measured).toHaveLength(6);
    expect(rows.filter((row) => row.status === "unchanged")).toHaveLength(66);
    expect(r.stdout).toMatch(/^m5\.bench\.js › m5 › small +— +— +unchanged code$/m);
    expect(r.stdout).toContain("66 unchanged code (not measured) (72 rows)");
    // m3 does twice the work on head.
    const doubled = rows.find((row) => row.id.startsWith("m3-") && row.label === "m3 › large")!;
    expect(doubled.stats!.verdict).toBe("slower");
  }, 300_000);

  test("a bench file that reads a changed data file at run time is measured; declared inputs decide it", () => {
    const repo = repoWith({
      "data/words.txt": "alpha beta gamma\n",
      "bench/words.bench.js": [
        'import { bench } from "mitata";',
        'import { readFileSync } from "node:fs";',
        'const words = readFileSync(new URL("../data/words.txt", import.meta.url), "utf8").split(/\\s+/);',
        'bench("join", () => words.join("-"));',
        "",
      ].join("\n"),
      ...suite(1),
    });
    repo.write({ "data/words.txt": "alpha beta gamma delta epsilon zeta eta theta\n".repeat(50) });
    const r = compareIn(repo, FAST, { timeMs: 20 });
    expect(r.code).toBe(0);
    const status = (id: string) => r.result!.rows.filter((row) => row.id.startsWith(id)).map((row) => row.status);
    expect(status("words-")).toEqual(["ok"]);
    expect(status("m0-")).toEqual(["unchanged", "unchanged", "unchanged"]);

    // Declared inputs that did not change: the reader is unchanged code too.
    repo.write({ "data/words.txt": "alpha beta gamma\n", "package.json": '{ "xbench": { "inputs": ["data/**"] } }\n' });
    repo.commit("declare inputs");
    // A tracked file no bench file reads changes (untracked files alone would make this an A/A run).
    repo.write({ "package.json": '{ "description": "words", "xbench": { "inputs": ["data/**"] } }\n' });
    const same = compareIn(repo, FAST, { timeMs: 20 });
    expect(same.code).toBe(0);
    expect(same.result!.rows.every((row) => row.status === "unchanged")).toBe(true);
    // Every row unchanged (a change to docs only): an answer, exit 0, nothing timed.
    expect(same.stdout).toContain("4 unchanged code (not measured) (4 rows)");
  }, 300_000);

  test("--all measures unchanged files too, and an A/A run always does", () => {
    const repo = repoWith({ ...suite(2), "README.md": "docs\n" });
    const aa = compareIn(repo, FAST, { timeMs: 20 });
    expect(aa.result!.rows.every((row) => row.status === "ok")).toBe(true);
    repo.write({ "README.md": "docs only\n" });
    const quick = compareIn(repo, FAST, { timeMs: 20 });
    expect(quick.result!.rows.every((row) => row.status === "unchanged")).toBe(true);
    const all = compareIn(repo, [...FAST, "--all"], { timeMs: 20 });
    expect(all.code).toBe(0);
    expect(all.result!.rows.every((row) => row.status === "ok")).toBe(true);
  }, 300_000);
});

describe("compare --shard I/N and report --merge", () => {
  test("4 shards as 4 processes, merged: the same rows as one unsharded run; a missing shard is one line", async () => {
    const repo = repoWith(suite(8));
    const dir = mkdtempSync(join(tmpdir(), "xbench-shards-"));
    try {
      const shard = (i: number) =>
        xbenchAsync(
          // One bench process per shard at a time: four shards on two cores are load enough, and a
          // process that hangs fails its rows after --timeout instead of the test.
          [
            "compare",
            "--base",
            "HEAD",
            "--rounds",
            "6",
            "--time",
            "10",
            "--jobs",
            "1",
            "--timeout",
            "120",
            "--all",
            "--shard",
            `${i}/4`,
            "--json",
            join(dir, `s${i}.json`),
          ],
          {
            cwd: repo.dir,
            env: COMPARE_ENV,
          },
        );
      const runs = await Promise.all([1, 2, 3, 4].map(shard));
      for (const r of runs) expect(r.code).toBe(0);
      const merged = xbench(["report", "--merge", ...[1, 2, 3, 4].map((i) => join(dir, `s${i}.json`)), "--format", "json"]);
      expect(merged.code).toBe(0);
      const rows = (JSON.parse(merged.stdout) as CompareResult).rows;
      const whole = compareIn(repo, [...FAST, "--all"], { timeMs: 10 });
      expect(rows.map((row) => row.id).sort()).toEqual(whole.result!.rows.map((row) => row.id).sort());
      expect(rows.every((row) => row.status === "ok")).toBe(true);
      // Each shard measured some files and no file twice.
      const perShard = [1, 2, 3, 4].map((i) => (JSON.parse(readFileSync(join(dir, `s${i}.json`), "utf8")) as CompareResult).rows.length);
      expect(perShard.reduce((a, b) => a + b, 0)).toBe(24);
      expect(Math.min(...perShard)).toBeGreaterThan(0);
      const missing = xbench(["report", "--merge", ...[1, 2, 4].map((i) => join(dir, `s${i}.json`))]);
      expect(missing.code).toBe(2);
      expect(missing.stderr.trim()).toBe("xbench: shard 3/4 missing");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
