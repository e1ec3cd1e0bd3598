/** The gate flags of compare and report: exit statuses that answer, outputs written first. */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import type { CompareResult, GateOutcome } from "../../src/model/result.ts";
import { COMPARE_ENV, compareIn, fragileHead, repoPerTest } from "../support/compare.ts";
import { workFiles } from "../support/repo.ts";
import { tempDir, xbench } from "../support/xbench.ts";

const repoWith = repoPerTest();
const { dir: out, cleanup } = tempDir("xbench-gate-");
afterAll(cleanup);

/** Head does twice the work of base on `slow`: far above any noise, so no run can miss it. */
function slowerHead() {
  const repo = repoWith(workFiles("g.bench.ts", [{ label: "slow", work: 20000 }]));
  repo.write(workFiles("g.bench.ts", [{ label: "slow", work: 40000 }]));
  repo.commit("twice the work");
  return repo;
}

const report = (file: string, args: string[]) => xbench(["report", file, ...args]);

/** A compare's result saved where `report` can read it. */
function save(name: string, result: CompareResult | undefined): string {
  const file = join(out, name);
  writeFileSync(file, JSON.stringify(result));
  return file;
}

/** The exit status, the gate's outcome in the JSON, and the headline leading the table. */
function expectGate(r: ReturnType<typeof compareIn>, code: number, outcome: GateOutcome, headline: string): void {
  expect(r.code).toBe(code);
  expect(r.result!.gate!.outcome).toBe(outcome);
  expect(r.stdout).toStartWith(`${headline}\n`);
}

describe("compare --fail-on / --fail-above", () => {
  test("a row twice as slow fails --fail-above 10 and --fail-on slower (exit 1), markdown and JSON written first; --fail-above 500 passes", () => {
    const repo = slowerHead();
    const markdown = join(out, "fail.md");
    const html = join(out, "fail.html");
    const outputs = ["--markdown", markdown, "--html", html];
    const r = compareIn(repo, ["--base", "HEAD~1", "--head", "HEAD", "--rounds", "6", "--fail-above", "10", ...outputs]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n")[0]).toBe("gate failed (--fail-above 10): 1 row confidently more than 10% slower");
    expect(r.stdout.split("\n")[1]).toMatch(/^ {2}g\.bench\.ts › slow {2}\+\d+\.\d% \[\+\d+\.\d%, \+\d+\.\d%\] failing$/);
    const gate = r.result!.gate!;
    expect(gate.rule).toEqual({ on: "above", above: 0.1 });
    expect(gate.outcome).toBe("fail");
    expect(gate.failing.map((row) => row.id)).toEqual([r.result!.rows[0]!.id]);
    expect(gate.failing[0]!.ci[0]).toBeGreaterThan(0.1);
    const md = readFileSync(markdown, "utf8");
    expect(md.split("\n")[2]).toBe("**xbench gate: failed** (--fail-above 10): 1 row confidently more than 10% slower");
    expect(md).toMatch(/^- g\.bench\.ts › slow: \+\d+\.\d% \[\+\d+\.\d%, \+\d+\.\d%\] failing$/m);
    // The HTML page too: the one row's mark, and the gate's line drawn.
    const page = readFileSync(html, "utf8");
    expect(page.match(/<g class="mark slower"/g)).toHaveLength(1);
    expect(page).toContain('<line class="threshold"');

    const slower = compareIn(repo, ["--base", "HEAD~1", "--head", "HEAD", "--rounds", "6", "--fail-on", "slower"]);
    expectGate(slower, 1, "fail", "gate failed (--fail-on slower): 1 row confidently slower");

    // The saved result judged again by report: a threshold far above +100% passes, a change fails.
    const saved = save("saved.json", r.result);
    const wide = report(saved, ["--fail-above", "500"]);
    expect(wide.code).toBe(0);
    expect(wide.stdout).toStartWith("gate passed (--fail-above 500): no row confidently more than 500% slower\n");
    expect(report(saved, ["--fail-on", "change"]).code).toBe(1);
    const json = JSON.parse(report(saved, ["--fail-above", "500", "--format", "json"]).stdout) as CompareResult;
    expect(json.gate).toMatchObject({ rule: { on: "above", above: 5 }, outcome: "pass", failing: [], undecided: [] });
    // Without flags, report renders the saved gate (decided again from its rule) and exits 0.
    const plain = report(saved, []);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toStartWith("gate failed (--fail-above 10)");
  }, 300_000);

  test("an A/A run passes --fail-above 10 and --fail-on slower", () => {
    const repo = repoWith(workFiles("aa.bench.ts", [{ label: "aa", work: 20000 }]));
    const above = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--fail-above", "10"]);
    // 6 rounds on a loaded machine (4 CPU hogs, load 16) can leave the interval wider than
    // ±10%: then the row holds the line and is undecided, which passes too (exit 0).
    const ci = above.result!.rows[0]!.stats!.ci;
    if (above.result!.gate!.outcome === "undecided") {
      expect(above.code).toBe(0);
      expect(ci[0]).toBeLessThanOrEqual(0.1);
      expect(ci[1]).toBeGreaterThanOrEqual(0.1);
    } else expectGate(above, 0, "pass", "gate passed (--fail-above 10): no row confidently more than 10% slower");
    const slower = report(save("aa.json", above.result), ["--fail-on", "slower"]);
    // An unchanged row lies wholly above 0 in about 1 run of 64 at 6 rounds (all six pairs on
    // one side): the false alarms the level allows. Then the gate must name a tiny delta.
    if (slower.code === 1) expect(above.result!.rows[0]!.stats!.delta).toBeLessThan(0.05);
    else expect(slower.code).toBe(0);
  }, 300_000);

  test("a row that failed to run exits 3, not the gate's 1; the gate still judges the rows that ran", () => {
    const repo = fragileHead(repoWith);
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--fail-above", "50"]);
    expect(r.code).toBe(3);
    expect(r.result!.gate!.outcome).toBe("pass");
    expect(r.stderr).toMatch(/^xbench: t\.bench\.ts on head \("fragile"\): broken on purpose$/m);
  }, 300_000);

  test("bad gate flags: one line, exit 2, before anything is measured", () => {
    const repo = repoWith(workFiles("y.bench.ts", [{ label: "y", work: 10 }]));
    const cases: Array<[string[], string]> = [
      [["--fail-above", "0"], "xbench: --fail-above must be a positive number (got 0)"],
      [["--fail-above", "ten"], "xbench: --fail-above must be a positive number (got ten)"],
      [["--fail-on", "slower", "--fail-above", "5"], "xbench: --fail-on and --fail-above are one gate each; give one of them"],
    ];
    for (const [args, message] of cases) {
      const r = xbench(["compare", "--base", "HEAD", ...args], { cwd: repo.dir, env: COMPARE_ENV });
      expect(r.code).toBe(2);
      expect(r.stderr.split("\n")[0]).toBe(message);
    }
    const suite = xbench(["compare", "--suite", "tracer", "--fail-on", "slower"], { cwd: repo.dir, env: COMPARE_ENV });
    expect(suite.code).toBe(2);
    expect(suite.stderr.split("\n")[0]).toBe("xbench: --suite tracer does not take --fail-on");
  });

  test("--help lists the exit statuses", () => {
    const help = xbench(["compare", "--help"]).stdout;
    expect(help).toContain("EXIT STATUS");
    expect(help).toMatch(/^ {2}3 {4}a benchmark failed to run/m);
    expect(help).toMatch(/^ {2}125 {2}with a gate, under git bisect run/m);
  });
});
