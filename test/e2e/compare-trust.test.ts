/**
 * What compare trusts and what it does not (docs/reliability.md, "What is trusted input"): the
 * code under test gets no secret of the environment, helpers run only from a cache of the
 * user's own with the bytes the binary carries, what bench processes execute is private
 * whatever the umask, the repository's hooks, fsmonitor and filters never run in xbench's
 * git calls, a result file's fields cannot put markup into the PR comment, and a resumed run
 * says which build command its run folder holds before running it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV } from "../support/compare.ts";
import { createRepo, workFiles, type TestRepo } from "../support/repo.ts";
import { mixedResult } from "../support/report-fixtures.ts";
import { requireBinary, tempDir, xbench } from "../support/xbench.ts";

const SETTINGS = ["compare", "--base", "HEAD", "--rounds", "6", "--time", "20"];
let undo: Array<() => void> = [];
afterEach(() => {
  for (const step of undo.reverse()) step();
  undo = [];
});

function repoWith(files: Record<string, string>): TestRepo {
  const repo = createRepo();
  undo.push(repo.cleanup);
  repo.write(files);
  repo.commit("base");
  return repo;
}

function scratch(prefix: string): string {
  const { dir, cleanup } = tempDir(prefix);
  undo.push(cleanup);
  return dir;
}

const run = (repo: TestRepo, args: string[], env: Record<string, string | undefined> = {}) =>
  xbench(args, { cwd: repo.dir, env: { ...COMPARE_ENV, ...env }, timeout: 240_000 });

/** A bench file that, as it loads in each bench process, runs `onLoad` (statements with `dir`, the test's folder). */
function probeBench(onLoad: string): Record<string, string> {
  return {
    ...workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]),
    "probe.bench.ts": [
      'import { bench } from "mitata";',
      'import { readFileSync, statSync, writeFileSync } from "node:fs";',
      "const dir = process.env.PROBE_DIR!;",
      onLoad,
      'bench("p", () => { let s = 0; for (let i = 0; i < 500; i++) s += i; return s; });',
      "",
    ].join("\n"),
  };
}

const errorLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("xbench: "));

describe("secrets stay out of the code under test", () => {
  test("a bench that dumps its environment sees no token; XBENCH_PASS_ENV lets one through; the build sees none", () => {
    const dir = scratch("xbench-trust-env-");
    const repo = repoWith(probeBench("writeFileSync(`${dir}/env-${process.pid}.json`, JSON.stringify(process.env));"));
    const secrets = {
      GITHUB_TOKEN: "ghs_not_for_the_pr",
      GH_TOKEN: "gho_not_for_the_pr",
      NPM_TOKEN: "npm_not_for_the_pr",
      AWS_SECRET_ACCESS_KEY: "aws_not_for_the_pr",
      DEPLOY_PASSWORD: "hunter2",
      SERVICE_API_KEY: "kept-on-purpose",
    };
    const r = run(repo, [...SETTINGS, "--build", `env > '${dir}/build-env.txt'`], {
      ...secrets,
      PROBE_DIR: dir,
      XBENCH_PASS_ENV: "SERVICE_API_KEY",
    });
    expect(r.code).toBe(0);
    const dumps = readdirSync(dir).filter((name) => name.startsWith("env-"));
    // An inventory process and six duets, at least.
    expect(dumps.length).toBeGreaterThanOrEqual(7);
    for (const name of dumps) {
      const env = JSON.parse(readFileSync(join(dir, name), "utf8")) as Record<string, string>;
      for (const secret of ["GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "DEPLOY_PASSWORD"]) {
        expect(env[secret]).toBeUndefined();
      }
      expect(env.SERVICE_API_KEY).toBe("kept-on-purpose");
      expect(env.PROBE_DIR).toBe(dir); // everything else passes as it was
    }
    const build = readFileSync(join(dir, "build-env.txt"), "utf8");
    expect(build).toContain(`PROBE_DIR=${dir}`);
    for (const value of Object.values(secrets).slice(0, 5)) expect(build).not.toContain(value);
  }, 300_000);
});

describe("the helper cache", () => {
  /** A cache extracted by `xbench helpers`: its root and the folder of this build's helpers. */
  function extractedCache(): { root: string; helpers: string } {
    const root = join(scratch("xbench-trust-cache-"), "cache");
    const r = xbench(["helpers"], { env: { ...process.env, XBENCH_CACHE_DIR: root } });
    expect(r.code).toBe(0);
    return { root, helpers: r.stdout.trim() };
  }

  /** A shell script of exactly `size` bytes that leaves a mark and then runs what it was given, as the reaper would. */
  function impostor(mark: string, size: number): string {
    const script = `#!/bin/sh\necho ran >> '${mark}'\nshift\nexec "$@"\n#`;
    return script + "x".repeat(size - script.length);
  }

  test("a tampered helper of the same size is replaced, not run", () => {
    const { root, helpers } = extractedCache();
    const reaper = join(helpers, "xbench-reaper");
    const original = readFileSync(reaper);
    const mark = join(scratch("xbench-trust-mark-"), "ran");
    writeFileSync(reaper, impostor(mark, original.length));
    expect(statSync(reaper).size).toBe(original.length);
    const repo = repoWith(workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]));
    const r = run(repo, SETTINGS, { XBENCH_CACHE_DIR: root });
    expect(r.code).toBe(0);
    expect(existsSync(mark)).toBe(false);
    expect(readFileSync(reaper).equals(original)).toBe(true);
  }, 300_000);

  test("a world-writable cache, one another user owns, or a planted link is refused in one line, nothing run", () => {
    const repo = repoWith(workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]));
    const refused = (root: string, why: RegExp) => {
      const r = run(repo, SETTINGS, { XBENCH_CACHE_DIR: root });
      expect(r.code).toBe(1);
      const errors = errorLines(r.stderr);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(why);
      expect(errors[0]).toContain("xbench does not run helpers from it");
      expect(r.stderr).not.toContain("round ");
      expect(repo.worktrees()).toHaveLength(1);
    };

    const open = extractedCache();
    chmodSync(open.root, 0o777);
    refused(open.root, new RegExp(`^xbench: the helper cache ${open.root} is writable by other users \\(mode 777\\)`));

    if (process.getuid?.() === 0) {
      const foreign = extractedCache();
      chownSync(foreign.root, 65534, 65534);
      refused(foreign.root, new RegExp(`^xbench: the helper cache ${foreign.root} is owned by uid 65534, not by this user`));
    }

    // The folder of this build's helpers swapped for a link to someone's copy of them.
    const planted = extractedCache();
    const elsewhere = join(scratch("xbench-trust-planted-"), "helpers");
    renameSync(planted.helpers, elsewhere);
    symlinkSync(elsewhere, planted.helpers);
    refused(planted.root, new RegExp(`^xbench: the helper cache ${planted.helpers} is a symbolic link`));
  }, 300_000);
});

describe("files xbench writes are private", () => {
  test("under umask 000, the bundles bench processes execute, their folders, the run folder and the helper cache are the user's alone", () => {
    const dir = scratch("xbench-trust-umask-");
    // Each bench process notes the modes of what it is about to execute: its job names the bundles.
    const repo = repoWith({
      ".gitignore": "node_modules/\n",
      ...probeBench(
        [
          "const job = JSON.parse(process.env.XBENCH_JOB!);",
          "const bundles = (job.sides ?? []).map((s: { bundle: string }) => s.bundle);",
          "const modes = bundles.flatMap((b: string) => [b, b.slice(0, b.lastIndexOf('/')), b.replace(/side\\.js$/, 'entry.mjs')])",
          "  .map((p: string) => [p, statSync(p).mode & 0o777]);",
          "writeFileSync(`${dir}/modes-${process.pid}.json`, JSON.stringify(modes));",
        ].join("\n"),
      ),
    });
    mkdirSync(join(repo.dir, "node_modules")); // bundles go to node_modules/.cache/xbench
    const cache = join(dir, "cache");
    const quoted = [requireBinary(), ...SETTINGS].map((a) => `'${a}'`).join(" ");
    const r = spawnSync("bash", ["-c", `umask 000; exec ${quoted}`], {
      cwd: repo.dir,
      env: { ...COMPARE_ENV, PROBE_DIR: dir, XBENCH_CACHE_DIR: cache },
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(r.stderr).not.toContain("xbench: ");
    expect(r.status).toBe(0);
    const seen = readdirSync(dir)
      .filter((name) => name.startsWith("modes-"))
      .flatMap((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as Array<[string, number]>);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const [path, mode] of seen) expect({ path, mode: mode.toString(8), open: (mode & 0o077) !== 0 }).toMatchObject({ open: false });
    const runs = join(repo.dir, ".git", "xbench", "runs");
    for (const run of readdirSync(runs)) expect((statSync(join(runs, run)).mode & 0o777).toString(8)).toBe("700");
    for (let at = cache; at !== dir; at = at.slice(0, at.lastIndexOf("/"))) {
      if (!existsSync(at)) continue;
      expect((statSync(at).mode & 0o022).toString(8)).toBe("0");
    }
    const helpers = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(helpers.length).toBeGreaterThan(0);
    for (const file of helpers) expect(statSync(join(file.parentPath, file.name)).mode & 0o022).toBe(0);
  }, 300_000);
});

describe("the repository's hooks, fsmonitor and filters", () => {
  test("none runs in compare's git calls or its worktrees", () => {
    const dir = scratch("xbench-trust-hooks-");
    const log = join(dir, "ran.log");
    const repo = repoWith({
      ...workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]),
      ".gitattributes": "*.dat filter=spy\n",
      "data.dat": "payload\n",
    });
    // Set after the commit, so only xbench's git calls can run them.
    const hooks = join(repo.dir, ".git", "hooks");
    for (const hook of ["post-checkout", "reference-transaction", "post-index-change"]) {
      writeFileSync(join(hooks, hook), `#!/bin/sh\necho ${hook} >> '${log}'\n`);
      chmodSync(join(hooks, hook), 0o755);
    }
    const monitor = join(dir, "fsmonitor.sh");
    writeFileSync(monitor, `#!/bin/sh\necho fsmonitor >> '${log}'\nexit 1\n`);
    chmodSync(monitor, 0o755);
    repo.git("config", "core.fsmonitor", monitor);
    repo.git("config", "filter.spy.smudge", `sh -c "echo smudge >> '${log}'; cat"`);
    repo.write({ "work.ts": `${readFileSync(join(repo.dir, "work.ts"), "utf8")}// an edit: head is the dirty tree\n` });
    const r = run(repo, SETTINGS);
    expect(r.code).toBe(0);
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("");
  }, 300_000);
});

describe("a result file's fields", () => {
  test("a crafted sha is refused before it reaches the PR comment; a shard's index must be a number", () => {
    const dir = scratch("xbench-trust-result-");
    const crafted = mixedResult();
    crafted.base = { ...crafted.base, sha: "@octocat </details><img src=x>" };
    const file = join(dir, "crafted.json");
    writeFileSync(file, JSON.stringify(crafted));
    const r = xbench(["report", file, "--format", "md"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain("field base is missing or has the wrong type");

    const shard = { ...mixedResult(), shard: { index: "@octocat </details>", count: 2 } };
    writeFileSync(file, JSON.stringify(shard));
    const s = xbench(["report", file, "--format", "md"]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain("field shard is missing or has the wrong type");
    expect(s.stdout).not.toContain("@octocat");
  });
});

describe("a run folder is trusted input", () => {
  test("--resume says which build command its plan.json holds before running it", () => {
    const dir = scratch("xbench-trust-plan-");
    const repo = repoWith(workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]));
    const first = run(repo, [...SETTINGS, "--build", "true"]);
    expect(first.code).toBe(0);
    const runDir = /run folder (\S+)/.exec(first.stderr)![1]!;
    const planFile = join(runDir, "plan.json");
    const plan = JSON.parse(readFileSync(planFile, "utf8"));
    const build = `touch '${dir}/built'`;
    writeFileSync(planFile, JSON.stringify({ ...plan, build }));
    const resumed = run(repo, ["compare", "--resume", runDir]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`--build ${JSON.stringify(build)}, from the run folder's plan.json`);
    expect(resumed.stderr.indexOf("--build ")).toBeLessThan(resumed.stderr.indexOf("base "));
  }, 300_000);
});
