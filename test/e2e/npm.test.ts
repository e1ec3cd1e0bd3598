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

describe("the npm package on node", () => {
  test("packed, installed into a fresh project, `npx xbench compare --base HEAD` runs a mitata bench file and `trace` works", () => {
    const PATH = nodeOnlyPath();
    const env = { ...process.env, PATH, XBENCH_BUN: "", NODE_ENV: "" } as Record<string, string>;
    delete env.XBENCH_BUN;
    // The test would prove nothing with a bun on PATH.
    expect(run("/bin/sh", ["-c", "command -v bun gcc cc musl-gcc || echo none"], { env }).stdout.trim()).toBe("none");

    const pack = run("npm", ["pack", "--pack-destination", work, "--json"], { cwd: ROOT, env });
    expect(pack.code).toBe(0);
    const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const shipped = info!.files.map((f) => f.path);
    // The native helpers come prebuilt: npm users need no C toolchain.
    for (const helper of ["xbench-supervisor", "libxbench-preload.so", "xbench-exec-stats"]) {
      expect(shipped).toContain(`dist/npm/helpers/linux-x64/${helper}`);
    }
    expect(shipped).toContain("LICENSE");

    const project = join(work, "project");
    const git = (...args: string[]) => run("git", args, { cwd: project, env });
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "fresh", private: true, type: "module" }));
    writeFileSync(
      join(project, "sum.bench.ts"),
      'import { bench, run } from "mitata";\nbench("sum 1000", () => { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; });\nawait run();\n',
    );
    // Whatever npm's default for dependencies' install scripts (npm 11 skips them), it must work.
    const install = run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, info!.filename)], { cwd: project, env });
    expect(install.code).toBe(0);
    writeFileSync(join(project, ".gitignore"), "node_modules\n");
    git("init", "-q", "-b", "main");
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init");
    git("add", "-A");
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "bench");

    const version = run("npx", ["xbench", "--version", "--verbose"], { cwd: project, env });
    expect(version.stdout).toContain(`xbench ${pkg.version}`);
    expect(version.stdout).toMatch(/^target   npm$/m);
    expect(version.stdout).toMatch(/^runtime  node /m);

    const compare = run("npx", ["xbench", "compare", "--base", "HEAD", "--rounds", "2", "--time", "20"], { cwd: project, env });
    expect(compare.stderr).not.toContain("found no bun");
    expect(compare.code).toBe(0);
    expect(compare.stdout).toContain("runtime node | rounds 2");
    expect(compare.stdout).toMatch(/sum-[0-9a-f]{8}: sum 1000 /);

    const trace = run("npx", ["xbench", "trace", "--", "cat", "package.json"], { cwd: project, env });
    expect(trace.code).toBe(0);
    expect(trace.stderr).toMatch(/^traced \d+ paths .*; complete$/m);
  }, 300_000);
});
