/**
 * buildBaseHelpers: base's own build.ts builds base's helpers into a folder ready for
 * --base-helper. The "worktree" here is `git archive HEAD` with head's node_modules linked,
 * as compare links them.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { findBun } from "../../src/runner/bun.ts";
import { buildBaseHelpers } from "../../src/suites/tracer/index.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

describe("buildBaseHelpers", () => {
  const tmp = tempDir("xbench-base-helpers-");
  afterAll(() => tmp.cleanup());

  test("builds the base worktree's helpers with its own build.ts", async () => {
    const worktree = join(tmp.dir, "base");
    mkdirSync(worktree);
    execSync(`git archive HEAD | tar -x -C ${JSON.stringify(worktree)}`, { cwd: ROOT });
    symlinkSync(join(ROOT, "node_modules"), join(worktree, "node_modules"));
    const out = await buildBaseHelpers(worktree, join(tmp.dir, "out"));
    expect(out).toBe(join(tmp.dir, "out"));
    for (const name of ["xbench-supervisor", "libxbench-preload.so"]) expect(existsSync(join(out, name))).toBe(true);
  }, 60_000);

  test("a worktree without node_modules, or whose build fails, is a clear error", async () => {
    const bare = join(tmp.dir, "bare");
    mkdirSync(bare);
    writeFileSync(join(bare, "build.ts"), "process.exit(3);\n");
    await expect(buildBaseHelpers(bare, join(tmp.dir, "o1"))).rejects.toThrow(/has no node_modules/);
    symlinkSync(join(ROOT, "node_modules"), join(bare, "node_modules"));
    writeFileSync(join(bare, "build.ts"), 'console.error("gcc: boom"); process.exit(3);\n');
    await expect(buildBaseHelpers(bare, join(tmp.dir, "o2"))).rejects.toThrow(/build\.ts failed in .*bare \(exit 3\):\ngcc: boom/);
  });

  test("prefers the worktree's own bun", () => {
    expect(findBun(ROOT)!.file).toBe(join(ROOT, "node_modules", ".bin", "bun"));
    expect(findBun(join(ROOT, "src", "runner"))!.file).toBe(join(ROOT, "node_modules", ".bin", "bun")); // nearest above
    expect(findBun(tmp.dir)!.file).toBe(process.execPath);
    expect(findBun(tmp.dir, { XBENCH_BUN: "/opt/bun" })!.file).toBe("/opt/bun");
  });
});
