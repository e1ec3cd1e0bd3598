import { afterAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "pathe";
import type { TracerResult } from "../../src/suites/tracer/index.ts";
import { traceScratchRoot } from "../../src/tracer/scratch.ts";
import { createRepo, workFiles } from "../support/repo.ts";
import { ROOT, requireBinary, tempDir, xbench } from "../support/xbench.ts";

/** A clone of this repository: its own build.ts and native/ sources on both sides. */
const { dir: work, cleanup } = tempDir("xbench-self-");
const clone = join(work, "xbench");
spawnSync("git", ["clone", "-q", ROOT, clone]);
symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
afterAll(cleanup);

function worktrees(dir: string): number {
  return spawnSync("git", ["worktree", "list", "--porcelain"], { cwd: dir, encoding: "utf8" })
    .stdout.split("\n")
    .filter((l) => l.startsWith("worktree ")).length;
}

/**
 * xbench's own temp folder: other sessions on a shared machine run compares too, and their
 * folders in the common /tmp must not count as this run's leftovers.
 */
const { dir: ownTmp, cleanup: removeOwnTmp } = tempDir("xbench-self-tmp-");
afterAll(removeOwnTmp);
const ENV = { ...process.env, TMPDIR: ownTmp };

/** The run's temporary folders: worktrees in its temp folder, the suite's scratch where trace logs go. */
function tempFolders(): string[] {
  return [ownTmp, traceScratchRoot()].flatMap((root) =>
    readdirSync(root)
      .filter((name) => name.startsWith("xbench-tracer-compare-") || /^xbench-tracer-[A-Za-z0-9]{6}$/.test(name))
      .map((name) => join(root, name)),
  );
}

describe("compare --suite tracer", () => {
  test("builds each side's helpers from its own sources and reports both backends' rows", () => {
    const before = tempFolders();
    const json = join(work, "tracer.json");
    const r = xbench(["compare", "--base", "HEAD", "--suite", "tracer", "--rounds", "6", "--json", json], {
      cwd: clone,
      env: ENV,
      timeout: 300_000,
    });
    expect(r.stderr).toContain("building base's helpers");
    expect(r.code).toBe(0);
    const result = JSON.parse(readFileSync(json, "utf8")) as TracerResult;
    expect(result.arms).toEqual(["head", "base", "untracked"]);
    expect(result.rows.map((row) => `${row.backend} ${row.row}`)).toEqual([
      "preload launch",
      "preload access",
      "seccomp launch",
      "seccomp access",
    ]);
    for (const row of result.rows) expect(Number.isFinite(row.change!.median)).toBe(true);
    expect(result.helpers.base).not.toBe(result.helpers.head);
    expect(r.stdout).toContain("seccomp  access");
    expect(worktrees(clone)).toBe(1);
    expect(tempFolders()).toEqual(before);
  }, 300_000);

  test("SIGINT mid-run exits 130 promptly with no worktree or temporary folder left", async () => {
    const before = tempFolders();
    const child = spawn(requireBinary(), ["compare", "--base", "HEAD", "--suite", "tracer", "--rounds", "600"], {
      cwd: clone,
      env: ENV,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    const deadline = Date.now() + 120_000;
    while (!stderr.includes("iteration ") && Date.now() < deadline) await Bun.sleep(50);
    expect(stderr).toContain("iteration ");
    child.kill("SIGINT");
    const start = Date.now();
    expect(await exited).toBe(130);
    expect(Date.now() - start).toBeLessThan(10_000);
    expect(worktrees(clone)).toBe(1);
    expect(tempFolders()).toEqual(before);
  }, 300_000);

  test("a project without xbench's build.ts: one clear error, nothing left behind", () => {
    const repo = createRepo();
    try {
      repo.write(workFiles("x.bench.ts", [{ label: "x", work: 10 }]));
      repo.commit("no build.ts");
      const r = xbench(["compare", "--base", "HEAD", "--suite", "tracer"], { cwd: repo.dir });
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split("\n").pop()).toMatch(/^xbench: base has no build\.ts in .*; cannot build its helpers$/);
      expect(repo.worktrees()).toHaveLength(1);
      expect(existsSync(join(repo.dir, "node_modules"))).toBe(false);
    } finally {
      repo.cleanup();
    }
  });

  test("bench-file flags are refused with --suite", () => {
    const r = xbench(["compare", "--suite", "tracer", "--runtime", "bun"], { cwd: clone });
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe("xbench: --suite tracer does not take --runtime");
  });
});
