/**
 * Repositories compare and bisect cannot work in as they are: each is one line that says what
 * is wrong and what to do, exit 2 (the README's exit table), never a misleading guess.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV } from "../support/compare.ts";
import { createRepo, workFiles } from "../support/repo.ts";
import { tempDir, xbench } from "../support/xbench.ts";

const { dir: own, cleanup } = tempDir("xbench-repos-");
afterAll(cleanup);

const SHALLOW =
  "(this clone is shallow: its history stops where it was cloned with --depth; fetch more with git fetch --deepen=N, or all of it with git fetch --unshallow)";

function gitIn(cwd: string, ...args: string[]): void {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
}

describe("repositories that cannot be compared as they are", () => {
  test("a shallow clone with a base beyond its depth: says it is shallow and how to fetch more, in compare and bisect", () => {
    const source = createRepo();
    try {
      for (let i = 0; i < 7; i++) {
        source.write({ ...workFiles("t.bench.ts", [{ label: "a", work: 1000 + i }]) });
        source.commit(`commit ${i}`);
      }
      const clone = join(own, "shallow");
      gitIn(own, "clone", "-q", "--depth", "1", `file://${source.dir}`, clone);
      const compare = xbench(["compare", "--base", "main~5"], { cwd: clone, env: COMPARE_ENV });
      expect(compare.code).toBe(2);
      expect(compare.stderr.split("\n")[0]).toBe(`xbench: --base ref not found: main~5 ${SHALLOW}`);
      const bisect = xbench(["bisect", "--good", "main~5", "--above", "10"], { cwd: clone, env: COMPARE_ENV });
      expect(bisect.code).toBe(2);
      expect(bisect.stderr.split("\n")[0]).toBe(`xbench: --good ref not found: main~5 ${SHALLOW}`);
      // A name that is a typo stays a typo, shallow or not.
      const typo = xbench(["compare", "--base", "mian"], { cwd: clone, env: COMPARE_ENV });
      expect(typo.stderr.split("\n")[0]).toBe("xbench: --base ref not found: mian (did you mean main?)");
    } finally {
      source.cleanup();
    }
  }, 120_000);

  test("a repository with no commits: one line that says so, with or without --base", () => {
    const empty = join(own, "empty");
    mkdirSync(empty);
    gitIn(empty, "init", "-q");
    for (const args of [["compare"], ["compare", "--base", "HEAD"], ["bisect", "--good", "HEAD~1", "--above", "10"]]) {
      const r = xbench(args, { cwd: empty, env: COMPARE_ENV });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`xbench: the repository ${empty} has no commits yet: xbench compares commits; commit first (git commit)\n`);
    }
  }, 120_000);

  test("a bare repository: one line that says it has no working tree and where to run instead", () => {
    const bare = join(own, "bare.git");
    gitIn(own, "init", "-q", "--bare", bare);
    const r = xbench(["compare", "--base", "HEAD"], { cwd: bare, env: COMPARE_ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `xbench: ${bare} is a bare repository (no working tree): run xbench in a clone of it, or in a worktree (git worktree add DIR)\n`,
    );
  }, 120_000);
});
