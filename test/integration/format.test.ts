/**
 * One formatter and linter for the TypeScript (biome.json) and one formatter for the C helpers
 * (.clang-format): the tree must already be as they would write it. `npx biome check --write .`
 * and `clang-format -i` on the C files fix what this reports.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "pathe";
import { ROOT } from "../support/xbench.ts";

function run(cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8" });
  return { status: r.error ? null : r.status, output: `${r.stdout ?? ""}${r.stderr ?? ""}`.trim().split("\n").slice(-20).join("\n") };
}

describe("formatting and lint", () => {
  test("biome: TypeScript formatted and free of lint errors", () => {
    const r = run(join(ROOT, "node_modules", ".bin", "biome"), ["ci", "--reporter=summary", "."]);
    if (r.status !== 0) console.error(r.output);
    expect(r.status).toBe(0);
  });

  test("clang-format: the C helpers formatted", () => {
    const files = spawnSync("git", ["ls-files", "native/*.c", "native/*.h", "bench/**/*.c", "src/**/*.c", "test/fixtures/trace/*.c"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .stdout.split("\n")
      .filter(Boolean);
    expect(files.length).toBeGreaterThan(10);
    const r = run("clang-format", ["--dry-run", "--Werror", ...files]);
    if (r.status !== 0) console.error(r.output);
    expect(r.status).toBe(0);
  });
});
