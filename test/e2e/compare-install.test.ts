/**
 * `compare --install` on old commits: each side installs the dependencies it declares, with the
 * package manager it declares (npm, pnpm, yarn; fetched with npx when PATH has no fitting one),
 * and a package the registry does not have is one line. Needs the npm registry (npm's config).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV, compareIn, repoPerTest } from "../support/compare.ts";
import type { TestRepo } from "../support/repo.ts";
import { tempDir } from "../support/xbench.ts";

const repoWith = repoPerTest();

const tmp = tempDir("xbench-no-pm-");
afterAll(tmp.cleanup);

/** PATH where `pnpm` and `yarn` fail as a missing command would, whatever this machine has. */
function pathWithoutManagers(): string {
  const bin = join(tmp.dir, "bin");
  mkdirSync(bin);
  for (const name of ["pnpm", "yarn"]) {
    writeFileSync(join(bin, name), `#!/bin/sh\necho "${name}: command not found" >&2\nexit 127\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return `${bin}:${COMPARE_ENV.PATH}`;
}
const ENV = { ...COMPARE_ENV, PATH: pathWithoutManagers() };

/** A row for is-odd, and one named after the is-odd each side imports: the version it ran. */
const BENCH = [
  'import { createRequire } from "node:module";',
  'import { bench } from "mitata";',
  'import isOdd from "is-odd";',
  'const { version } = createRequire(import.meta.url)("is-odd/package.json");',
  'bench("isOdd(7)", () => isOdd(7));',
  "bench(`version ${version}`, () => version.length);",
  "",
].join("\n");

const MANAGERS = {
  npm: { install: ["npm", "install", "--no-audit", "--no-fund"], pin: undefined, lockfile: "package-lock.json" },
  // The fixture writes its lockfiles: under CI=true pnpm would refuse to update one (frozen by default there).
  pnpm: { install: ["npx", "--yes", "pnpm@9.15.0", "install", "--no-frozen-lockfile"], pin: "pnpm@9.15.0", lockfile: "pnpm-lock.yaml" },
  yarn: { install: ["npx", "--yes", "yarn@1.22.22", "install"], pin: undefined, lockfile: "yarn.lock" },
} as const;

function install(repo: TestRepo, argv: readonly string[]): void {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: repo.dir, encoding: "utf8", env: ENV, timeout: 240_000 });
  if (r.status !== 0) throw new Error(`${argv.join(" ")}: ${r.stdout}\n${r.stderr}`);
}

/** Base depends on is-odd 0.1.2, head (the last commit, installed in the repository) on 3.0.1. */
function twoVersions(pm: keyof typeof MANAGERS): TestRepo {
  const { install: argv, pin, lockfile } = MANAGERS[pm];
  const manifest = (version: string) =>
    JSON.stringify({
      name: `app-${pm}`,
      private: true,
      type: "module",
      dependencies: { "is-odd": version },
      ...(pin ? { packageManager: pin } : {}),
    });
  const repo = repoWith({ ".gitignore": "node_modules/\n", "package.json": manifest("0.1.2"), "odd.bench.ts": BENCH });
  install(repo, argv);
  repo.commit("base: is-odd 0.1.2");
  repo.write({ "package.json": manifest("3.0.1") });
  install(repo, argv);
  expect(repo.git("status", "--porcelain")).toContain(lockfile);
  repo.commit("head: is-odd 3.0.1");
  return repo;
}

const labels = (r: ReturnType<typeof compareIn>) => r.result?.rows.map((row) => row.label).sort();

describe("--install: each side's dependencies as it declares them", () => {
  test.each(Object.keys(MANAGERS) as (keyof typeof MANAGERS)[])(
    "%s: base runs the version its lockfile records, head its own",
    (pm) => {
      const repo = twoVersions(pm);
      const r = compareIn(repo, ["--base", "HEAD~1", "--rounds", "6", "--install"], { env: ENV });
      expect(r.stderr).not.toContain("failed");
      expect(r.code).toBe(0);
      expect(labels(r)).toEqual(["isOdd(7)", "version 0.1.2", "version 3.0.1"]);
      if (pm !== "npm")
        expect(r.stderr).toContain(
          `installed base's dependencies (npx --yes ${pm === "pnpm" ? "pnpm@9.15.0" : "yarn@1"} install --frozen-lockfile)`,
        );
      expect(repo.worktrees()).toHaveLength(1);
      if (pm !== "npm") return;
      // Without --install base links head's node_modules: one row, head's version on both sides.
      const linked = compareIn(repo, ["--base", "HEAD~1", "--rounds", "6"], { env: ENV });
      expect(labels(linked)).toEqual(["isOdd(7)", "version 3.0.1"]);
    },
    600_000,
  );
});

/** `compare --base BASE --install` in `repo` fails with exit 1 and `line` as its one error line; nothing left behind. */
function installFails(repo: TestRepo, base: string, line: (sha: string) => string): ReturnType<typeof compareIn> {
  const r = compareIn(repo, ["--base", base, "--rounds", "6", "--install"], { env: ENV });
  expect(r.code).toBe(1);
  const errors = r.stderr.split("\n").filter((l) => l.startsWith("xbench:"));
  expect(errors).toEqual([`xbench: ${line(repo.git("rev-parse", base).slice(0, 12))}`]);
  expect(repo.worktrees()).toHaveLength(1);
  return r;
}

const SUM = { ".gitignore": "node_modules/\n", "t.bench.ts": 'import { bench } from "mitata";\nbench("sum", () => 1 + 1);\n' };

describe("--install: what the registry does not have", () => {
  test("a dependency base declares that the registry does not have: one line naming it, the side and the way out", () => {
    const missing = { "xbench-no-such-package-4af1": "^1.0.0" };
    const repo = repoWith({ ...SUM, "package.json": JSON.stringify({ name: "app", type: "module", dependencies: missing }) });
    repo.write({ "package.json": JSON.stringify({ name: "app", type: "module" }) });
    repo.commit("head: no dependencies");
    const r = installFails(
      repo,
      "HEAD~1",
      (sha) =>
        `install (npm install --no-audit --no-fund) failed on base (${sha}): xbench-no-such-package-4af1@^1.0.0, which base depends on, is not in the registry: pick a --base whose dependencies still resolve, or leave out --install to run base with head's node_modules`,
    );
    expect(r.stderr).not.toContain("npm error");
  }, 300_000);

  test("a pinned package manager the registry does not have: one line naming it and the side", () => {
    const repo = repoWith({ ...SUM, "package.json": JSON.stringify({ name: "app", type: "module", packageManager: "pnpm@99.0.0" }) });
    installFails(
      repo,
      "HEAD",
      (sha) =>
        `install (npx --yes pnpm@99.0.0 install) failed on base (${sha}): pnpm@99.0.0, the package manager base's package.json pins, is not in the registry: put pnpm 99.0.0 on PATH, or leave out --install to run base with head's node_modules`,
    );
  }, 300_000);
});
