import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import pkg from "../../package.json" with { type: "json" };
import { ROOT, tempDir } from "../support/xbench.ts";

const { dir: work, cleanup } = tempDir("xbench-npm-");
afterAll(cleanup);

/**
 * A PATH of links to node, npm, npx and the few system tools the test itself and git need:
 * no bun, no C compiler, so neither can be what makes the package work.
 */
function nodeOnlyPath(): string {
  const bin = join(work, "bin");
  mkdirSync(bin);
  for (const tool of ["node", "npm", "npx", "git", "sh", "cat", "env"]) {
    const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    if (!found) throw new Error(`${tool} is not on PATH`);
    symlinkSync(found, join(bin, tool));
  }
  return bin;
}

function run(cmd: string, args: string[], options: SpawnSyncOptions) {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 240_000, ...options });
  return { code: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** `npm pack` of this repository, checked for what npm users need without a toolchain. */
function pack(env: Record<string, string>): string {
  const r = run("npm", ["pack", "--pack-destination", work, "--json"], { cwd: ROOT, env });
  expect(r.code).toBe(0);
  const [info] = JSON.parse(r.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const shipped = info!.files.map((f) => f.path);
  // The native helpers come prebuilt: npm users need no C toolchain.
  for (const helper of ["xbench-supervisor", "libxbench-preload.so", "xbench-exec-stats"]) {
    expect(shipped).toContain(`dist/npm/helpers/linux-x64/${helper}`);
  }
  expect(shipped).toContain("LICENSE");
  return join(work, info!.filename);
}

/** A fresh git project with one mitata bench file and the tarball installed with `npmFlags`. */
function freshProject(name: string, tarball: string, npmFlags: string[], env: Record<string, string>): string {
  const project = join(work, name);
  const git = (...args: string[]) => run("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: project, env });
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "fresh", private: true, type: "module" }));
  writeFileSync(
    join(project, "sum.bench.ts"),
    'import { bench, run } from "mitata";\nbench("sum 1000", () => { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; });\nawait run();\n',
  );
  const install = run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...npmFlags, tarball], { cwd: project, env });
  expect(install.code).toBe(0);
  writeFileSync(join(project, ".gitignore"), "node_modules\n");
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "bench");
  return project;
}

/** `xbench compare` of the project with itself, as `launch` starts xbench: it runs the bench file under `runtime`. */
function expectCompareRuns(project: string, env: Record<string, string>, launch = ["npx", "xbench"], runtime = "node"): void {
  const compare = run(launch[0]!, [...launch.slice(1), "compare", "--base", "HEAD", "--rounds", "6", "--time", "20"], {
    cwd: project,
    env,
  });
  expect(compare.stderr).not.toContain("found no bun");
  expect(compare.code).toBe(0);
  expect(compare.stdout).toContain(`runtime ${runtime} | rounds 6`);
  expect(compare.stdout).toMatch(/sum\.bench\.ts › sum 1000 /);
}

/** `--version --verbose`, a compare and a trace, as `launch` starts xbench on `runtime`. */
function expectCliRuns(project: string, env: Record<string, string>, launch: string[], runtime: string): void {
  const [cmd, ...pre] = launch as [string, ...string[]];
  const version = run(cmd, [...pre, "--version", "--verbose"], { cwd: project, env });
  expect(version.code).toBe(0);
  expect(version.stdout).toContain(`xbench ${pkg.version}`);
  expect(version.stdout).toMatch(/^target {3}npm$/m);
  expect(version.stdout).toMatch(new RegExp(`^runtime {2}${runtime} `, "m"));
  // The bench file is mitata's: its bench processes run under node, whatever runs xbench.
  expectCompareRuns(project, env, launch);
  const trace = run(cmd, [...pre, "trace", "--", "cat", "package.json"], { cwd: project, env });
  expect(trace.code).toBe(0);
  expect(trace.stderr).toMatch(/^traced \d+ paths .*; complete$/m);
}

describe("the npm package on node", () => {
  const env = { ...process.env, PATH: nodeOnlyPath() } as Record<string, string>;
  delete env.XBENCH_BUN;
  delete env.NODE_ENV;
  let tarball = "";

  test("nothing but node on PATH: no bun, no C compiler", () => {
    // The tests below would prove nothing with a bun or a compiler to fall back on.
    expect(run("/bin/sh", ["-c", "command -v bun gcc cc musl-gcc || echo none"], { env }).stdout.trim()).toBe("none");
    tarball = pack(env);
  });

  test("installed into a fresh project, `npx xbench compare --base HEAD` runs a mitata bench file; trace works; version says npm", () => {
    const project = freshProject("project", tarball, [], env);
    const version = run("npx", ["xbench", "--version", "--verbose"], { cwd: project, env });
    expect(version.stdout).toContain(`xbench ${pkg.version}`);
    expect(version.stdout).toMatch(/^target {3}npm$/m);
    expect(version.stdout).toMatch(/^runtime {2}node /m);
    expectCompareRuns(project, env);
    const trace = run("npx", ["xbench", "trace", "--", "cat", "package.json"], { cwd: project, env });
    expect(trace.code).toBe(0);
    expect(trace.stderr).toMatch(/^traced \d+ paths .*; complete$/m);
  }, 300_000);

  test("installed with --ignore-scripts (bun's postinstall never ran, .bin/bun is its placeholder), compare still runs", () => {
    const project = freshProject("no-scripts", tarball, ["--ignore-scripts"], env);
    expect(run("/bin/sh", ["-c", "head -c 2 node_modules/.bin/bun"], { cwd: project, env }).stdout).not.toBe("\u007fE");
    expectCompareRuns(project, env);
  }, 300_000);
});

describe("the npm package on Bun and Deno", () => {
  // bun and deno from this checkout's node_modules.
  const online = { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` } as Record<string, string>;
  delete online.XBENCH_BUN;
  // Once installed, a registry that cannot answer and an empty Deno cache: nothing is fetched.
  const env = {
    ...online,
    NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
    BUN_CONFIG_REGISTRY: "http://127.0.0.1:9/",
    DENO_DIR: join(work, "deno-dir"),
  };
  let project = "";

  test("installed from the packed tarball into a fresh project", () => {
    project = freshProject("bun-deno", pack(online), [], online);
  }, 300_000);

  test("bunx --bun xbench: --version says bun; compare and trace run, offline", () => {
    expectCliRuns(project, env, ["bunx", "--bun", "xbench"], "bun");
  }, 300_000);

  test("deno run -A npm:xbench: --version says deno; compare and trace run, offline", () => {
    expectCliRuns(project, env, ["deno", "run", "-A", "npm:xbench"], "deno");
  }, 300_000);

  test("deno.json's task runs the CLI from this checkout's source under Deno", () => {
    const version = run("deno", ["task", "xbench", "--version", "--verbose"], { cwd: ROOT, env });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^target {3}source$/m);
    expect(version.stdout).toMatch(/^runtime {2}deno /m);
    const trace = run("deno", ["task", "xbench", "trace", "--", "cat", "package.json"], { cwd: ROOT, env });
    expect(trace.code).toBe(0);
    expect(trace.stderr).toMatch(/^traced \d+ paths .*; complete$/m);
  }, 300_000);
});
