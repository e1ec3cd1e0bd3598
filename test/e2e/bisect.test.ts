/**
 * xbench bisect, and compare under `git bisect run`, on 16-commit histories where one
 * benchmark does twice the work from some commit on (far above noise, so 6 rounds decide
 * every step) and the other commits change unrelated code.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import type { BisectResult } from "../../src/compare/bisect/bisect.ts";
import { COMPARE_ENV, processesWithEnv } from "../support/compare.ts";
import { createRepo, slowdownHistory, workFiles, type TestRepo } from "../support/repo.ts";
import { requireBinary, tempDir, xbench } from "../support/xbench.ts";

// Temp folders of the runs under test go to a folder of this file's own, so other runs on the
// machine cannot look like leftovers.
const { dir: ownTmp, cleanup: removeOwnTmp } = tempDir("xbench-bisect-tmp-");
const { dir: out, cleanup: removeOut } = tempDir("xbench-bisect-out-");
const ENV = { ...COMPARE_ENV, TMPDIR: ownTmp };
const repos: TestRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
  removeOwnTmp();
  removeOut();
});

/** A 16-commit history (see slowdownHistory), removed after the tests. */
function history(slow: (index: number) => boolean, options?: Parameters<typeof slowdownHistory>[2]): { repo: TestRepo; shas: string[] } {
  const repo = createRepo();
  repos.push(repo);
  return { repo, shas: slowdownHistory(repo, slow, options) };
}

/** The step folders of a bisect's run folder: one per compare it ran. */
const compares = (result: BisectResult) => readdirSync(result.runDir).filter((name) => name.startsWith("step-"));

function bisect(repo: TestRepo, args: string[]) {
  const json = join(out, `bisect-${Date.now()}.json`);
  const markdown = join(out, `bisect-${Date.now()}.md`);
  const r = xbench(["bisect", "--time", "20", "--json", json, "--markdown", markdown, ...args], {
    cwd: repo.dir,
    env: ENV,
    timeout: 600_000,
  });
  const result = existsSync(json) ? (JSON.parse(readFileSync(json, "utf8")) as BisectResult) : undefined;
  return { ...r, result, markdown: existsSync(markdown) ? readFileSync(markdown, "utf8") : "" };
}

const leftovers = () => readdirSync(ownTmp).filter((name) => name.startsWith("xbench-compare-"));

describe("xbench bisect", () => {
  test("names commit 11 of 16 in at most ceil(log2 16) + 2 = 6 compares, each commit bundled once, the checkout untouched", () => {
    const { repo, shas } = history((i) => i >= 11);
    const before = repo.git("rev-parse", "HEAD");
    const r = bisect(repo, ["--good", shas[0]!, "--above", "10"]);
    expect(r.code).toBe(0);
    const result = r.result!;
    expect(result.conclusion).toEqual({ kind: "found", firstBad: 11, reverted: [] });
    expect(result.path.map((c) => c.sha)).toEqual(shas);
    expect(result.steps.length).toBeLessThanOrEqual(6);
    // good once, and each probed commit once: bundles are kept across steps.
    expect(result.bundled).toHaveLength(new Set(result.bundled).size);
    expect(new Set(result.bundled)).toEqual(new Set([shas[0]!, ...result.steps.map((s) => s.commit.sha)]));
    expect(result.steps[0]!.index).toBe(15);
    // Each step is printed as it ends; the ending names the commit and why (parent good, itself bad).
    const stepLines = r.stdout.split("\n").filter((line) => line.startsWith("step "));
    expect(stepLines).toHaveLength(result.steps.length);
    expect(stepLines[0]).toMatch(
      /^step 1 {2}commit 15\/15 {2}[0-9a-f]{12} {2}bad {3}\+\d+\.\d% \[\+\d+\.\d%, \+\d+\.\d%\] \(g\.bench\.ts › slow\)/,
    );
    // Rows read as compare names them; the JSON keeps the stable id beside the name.
    expect(r.stdout).not.toMatch(/g-[0-9a-f]{8}/);
    expect(r.markdown).toContain("| g.bench.ts › slow |");
    expect(result.steps[0]!.row).toMatchObject({ id: expect.stringMatching(/^g-[0-9a-f]{8}: slow$/), name: "g.bench.ts › slow" });
    expect(r.stdout).toContain(`first bad commit: ${shas[11]!.slice(0, 12)} (commit 11/15) "commit 11: slower"`);
    expect(r.stdout).toMatch(new RegExp(`its parent ${shas[10]!.slice(0, 12)} \\(commit 10/15\\) "commit 10" is good`));
    expect(r.markdown).toContain(`**xbench bisect** (--above 10%): first bad commit: ${shas[11]!.slice(0, 12)}`);
    expect(r.markdown).toContain("| step | commit |");
    expect(repo.git("rev-parse", "HEAD")).toBe(before);
    expect(repo.git("status", "--porcelain")).toBe("");
    expect(repo.worktrees()).toHaveLength(1);
    expect(leftovers()).toEqual([]);
  }, 600_000);

  test("a slowdown introduced at 6 and reverted at 9, then a real one at 12: names 12 and says 6 came and went", () => {
    const { repo, shas } = history((i) => (i >= 6 && i < 9) || i >= 12);
    const r = bisect(repo, ["--good", shas[0]!, "--above", "10"]);
    expect(r.code).toBe(0);
    const conclusion = r.result!.conclusion;
    expect(conclusion.kind).toBe("found");
    if (conclusion.kind !== "found") return;
    expect(conclusion.firstBad).toBe(12);
    expect(conclusion.reverted).toHaveLength(1);
    expect(conclusion.reverted[0]!.bad).toBeGreaterThanOrEqual(6);
    expect(conclusion.reverted[0]!.bad).toBeLessThan(9);
    expect(r.stdout).toContain(`first bad commit: ${shas[12]!.slice(0, 12)} (commit 12/15)`);
    expect(r.stdout).toMatch(/note: a slowdown (introduced|present) at [0-9a-f]{12} \(commit [678]\/15\) .* was reverted: good again at/);
  }, 600_000);

  test("--bad that is not slower: nothing to bisect, exit 1 after one compare", () => {
    const { repo, shas } = history(() => false);
    const r = bisect(repo, ["--good", shas[0]!, "--bad", shas[5]!, "--above", "10"]);
    expect(r.code).toBe(1);
    expect(r.result!.steps).toHaveLength(1);
    expect(r.stdout).toContain(`nothing to bisect: --bad ${shas[5]} (${shas[5]!.slice(0, 12)}) is not more than 10% slower than --good`);
  }, 600_000);

  test("--faster names the commit that made a row 3x faster; commits with the same bench code as one measured are not compared again", () => {
    const { repo, shas } = history((i) => i < 11, { factor: 3 });
    const r = bisect(repo, ["--good", shas[0]!, "--faster", "20"]);
    expect(r.code).toBe(0);
    const result = r.result!;
    expect(result.direction).toBe("faster");
    expect(result.conclusion).toEqual({ kind: "found", firstBad: 11, reverted: [] });
    expect(r.stdout).toContain(`first faster commit: ${shas[11]!.slice(0, 12)} (commit 11/15)`);
    expect(r.stdout).toMatch(/more than 20% faster than --good: -\d+\.\d% \[-\d+\.\d%, -\d+\.\d%\] \(g\.bench\.ts › slow\)/);
    expect(r.markdown).toContain("**xbench bisect** (--faster 20%): first faster commit:");
    // Commits 1-10 have --good's bench code and 12-14 --bad's: their answer is known, so only
    // --bad is compared; the others take the verdict of the commit with the same code.
    const settled = result.steps.filter((s) => s.sameCodeAs !== undefined);
    expect(result.steps.length - settled.length).toBe(1);
    expect(compares(result)).toHaveLength(1);
    for (const step of settled) expect(step.sameCodeAs).toBe(step.index < 11 ? 0 : 15);
    expect(r.stdout).toMatch(/^step 2 .* as commit (0|15): the same bench code, not measured again/m);
    expect(leftovers()).toEqual([]);
  }, 600_000);

  test("a commit whose --build fails is skipped and named, and the search goes on past it", () => {
    const { repo, shas } = history((i) => i >= 11, { extra: (i): Record<string, string> => (i === 7 ? { BROKEN: "yes\n" } : {}) });
    const r = bisect(repo, ["--good", shas[0]!, "--above", "10", "--build", "test ! -f BROKEN"]);
    expect(r.code).toBe(0);
    const result = r.result!;
    expect(result.conclusion).toEqual({ kind: "found", firstBad: 11, reverted: [] });
    const broken = result.steps.find((s) => s.index === 7)!;
    expect(broken.verdict).toBe("skip");
    expect(broken.notMeasured).toMatch(/^build \(test ! -f BROKEN\) failed on head \([0-9a-f]{12}, exit 1\)$/);
    expect(r.stdout).toMatch(
      new RegExp(`^step \\d+  commit 7/15  ${shas[7]!.slice(0, 12)}  skip  not measured: build \\(test ! -f BROKEN\\) failed`, "m"),
    );
    expect(repo.worktrees()).toHaveLength(1);
    expect(leftovers()).toEqual([]);
  }, 600_000);

  test("a skipped commit beside the first bad one is named with why it was skipped, not as out of rounds", () => {
    const { repo, shas } = history((i) => i >= 11, { extra: (i): Record<string, string> => (i === 10 ? { BROKEN: "yes\n" } : {}) });
    const r = bisect(repo, ["--good", shas[0]!, "--above", "10", "--build", "test ! -f BROKEN"]);
    expect(r.code).toBe(0);
    expect(r.result!.conclusion).toMatchObject({ kind: "range", upTo: 11 });
    expect(r.stdout).toContain(`${shas[10]!.slice(0, 12)} in between was skipped, not measured: build (test ! -f BROKEN) failed on head`);
    expect(r.stdout).not.toContain("rounds budget");
  }, 600_000);

  test("nothing measured against --good (its bench code absent there): exit 2 with the reason, never 'nothing to bisect'", () => {
    const repo = createRepo();
    repos.push(repo);
    repo.write({ "README.md": "before the benchmarks\n" });
    const good = repo.commit("no benchmarks yet");
    slowdownHistory(repo, () => false, { count: 4 });
    const r = bisect(repo, ["--good", good, "--above", "10"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^xbench: bisect measured nothing at commit [0-9a-f]{12} \(step 1\): g\.bench\.ts on base: /m);
    expect(r.stdout).not.toContain("nothing to bisect");
    expect(repo.worktrees()).toHaveLength(1);
    expect(leftovers()).toEqual([]);
  }, 600_000);

  test("a runtime that cannot start: one line, exit 2, before any step", () => {
    const { repo, shas } = history(() => false, { count: 3 });
    const { dir: bin, cleanup } = tempDir("xbench-bisect-bin-");
    try {
      writeFileSync(join(bin, "node"), "#!/bin/sh\necho 'node: broken on purpose' >&2\nexit 1\n", { mode: 0o755 });
      const r = xbench(["bisect", "--good", shas[0]!, "--above", "10", "--time", "20"], {
        cwd: repo.dir,
        env: { ...ENV, PATH: `${bin}:${ENV.PATH}` },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe("xbench: --runtime node: cannot start node: node: broken on purpose\n");
      expect(r.stdout).not.toContain("step 1");
    } finally {
      cleanup();
    }
  });

  test("bad input: one line, exit 2", () => {
    const { repo, shas } = history(() => false);
    const cases: Array<[string[], string]> = [
      [["--above", "10"], "xbench: bisect needs --good REF: a commit that is not slower"],
      [["--good", shas[0]!], "xbench: bisect needs --above PCT: how much slower makes a commit bad (or --faster PCT)"],
      [["--good", "HEAD", "--above", "10"], `xbench: --good and --bad are the same commit (${shas[15]!.slice(0, 12)}): nothing to search`],
      [["--good", shas[3]!, "--bad", shas[1]!, "--above", "10"], `xbench: --good ${shas[3]} is not an ancestor of --bad ${shas[1]}`],
      [["--good", "nope", "--above", "10"], "xbench: --good ref not found: nope"],
      [["--good", shas[0]!, "--above", "10", "--faster", "10"], "xbench: bisect takes --above or --faster, not both"],
    ];
    for (const [args, message] of cases) {
      const r = xbench(["bisect", ...args], { cwd: repo.dir, env: ENV });
      expect(r.code).toBe(2);
      expect(r.stderr.split("\n")[0]).toBe(message);
    }
  });

  test("Ctrl-C during a step: exit 130, no worktree, bundle or bench process left", async () => {
    // Every commit's bench code differs, so every step runs a compare.
    const { repo, shas } = history((i) => i >= 11, { otherWork: (i) => 20000 + i });
    const tag = `bisect-sigint-${process.pid}-${Date.now()}`;
    const child = spawn(requireBinary(), ["bisect", "--good", shas[0]!, "--above", "10", "--time", "100"], {
      cwd: repo.dir,
      env: { ...ENV, XBENCH_TEST_TAG: tag },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && !stdout.includes("step 1 ")) await Bun.sleep(20);
    expect(stdout).toContain("step 1 ");
    await Bun.sleep(300); // into step 2's rounds
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(repo.worktrees()).toHaveLength(1);
    expect(processesWithEnv("XBENCH_TEST_TAG", tag)).toEqual([]);
    expect(leftovers()).toEqual([]);
  }, 300_000);
});

describe("after kill -9 of bisect", () => {
  test("the next compare reclaims every worktree the bisect left and counts them", async () => {
    const { repo, shas } = history((i) => i >= 11, { otherWork: (i) => 20000 + i });
    const child = spawn(requireBinary(), ["bisect", "--good", shas[0]!, "--above", "10", "--time", "100"], {
      cwd: repo.dir,
      env: ENV,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.resume();
    const exited = new Promise<void>((done) => child.on("close", () => done()));
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && !stdout.includes("step 1 ")) await Bun.sleep(20);
    expect(stdout).toContain("step 1 ");
    child.kill("SIGKILL");
    await exited;
    const [left] = leftovers();
    const trees = readdirSync(join(ownTmp, left!)).filter((name) => name.startsWith("commit-"));
    expect(trees.length).toBeGreaterThanOrEqual(2); // --good and --bad at least
    const r = xbench(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20"], { cwd: repo.dir, env: ENV, timeout: 300_000 });
    expect(r.code).toBe(0);
    // A `git worktree add` the kill interrupted goes on without its parent, fails, and removes
    // its own folder, so the count is of what was still there, between 2 and what was listed.
    const reclaimed = /reclaimed (\d+) worktrees and 1 temp folder left by dead xbench run \(pid (\d+)\)/.exec(r.stderr);
    expect(reclaimed?.[2]).toBe(String(child.pid));
    expect(Number(reclaimed![1])).toBeGreaterThanOrEqual(2);
    expect(Number(reclaimed![1])).toBeLessThanOrEqual(trees.length);
    expect(repo.worktrees()).toHaveLength(1);
    expect(leftovers()).toEqual([]);
  }, 300_000);
});

describe("git bisect run with compare's gate", () => {
  test("git bisect run xbench compare --base GOOD --head HEAD --fail-above 10 names commit 11", () => {
    const { repo, shas } = history((i) => i >= 11);
    repo.git("bisect", "start", shas[15]!, shas[0]!);
    const run = spawnSync(
      "git",
      [
        "bisect",
        "run",
        requireBinary(),
        "compare",
        "--base",
        shas[0]!,
        "--head",
        "HEAD",
        "--fail-above",
        "10",
        "--rounds",
        "6",
        "--time",
        "20",
      ],
      { cwd: repo.dir, env: ENV, encoding: "utf8", timeout: 600_000 },
    );
    repo.git("bisect", "reset");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`${shas[11]} is the first bad commit`);
    expect(repo.worktrees()).toHaveLength(1);
  }, 600_000);

  test("a commit the gate cannot judge (rows that did not run, a failed build) exits 125 only while a bisect is under way", () => {
    const repo = createRepo();
    repos.push(repo);
    repo.write(workFiles("t.bench.ts", [{ label: "fragile", work: 2000 }]));
    repo.commit("works");
    repo.write(workFiles("t.bench.ts", [{ label: "fragile", work: 0, throws: true }]));
    repo.commit("breaks the benchmark");
    const args = ["compare", "--base", "HEAD~1", "--head", "HEAD", "--fail-above", "10", "--rounds", "6", "--time", "20"];
    const plain = xbench(args, { cwd: repo.dir, env: ENV, timeout: 300_000 });
    expect(plain.code).toBe(3);
    repo.git("bisect", "start", "HEAD", "HEAD~1");
    const bisecting = xbench(args, { cwd: repo.dir, env: ENV, timeout: 300_000 });
    // Without a gate, compare is no bisect's test: its own status, bisect or not.
    const ungated = xbench([...args.slice(0, 5), ...args.slice(7)], { cwd: repo.dir, env: ENV, timeout: 300_000 });
    // A commit that does not build cannot be judged either: skipped, not called bad.
    const unbuilt = xbench([...args, "--build", "exit 4"], { cwd: repo.dir, env: ENV, timeout: 300_000 });
    repo.git("bisect", "reset");
    expect(unbuilt.code).toBe(125);
    expect(unbuilt.stderr).toMatch(/^xbench: build \(exit 4\) failed on base/m);
    expect(bisecting.code).toBe(125);
    expect(bisecting.stderr).toContain("git bisect in progress: exit 125, this commit cannot be judged (skip)");
    expect(ungated.code).toBe(3);
  }, 600_000);
});
