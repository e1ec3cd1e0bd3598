import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "pathe";
import { compareIn, repoPerTest, rowOf } from "../support/compare.ts";
import { workFiles } from "../support/repo.ts";

/** System folders and node's only: no node_modules/.bin, so no bun and no deno but what a test adds. */
const SYSTEM_PATH = [dirname(spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8" }).stdout.trim()), "/usr/bin", "/bin"].join(":");
const bare = { ...process.env, PATH: SYSTEM_PATH, XBENCH_BUN: undefined, XBENCH_DENO: undefined };

describe("the runtime of the bench processes", () => {
  const repoWith = repoPerTest();

  test("--runtime bun with no bun on PATH or in node_modules: the binary runs the bench processes itself", () => {
    const repo = repoWith({
      ...workFiles("work.bench.ts", [{ label: "sum", work: 3000 }]),
      "cmd.bench.ts": 'import { command } from "xbench";\ncommand("true", ["true"], { runs: 1 });\n',
    });
    const r = compareIn(repo, ["--base", "HEAD", "--runtime", "bun", "--rounds", "6"], { timeMs: 20, env: bare });
    expect(r.stderr).not.toContain("cannot start");
    expect(r.code).toBe(0);
    expect(r.result?.runtime).toBe("bun");
    expect(rowOf(r.result, "sum").status).toBe("ok");
    // A command row: what a bench process starts does not inherit the switch that made it bun.
    expect(rowOf(r.result, "true (peak RSS)").status).toBe("ok");
  });

  test("a runtime that cannot start is one line and exit 2, before any round or run folder", () => {
    const repo = repoWith(workFiles("work.bench.ts", [{ label: "sum", work: 3000 }]));
    const r = compareIn(repo, ["--base", "HEAD", "--runtime", "deno", "--rounds", "6"], { timeMs: 20, env: bare });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "xbench: --runtime deno: cannot start deno: command not found (install it in the project or put it on PATH, or set XBENCH_DENO)\n",
    );
    expect(r.stdout).toBe("");
    expect(existsSync(join(repo.dir, ".git", "xbench", "runs"))).toBe(false);
  });
});
