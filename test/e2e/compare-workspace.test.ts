/**
 * `compare` in a workspace whose bench package imports another package of the repository
 * through its build output (`"exports": "./dist/index.js"`, dist/ ignored), and `--build` on a
 * side that lacks what the build runs (docs/compare.md, "Workspace packages"). The fixtures are
 * installed from the npm registry with the package manager they declare (pnpm through npx).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV, compareIn, repoPerTest, rowOf } from "../support/compare.ts";
import type { TestRepo } from "../support/repo.ts";

const repoWith = repoPerTest();

const PNPM = ["npx", "--yes", "pnpm@9.15.0"];

function run(repo: TestRepo, argv: string[], cwd = repo.dir): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd, encoding: "utf8", env: COMPARE_ENV, timeout: 240_000 });
  if (r.status !== 0) throw new Error(`${argv.join(" ")}: ${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** A pnpm workspace: @acme/core built into dist/ by its build script, @acme/bench's vitest suite importing it by name. */
const WORKSPACE = {
  ".gitignore": "node_modules\ndist\n",
  "package.json": JSON.stringify(
    {
      name: "acme",
      private: true,
      packageManager: "pnpm@9.15.0",
      scripts: { build: "pnpm -r build", bench: "pnpm --filter @acme/bench bench" },
    },
    null,
    2,
  ),
  "pnpm-workspace.yaml": 'packages:\n  - "packages/*"\n',
  "packages/core/package.json": JSON.stringify(
    {
      name: "@acme/core",
      version: "1.2.0",
      type: "module",
      exports: "./dist/index.js",
      files: ["dist"],
      scripts: { build: "node build.mjs" },
    },
    null,
    2,
  ),
  "packages/core/build.mjs": 'import { cpSync } from "node:fs";\n\ncpSync("src", "dist", { recursive: true });\n',
  "packages/core/src/index.js": [
    "export function slugify(text) {",
    '  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");',
    "}",
    "",
    "export function initials(name) {",
    '  return name.split(" ").map((part) => part[0]).join("");',
    "}",
    "",
  ].join("\n"),
  "packages/bench/package.json": JSON.stringify(
    {
      name: "@acme/bench",
      private: true,
      type: "module",
      scripts: { bench: "vitest bench --run" },
      dependencies: { "@acme/core": "workspace:*" },
      devDependencies: { vitest: "4.1.12" },
    },
    null,
    2,
  ),
  "packages/bench/core.bench.ts": [
    'import { bench, describe } from "vitest";',
    'import { initials, slugify } from "@acme/core";',
    "",
    'describe("core", () => {',
    '  bench("slugify title", () => {',
    '    slugify("Hello World, this is a Title of Some Length");',
    "  });",
    '  bench("initials", () => {',
    '    initials("Ada Lovelace Byron");',
    "  });",
    "});",
    "",
  ].join("\n"),
};

describe("a bench that imports a workspace package's build output", () => {
  test("without --build the run stops before any work and names the --build; with it, each side's own source is measured, never unchanged code", () => {
    const repo = repoWith(WORKSPACE);
    run(repo, [...PNPM, "install"]);
    // The project's own tool runs the suite once the package is built.
    run(repo, [...PNPM, "--filter", "@acme/core", "run", "build"]);
    expect(run(repo, [...PNPM, "--filter", "@acme/bench", "bench"])).toContain("slugify title");
    // head's dist/ now predates the change below: it is what a user's checkout often has.
    const source = readFileSync(join(repo.dir, "packages/core/src/index.js"), "utf8");
    repo.write({
      "packages/core/src/index.js": source.replace(
        "return text.toLowerCase()",
        'return text.normalize("NFKD").split("").join("").toLowerCase()',
      ),
    });

    const stopped = compareIn(repo, ["--base", "HEAD", "--rounds", "8"]);
    expect(stopped.code).toBe(2);
    expect(stopped.stderr.trim()).toBe(
      "xbench: packages/bench/core.bench.ts imports @acme/core (packages/core), whose package.json points it at dist/index.js: build output git ignores, which a side's worktree does not have and head's may predate its source; pass --build \"pnpm --filter @acme/core run build\" (@acme/core's build script: node build.mjs), so that each side builds it from its own source",
    );
    expect(stopped.result).toBeUndefined();
    expect(repo.worktrees()).toHaveLength(1);

    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "8", "--build", `${PNPM.join(" ")} --filter @acme/core run build`]);
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    const slowed = rowOf(r.result, "core › slugify title");
    expect(slowed.status).toBe("ok");
    expect(slowed.stats!.verdict).toBe("slower");
    expect(slowed.stats!.delta).toBeGreaterThan(0.3);
    // initials did not change, but its bundle holds the changed module: measured, not skipped.
    expect(rowOf(r.result, "core › initials").status).toBe("ok");
  }, 600_000);
});

describe("--build on a side without what the build runs", () => {
  /** The build runs shx, a devDependency: present only where the dependencies are installed. */
  const SHX = {
    ".gitignore": "node_modules\ndist\n",
    "package.json": JSON.stringify(
      {
        name: "strip",
        type: "module",
        scripts: { build: "shx mkdir -p dist && shx cp src/index.js dist/index.js" },
        devDependencies: { shx: "0.3.4" },
      },
      null,
      2,
    ),
    "src/index.js": 'export const strip = (s) => s.replace(/\\s+/g, " ").trim();\n',
    "strip.bench.js":
      'import { bench } from "mitata";\nimport { strip } from "./dist/index.js";\nbench("strip", () => strip("  a   b  c "));\n',
  };

  test("a fresh checkout (no node_modules): the failed build names --install; with --install base builds, and the working tree's line says to install it", () => {
    const repo = repoWith(SHX);
    const build = ["--base", "HEAD", "--rounds", "6", "--build", "npm run build"];
    const bare = compareIn(repo, build);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(
      /^xbench: build \(npm run build\) failed on base \([0-9a-f]{12}\): sh: 1: shx: not found: base runs with head's node_modules, and head has none; add --install so that each side installs its own dependencies before the build$/m,
    );
    const installed = compareIn(repo, [...build, "--install"]);
    expect(installed.code).toBe(1);
    expect(installed.stderr).toContain("installed base's dependencies (npm install --no-audit --no-fund)");
    expect(installed.stderr).toMatch(
      /^xbench: build \(npm run build\) failed on head \([0-9a-f]{12}\): sh: 1: shx: not found: the working tree has no node_modules: install its dependencies first$/m,
    );
    run(repo, ["npm", "install", "--no-audit", "--no-fund"]);
    const r = compareIn(repo, [...build, "--install"]);
    expect(r.code).toBe(0);
    expect(rowOf(r.result, "strip").status).toBe("ok");
  }, 600_000);
});
