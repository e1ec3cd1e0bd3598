/**
 * `xbench history record` and `xbench history` through dist/xbench on temporary repositories
 * (docs/history.md): one entry per commit in refs/xbench/history however often it is recorded,
 * two clones recording at once into one bare remote keep both entries (the later push is
 * rejected, fetches, merges and retries), a commit left unrecorded is a gap, and bad input is
 * one line with exit 2. Commits here change docs only, so each compare finds unchanged code and
 * takes a few seconds; the method check on real steps is history-method.test.ts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "pathe";
import type { HistoryReport } from "../../src/history/chain.ts";
import { COMPARE_ENV } from "../support/compare.ts";
import { createRepo, workFiles, type TestRepo } from "../support/repo.ts";
import { tempDir, xbench, xbenchAsync } from "../support/xbench.ts";

const SETTINGS = ["--rounds", "6", "--time", "20"];
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

/** A repository of a bench file and `docs` more commits that edit only the README. */
function docsHistory(docs: number): { repo: TestRepo; shas: string[] } {
  const repo = createRepo();
  cleanups.push(repo.cleanup);
  repo.write(workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]));
  const shas = [repo.commit("bench")];
  for (let i = 0; i < docs; i++) {
    repo.write({ "README.md": `edit ${i}\n` });
    shas.push(repo.commit(`docs: edit ${i}`));
  }
  return { repo, shas };
}

const run = (repo: { dir: string }, args: string[]) => xbench(args, { cwd: repo.dir, env: COMPARE_ENV, timeout: 300_000 });
const entries = (git: (...args: string[]) => string) => git("ls-tree", "--name-only", "refs/xbench/history").split("\n").filter(Boolean);

describe("xbench history record", () => {
  test("recording a commit twice keeps one entry, the later one", () => {
    const { repo, shas } = docsHistory(1);
    const first = run(repo, ["history", "record", ...SETTINGS]);
    expect(first.stderr).toContain("recorded in refs/xbench/history");
    expect(first.code).toBe(0);
    const firstAt = JSON.parse(repo.git("cat-file", "blob", `refs/xbench/history:${shas[1]}.json`)).recordedAt;
    expect(run(repo, ["history", "record", "--commit", shas[1]!, ...SETTINGS]).code).toBe(0);
    expect(entries(repo.git)).toEqual([`${shas[1]}.json`]);
    const entry = JSON.parse(repo.git("cat-file", "blob", `refs/xbench/history:${shas[1]}.json`));
    expect(entry.commit).toBe(shas[1]);
    expect(entry.parent).toBe(shas[0]);
    expect(entry.result.rows[0].status).toBe("unchanged");
    expect(Date.parse(entry.recordedAt)).toBeGreaterThan(Date.parse(firstAt));
    // The ref is history of its own: two commits, the second on the first.
    expect(repo.git("rev-list", "--count", "refs/xbench/history")).toBe("2");
  });

  test("two clones recording at once into one bare remote keep both entries", async () => {
    const { repo, shas } = docsHistory(2);
    const { dir, cleanup } = tempDir("xbench-history-remote-");
    cleanups.push(cleanup);
    const bare = join(dir, "remote.git");
    const git = (cwd: string, ...args: string[]) => {
      const r = spawnSync("git", args, { cwd, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
      return r.stdout.trim();
    };
    git(dir, "clone", "-q", "--bare", repo.dir, bare);
    const clones = ["a", "b"].map((name) => {
      const clone = join(dir, name);
      git(dir, "clone", "-q", bare, clone);
      return clone;
    });
    // Both fetch the (empty) remote history, compare for seconds, then push: one of them is
    // rejected. Clones on a CI runner have no git identity: none is configured here either.
    const env = { ...COMPARE_ENV, GIT_CONFIG_GLOBAL: "/dev/null" };
    const [a, b] = await Promise.all(
      clones.map((clone, i) =>
        xbenchAsync(["history", "record", "--commit", shas[i + 1]!, "--push", "origin", ...SETTINGS], { cwd: clone, env }),
      ),
    );
    // Each with its stderr, so that a failure says why.
    expect({ code: a!.code, stderr: a!.stderr }).toMatchObject({ code: 0 });
    expect({ code: b!.code, stderr: b!.stderr }).toMatchObject({ code: 0 });
    expect(`${a!.stderr}${b!.stderr}`).toContain("merged another recorder's push");
    expect(entries((...args) => git(bare, ...args)).sort()).toEqual([`${shas[1]}.json`, `${shas[2]}.json`].sort());
  });

  test("a commit without a parent, or a ref that names nothing, is one line and exit 2", () => {
    const { repo, shas } = docsHistory(0);
    const root = run(repo, ["history", "record", "--commit", shas[0]!, ...SETTINGS]);
    expect(root.code).toBe(2);
    expect(root.stderr).toContain("has no parent: the first commit has nothing to be compared against");
    const missing = run(repo, ["history", "record", "--commit", "nope", ...SETTINGS]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--commit ref not found: nope");
    expect(`${root.stderr}${missing.stderr}`).not.toContain("    at ");
  });
});

describe("xbench history", () => {
  test("a commit left unrecorded is a gap, named, and the cumulative holds after it", () => {
    const { repo, shas } = docsHistory(3);
    for (const sha of [shas[1]!, shas[3]!]) expect(run(repo, ["history", "record", "--commit", sha, ...SETTINGS]).code).toBe(0);
    const shown = run(repo, ["history"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("2 recorded, 1 not recorded, 0 failed");
    expect(shown.stdout).toContain(`gap ${shas[2]!.slice(0, 12)} docs: edit 1 (not recorded)`);
    expect(shown.stdout).toContain(`+0.0% [+0.0%, +0.0%] over 1 step since ${shas[2]!.slice(0, 12)}; 1 gap`);
    const json = run(repo, ["history", "--json", "-", "--since", shas[1]!]);
    const report = JSON.parse(json.stdout) as HistoryReport;
    expect(report.start.sha).toBe(shas[1]!);
    expect(report.commits.map((c) => c.status)).toEqual(["not recorded", "recorded"]);
    expect(run(repo, ["history", "--rows", "nothing-like-it"]).stdout).toContain("no rows");
  });

  test("a commit whose compare fails is recorded as failed, exit 1, and shown as a gap with the reason", () => {
    const { repo, shas } = docsHistory(2);
    expect(run(repo, ["history", "record", "--commit", shas[1]!, ...SETTINGS]).code).toBe(0);
    const failed = run(repo, ["history", "record", "--build", "exit 7", ...SETTINGS]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("recorded in refs/xbench/history: failed:");
    const entry = JSON.parse(repo.git("cat-file", "blob", `refs/xbench/history:${shas[2]}.json`));
    expect(entry.result).toBeUndefined();
    expect(entry.error).toContain("exit 7");
    const shown = run(repo, ["history"]);
    expect(shown.stdout).toContain("1 recorded, 0 not recorded, 1 failed");
    expect(shown.stdout).toContain(`gap ${shas[2]!.slice(0, 12)} docs: edit 1 (failed: `);
  });

  test("nothing recorded, or --since off the line, is one line and exit 2", () => {
    const { repo, shas } = docsHistory(1);
    const none = run(repo, ["history"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("nothing recorded in refs/xbench/history: run xbench history record");
    expect(run(repo, ["history", "record", ...SETTINGS]).code).toBe(0);
    const head = run(repo, ["history", "--since", shas[1]!]);
    expect(head.code).toBe(2);
    expect(head.stderr).toContain("is HEAD: no commit after it to show");
  });
});
