import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
    // Whatever this machine has installed: a deno first on PATH that fails to start, and one named by XBENCH_DENO that is not there.
    const fake = join(repo.dir, "..", `${repo.dir.split("/").pop()}-bin`);
    mkdirSync(fake);
    writeFileSync(join(fake, "deno"), "#!/bin/sh\necho 'deno: broken on purpose' >&2\nexit 1\n", { mode: 0o755 });
    const missing = join(fake, "no-such-deno");
    try {
      const cases: Array<[Record<string, string | undefined>, string]> = [
        [{ ...bare, PATH: `${fake}:${SYSTEM_PATH}` }, "xbench: --runtime deno: cannot start deno: deno: broken on purpose\n"],
        [
          { ...bare, XBENCH_DENO: missing },
          `xbench: --runtime deno: cannot start ${missing}: command not found (install it in the project or put it on PATH, or set XBENCH_DENO)\n`,
        ],
      ];
      for (const [env, message] of cases) {
        const r = compareIn(repo, ["--base", "HEAD", "--runtime", "deno", "--rounds", "6"], { timeMs: 20, env });
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(message);
        expect(r.stdout).toBe("");
        expect(existsSync(join(repo.dir, ".git", "xbench", "runs"))).toBe(false);
      }
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });
});

/**
 * A pnpm install by hand: the package's files under node_modules/.pnpm/<name>@<version>/node_modules/<name>,
 * and node_modules/<name> a link to them.
 */
function pnpmInstall(root: string, name: string, files: Record<string, string>): void {
  writePackage(join(root, "node_modules", ".pnpm", `${name}@1.0.0`, "node_modules", name), name, files);
  symlinkSync(join(".pnpm", `${name}@1.0.0`, "node_modules", name), join(root, "node_modules", name), "dir");
  writeFileSync(join(root, "node_modules", ".modules.yaml"), "layoutVersion: 5\nnodeLinker: isolated\n");
}

/** An npm install by hand: the package's files right under node_modules/<name>. */
function npmInstall(root: string, name: string, files: Record<string, string>): void {
  writePackage(join(root, "node_modules", name), name, files);
}

/** A package's folder: its package.json (version 1.0.0, ESM) and `files`. */
function writePackage(dir: string, name: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", type: "module", exports: "./index.js" }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
}

describe("deno resolves the project's packages as `deno run` in the project does", () => {
  const repoWith = repoPerTest();
  const DENO = join(dirname(dirname(import.meta.dir)), "node_modules", ".bin", "deno");
  const BENCH = [
    'import { bench, run } from "mitata";',
    'import { words } from "./src/words.js";',
    'bench("words", () => words("a quick brown fox jumps over the lazy dog"));',
    "await run();",
    "",
  ].join("\n");

  test.each(["pnpm", "npm"] as const)("a %s layout: the bench file's package imports load", (layout) => {
    const repo = repoWith({
      "package.json": JSON.stringify({ name: "p", private: true, type: "module", dependencies: { "split-lite": "1.0.0" } }),
      ".gitignore": "node_modules\n",
      "src/words.js": 'import { split } from "split-lite";\nexport const words = (s) => split(s).length;\n',
      "words.bench.ts": BENCH,
    });
    const files = { "index.js": 'export const split = (s) => s.split(" ");\n' };
    if (layout === "pnpm") pnpmInstall(repo.dir, "split-lite", files);
    else npmInstall(repo.dir, "split-lite", files);
    // What the project's own `deno run` does with it.
    const own = spawnSync(DENO, ["run", "-A", "--quiet", "src/words.js"], { cwd: repo.dir, encoding: "utf8" });
    expect(own.stderr).toBe("");
    const r = compareIn(repo, ["--base", "HEAD", "--runtime", "deno", "--rounds", "6"], { timeMs: 20 });
    expect(r.stderr).not.toContain("not a dependency");
    expect(r.code).toBe(0);
    expect(rowOf(r.result, "words").status).toBe("ok");
    expect(repo.git("status", "--porcelain")).toBe("");
  });

  test("deno.json imports, no node_modules: the bench file's mapped imports load", () => {
    const repo = repoWith({
      "deno.json": JSON.stringify({ imports: { "split-lite": "./vendor/split.js" } }),
      "vendor/split.js": 'export const split = (s) => s.split(" ");\n',
      "src/words.js": 'import { split } from "split-lite";\nexport const words = (s) => split(s).length;\n',
      "words.bench.ts": BENCH,
    });
    const r = compareIn(repo, ["--base", "HEAD", "--runtime", "deno", "--rounds", "6"], { timeMs: 20 });
    expect(r.stderr).not.toContain("not a dependency");
    expect(r.code).toBe(0);
    expect(rowOf(r.result, "words").status).toBe("ok");
  });
});
