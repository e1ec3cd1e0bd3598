import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "pathe";
import type { CompareResult } from "../../src/model/result.ts";
import { createRepo, workFiles, type TestRepo } from "../support/repo.ts";
import pkg from "../../package.json" with { type: "json" };
import { ROOT } from "../support/xbench.ts";

const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

describe("the CLI runs from source and from the npm build", () => {
  const cases: Array<[string, string, string[]]> = [
    ["node", "node", [join(ROOT, "dist", "npm", "cli", "index.mjs")]],
    ["bun (source)", bin("bun"), [join(ROOT, "src", "cli", "index.ts")]],
    ["bun (npm build)", bin("bun"), [join(ROOT, "dist", "npm", "cli", "index.mjs")]],
    ["deno (source)", bin("deno"), ["run", "-A", join(ROOT, "src", "cli", "index.ts")]],
    ["deno (npm build)", bin("deno"), ["run", "-A", join(ROOT, "dist", "npm", "cli", "index.mjs")]],
  ];
  test.each(cases)("%s --version", (_name, cmd, args) => {
    const r = spawnSync(cmd, [...args, "--version"], { encoding: "utf8", cwd: ROOT, timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${pkg.version}\n`);
    expect(r.status).toBe(0);
  });
});

describe("compare from the npm build (node and deno have no bundler: a bun on PATH compiles for them)", () => {
  const NPM_CLI = join(ROOT, "dist", "npm", "cli", "index.mjs");
  /** System folders only: no node_modules/.bin, so the only bun is the one a test puts on PATH. */
  const systemPath = (extra: string[] = []) =>
    [...extra, dirname(spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8" }).stdout.trim()), "/usr/bin", "/bin"].join(":");
  let repo: TestRepo;
  beforeEach(() => {
    repo = createRepo();
    repo.write({
      ...workFiles("work.bench.ts", [{ label: "sum", work: 5000 }]),
      "broken.bench.ts": 'import { bench } from "mitata";\nbench("broken", () => { let = ; });\n',
      "cmd.bench.ts": 'import { command } from "xbench";\ncommand("true", ["true"], { runs: 1 });\n',
    });
    repo.commit("base");
  });
  afterEach(() => repo.cleanup());

  test.each([
    ["node", ["node", NPM_CLI]],
    ["deno", [bin("deno"), "run", "-A", NPM_CLI]],
    ["bun", [bin("bun"), NPM_CLI]],
  ])("%s: bench files and command rows run; a file that does not compile is that row's failure", (_name, argv) => {
    const json = join(repo.dir, "..", `${basename(repo.dir)}-npm.json`);
    const r = spawnSync(argv[0]!, [...argv.slice(1), "compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--json", json], {
      encoding: "utf8",
      cwd: repo.dir,
      env: { ...process.env, PATH: systemPath([dirname(bin("bun"))]) },
      timeout: 120_000,
    });
    const result = JSON.parse(readFileSync(json, "utf8")) as CompareResult;
    rmSync(json, { force: true });
    expect(r.status).toBe(3); // the broken file's row: a benchmark that failed to run
    expect(result.rows.find((row) => row.label === "sum")?.status).toBe("ok");
    expect(result.rows.find((row) => row.label === "true (peak RSS)")?.status).toBe("ok");
    const broken = result.rows.find((row) => row.file === "broken.bench.ts");
    expect(broken?.error?.message).toMatch(/^cannot compile .*broken\.bench\.ts: Unexpected/);
    expect(repo.worktrees()).toHaveLength(1);
  });

  /**
   * The npm build installed without its `bun` dependency (a platform Oven publishes no Bun
   * for, or `--omit=optional`): a copy of dist/npm whose other dependencies link to ours.
   */
  function npmBuildWithoutBun(): string {
    const root = mkdtempSync(join(tmpdir(), "xbench-nobun-"));
    cpSync(join(ROOT, "dist", "npm"), join(root, "xbench", "dist", "npm"), { recursive: true });
    cpSync(join(ROOT, "package.json"), join(root, "xbench", "package.json"));
    mkdirSync(join(root, "node_modules"));
    for (const dep of Object.keys(pkg.dependencies).filter((d) => d !== "bun")) {
      symlinkSync(join(ROOT, "node_modules", dep), join(root, "node_modules", dep));
    }
    return root;
  }

  /**
   * A PATH with only the programs this case needs, linked into a folder of their own: a machine
   * may have bun in /usr/bin (a global npm install puts it there), which system folders would give.
   */
  function pathWithoutBun(root: string): string {
    const dir = join(root, "bin");
    mkdirSync(dir);
    for (const program of ["node", "git", "sh"]) {
      const found = spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).stdout.trim();
      symlinkSync(found, join(dir, program));
    }
    return dir;
  }

  test("node with no bun anywhere: one line saying what to install, before doing anything", () => {
    const root = npmBuildWithoutBun();
    try {
      const r = spawnSync("node", [join(root, "xbench", "dist", "npm", "cli", "index.mjs"), "compare", "--base", "HEAD"], {
        encoding: "utf8",
        cwd: repo.dir,
        env: { ...process.env, PATH: pathWithoutBun(root), XBENCH_BUN: "" },
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        "xbench: compare compiles bench files with Bun's bundler, and found no bun: install it (npm i -D bun, or put bun on PATH), or use the xbench binary\n",
      );
      expect(r.stdout).toBe("");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
