/**
 * What compare says when the input is odd (docs/compare.md): each case one line that names the
 * real reason, or a value that means what it says.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { COMPARE_ENV, compareIn, repoPerTest, rowOf } from "../support/compare.ts";
import { workFiles } from "../support/repo.ts";
import { xbench } from "../support/xbench.ts";

const repoWith = repoPerTest();
const SPIN = workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]);

describe("compare's words for odd input", () => {
  test("--jobs beyond the cores is refused in one line; --timeout 1e9 is a number of seconds", () => {
    const repo = repoWith(SPIN);
    const cores = availableParallelism();
    const many = xbench(["compare", "--base", "HEAD", "--jobs", "999"], { cwd: repo.dir, env: COMPARE_ENV });
    expect(many.code).toBe(2);
    expect(many.stderr.split("\n")[0]).toBe(
      `xbench: --jobs must be at most ${cores}, the cores xbench may use here (got 999): processes beyond them would time each other`,
    );
    const long = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--timeout", "1e9"], { timeMs: 20 });
    expect(long.stderr).not.toContain("timed out");
    expect(long.code).toBe(0);
    expect(rowOf(long.result, "spin").status).toBe("ok");
  }, 300_000);

  test("a ref that starts with - is refused as such, not looked up", () => {
    const repo = repoWith(SPIN);
    const r = xbench(["compare", "--base=-rf"], { cwd: repo.dir, env: COMPARE_ENV });
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe('xbench: --base -rf: a ref cannot start with "-" (git would read it as an option)');
  });

  test("a benchmark that calls process.exit(0) is named for it, not as a promise that never settled", () => {
    const repo = repoWith({
      ...SPIN,
      "exit.bench.ts": 'import { bench } from "mitata";\nbench("quits", () => process.exit(0));\n',
    });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "exit.bench"], { timeMs: 20 });
    expect(r.code).toBe(3);
    const row = rowOf(r.result, "quits");
    expect(row.status).toBe("failed");
    expect(row.error?.message).toBe("the benchmark called process.exit(0) while it ran: a benchmark must return, not end the process");
    expect(r.stderr).not.toContain("never settled");
  }, 300_000);

  test.skipIf(process.getuid?.() !== 0)(
    "a checkout another user owns: git's safe.directory reason, not 'not inside a git repository'",
    () => {
      const repo = repoWith(SPIN);
      spawnSync("chown", ["-R", "65534:65534", repo.dir]);
      try {
        const r = xbench(["compare", "--base", "HEAD"], { cwd: repo.dir, env: { ...COMPARE_ENV, GIT_CONFIG_GLOBAL: "/dev/null" } });
        expect(r.code).toBe(2);
        expect(r.stderr.split("\n")[0]).toBe(
          `xbench: git refuses the repository ${repo.dir}: it is owned by another user (git's safe.directory check); if you trust it, git config --global --add safe.directory ${repo.dir}`,
        );
      } finally {
        spawnSync("chown", ["-R", "0:0", repo.dir]);
      }
    },
  );
});
