/**
 * `--measure instructions|cycles` (docs/counting.md) through dist/xbench on temporary
 * repositories: bench processes counted under valgrind's callgrind. The change under test is
 * +5% of a loop's iterations, twenty times the interval counts give on this code (±0.05% or
 * less), and a fifth of what the timed noise floor of a short run here is: counts see it in 6
 * rounds under any load, a timed run of the same length often would not. Valgrind missing is
 * one line and exit 2, before any work.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "pathe";
import type { BisectResult } from "../../src/compare/bisect/bisect.ts";
import type { HistoryReport } from "../../src/history/chain.ts";
import type { CompareResult } from "../../src/model/result.ts";
import { COMPARE_ENV, compareIn, repoPerTest, rowOf } from "../support/compare.ts";
import { createRepo, slowdownHistory, workFiles, type TestRepo } from "../support/repo.ts";
import { ROOT, tempDir, xbench } from "../support/xbench.ts";

const repoWith = repoPerTest();
const { dir: out, cleanup } = tempDir("xbench-counting-");
const repos: TestRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
  cleanup();
});

/** Base, and head whose `spin` runs 5% more iterations of its loop; `same` is unchanged code in the same file. */
function fivePercentHead(): TestRepo {
  const repo = repoWith(
    workFiles("c.bench.ts", [
      { label: "spin", work: 2000 },
      { label: "same", work: 1000 },
    ]),
  );
  repo.write(
    workFiles("c.bench.ts", [
      { label: "spin", work: 2100 },
      { label: "same", work: 1000 },
    ]),
  );
  repo.commit("spin: 5% more iterations");
  return repo;
}

const COUNTED = ["--base", "HEAD~1", "--head", "HEAD", "--rounds", "6"];

describe("compare --measure instructions", () => {
  test("es-toolkit's camelCase from npm counts more on the side that ran first; read by order, A/A is exactly same", () => {
    // Measured on this machine's node: the side that warms up first counts about 3% more in
    // every process (docs/counting.md, "Rows that count differently by which side ran first").
    const repo = repoWith({
      "bench/case.bench.mjs": [
        'import { bench, run } from "mitata";',
        'import { camelCase } from "es-toolkit";',
        'const words = "Hello World foo-bar BAZ_qux déjà vu".repeat(4);',
        'bench("camelCase", () => camelCase(words));',
        "await run();",
        "",
      ].join("\n"),
      ".gitignore": "node_modules\n",
    });
    mkdirSync(join(repo.dir, "node_modules"), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", "es-toolkit"), join(repo.dir, "node_modules", "es-toolkit"));
    const r = compareIn(repo, ["--measure", "instructions", "--base", "HEAD", "--rounds", "8"]);
    expect(r.code).toBe(0);
    const row = rowOf(r.result, "camelCase");
    // The rounds differ by which side ran first: a pair's ratio is a few percent either way.
    expect(row.stats!.ratioQ3 - row.stats!.ratioQ1).toBeGreaterThan(0.01);
    expect(row.stats).toMatchObject({ method: "crossover", verdict: "same" });
    expect(Math.abs(row.stats!.ci[0])).toBeLessThan(0.001);
    expect(Math.abs(row.stats!.ci[1])).toBeLessThan(0.001);
  });

  test("finds +5% of a loop, its gate fails above 2%, the other row reads same; markdown and JSON say what was counted", () => {
    const repo = fivePercentHead();
    const markdown = join(out, "counted.md");
    const r = compareIn(repo, [...COUNTED, "--measure", "instructions", "--fail-above", "2", "--markdown", markdown]);
    expect(r.code).toBe(1);
    const result = r.result!;
    const spin = rowOf(result, "spin");
    expect(spin.unit).toBe("instructions");
    expect(spin.stats!.verdict).toBe("slower");
    // The loop is most of the row's instructions: nearly all of the 5% shows, within a tight interval.
    expect(spin.stats!.ci[0]).toBeGreaterThan(0.04);
    expect(spin.stats!.ci[1]).toBeLessThan(0.06);
    expect(spin.stats!.halfWidth!).toBeLessThan(0.005);
    const same = rowOf(result, "same");
    expect(same.stats!.verdict).toBe("same");
    expect(Math.abs(same.stats!.delta)).toBeLessThan(0.001);
    expect(result.gate!.failing.map((row) => row.id)).toEqual([spin.id]);
    expect(result.measure).toMatchObject({ quantity: "instructions", runtimeFlags: "node --single-threaded --expose-gc" });
    expect(result.measure!.tool).toMatch(/^valgrind-\d/);
    expect(r.stdout).toMatch(/c\.bench\.ts › spin +[\d.]+ k instr +[\d.]+ k instr +\+\d\.\d\d% +\[\+\d\.\d\d%, \+\d\.\d\d%\] +slower/);
    expect(r.stdout).toContain("counted, not timed: instructions per iteration by callgrind (valgrind-");
    const md = readFileSync(markdown, "utf8");
    expect(md).toContain("counted, not timed: instructions per iteration");
    expect(md).toMatch(
      /\| c\.bench\.ts › spin \| [\d.]+ k instr \| [\d.]+ k instr \| \+\d\.\d\d% \| \[\+\d\.\d\d%, \+\d\.\d\d%\] \| \*\*slower\*\* \|/,
    );
    expect(md).toMatch(/^- c\.bench\.ts › spin: \+\d\.\d\d% \[\+\d\.\d\d%, \+\d\.\d\d%\] failing$/m);
    // No counted process leaves its dumps behind.
    const runs = join(repo.dir, ".git", "xbench", "runs");
    for (const run of readdirSync(runs)) expect(readdirSync(join(runs, run)).filter((f) => f.startsWith("counts-"))).toEqual([]);
  }, 300_000);

  test("--measure cycles estimates cycles from the cache simulation, and finds the same change", () => {
    const repo = fivePercentHead();
    // --max-time 1 cannot hold the eight rounds a counted interval needs (4 of each order): said
    // once measured, and run anyway.
    const r = compareIn(repo, ["--base", "HEAD~1", "--head", "HEAD", "--max-time", "1", "--measure", "cycles"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/the first 8 rounds need about \d+ s, more than --max-time 1 s: they run anyway/);
    expect(r.result!.rounds.completed).toBe(8);
    const spin = rowOf(r.result, "spin");
    expect(spin.unit).toBe("cycles");
    expect(spin.stats!.verdict).toBe("slower");
    expect(spin.stats!.ci[0]).toBeGreaterThan(0.03);
    expect(r.result!.measure).toMatchObject({ quantity: "cycles", caches: { LL: "8388608,16,64", weights: { l1: 1, ll: 5, ram: 35 } } });
    expect(r.stdout).toContain("estimated cycles per iteration (an L1 hit 1, a last-level hit 5, memory 35");
  }, 300_000);

  test("without valgrind: one line naming the install command, exit 2, before any work", () => {
    const repo = fivePercentHead();
    const env = { ...COMPARE_ENV, XBENCH_VALGRIND: join(out, "no-valgrind-here") };
    const r = compareIn(repo, [...COUNTED, "--measure", "instructions"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--measure instructions counts under valgrind");
    expect(r.stderr).toContain("apt-get install valgrind");
    expect(r.result).toBeUndefined();
    expect(existsSync(join(repo.dir, ".git", "xbench", "runs"))).toBe(false);
  });

  test("--profile times functions, so it does not combine with a count: one line, exit 2", () => {
    const repo = fivePercentHead();
    const r = compareIn(repo, [...COUNTED, "--measure", "instructions", "--profile"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("does not combine with --measure instructions");
  });
});

describe("counts over commits", () => {
  test("history record --measure instructions keeps a counted entry that xbench history reads", () => {
    const repo = fivePercentHead();
    const record = xbench(["history", "record", "--measure", "instructions", "--rounds", "6"], {
      cwd: repo.dir,
      env: COMPARE_ENV,
      timeout: 300_000,
    });
    expect(record.code).toBe(0);
    const head = repo.git("rev-parse", "HEAD");
    const entry = JSON.parse(repo.git("cat-file", "blob", `refs/xbench/history:${head}.json`)) as { result: CompareResult };
    expect(entry.result.measure!.quantity).toBe("instructions");
    expect(rowOf(entry.result, "spin").unit).toBe("instructions");
    expect(rowOf(entry.result, "spin").stats!.verdict).toBe("slower");
    const shown = xbench(["history", "--json", "-"], { cwd: repo.dir, env: COMPARE_ENV });
    expect(shown.code).toBe(0);
    const report = JSON.parse(shown.stdout) as HistoryReport;
    const spin = report.rows.find((row) => row.label === "spin")!;
    expect(spin.moved.map((m) => m.sha)).toEqual([head]);
  }, 300_000);

  test("bisect --measure instructions finds the commit that added 5% (a step time could not decide in 6 rounds)", () => {
    const repo = createRepo();
    repos.push(repo);
    const shas = slowdownHistory(repo, (i) => i >= 3, { count: 6, factor: 1.05 });
    const json = join(out, "bisect.json");
    const r = xbench(["bisect", "--good", shas[0]!, "--above", "2", "--measure", "instructions", "--json", json], {
      cwd: repo.dir,
      env: COMPARE_ENV,
      timeout: 900_000,
    });
    expect(r.code).toBe(0);
    const result = JSON.parse(readFileSync(json, "utf8")) as BisectResult;
    expect(result.conclusion.kind).toBe("found");
    expect(result.path[(result.conclusion as { firstBad: number }).firstBad]!.sha).toBe(shas[3]!);
  }, 900_000);
});
