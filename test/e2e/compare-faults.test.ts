/**
 * compare under faults (docs/reliability.md): what a bench process starts dies with its round, everything
 * dies with xbench (SIGKILL included), a later run reclaims what a killed run left, Ctrl-C
 * stops a build at once, and no empty folder is left in node_modules.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { createRepo, type TestRepo } from "../support/repo.ts";
import { alive, waitFor } from "../support/procs.ts";
import { ROOT, requireBinary, tempDir, xbench } from "../support/xbench.ts";

const ENV = { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` };

let undo: Array<() => void> = [];
afterEach(() => {
  for (const step of undo.reverse()) step();
  undo = [];
});

/** A repository, a folder for the test's own files, and a TMPDIR for xbench alone. */
function setup(files: Record<string, string>): { repo: TestRepo; dir: string; tmp: string } {
  const repo = createRepo();
  const { dir, cleanup } = tempDir("xbench-faults-");
  const own = tempDir("xbench-faults-tmp-");
  undo.push(repo.cleanup, cleanup, own.cleanup);
  repo.write(files);
  repo.commit("base");
  return { repo, dir, tmp: own.dir };
}

function pids(file: string): number[] {
  return existsSync(file) ? readFileSync(file, "utf8").split(/\s+/).filter(Boolean).map(Number) : [];
}

/** Kills what the pids in `file` name when the test ends, so a failing run leaves nothing behind. */
function killAtEnd(file: string): void {
  undo.push(() => {
    for (const pid of pids(file)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone, as it should be
      }
    }
  });
}

function start(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } {
  // Its own process group, so a signal to the group reaches xbench as a terminal's Ctrl-C would.
  const child = spawn(requireBinary(), args, { cwd, env: { ...ENV, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  child.stdout!.resume();
  const exited = new Promise<number | null>((done) => child.on("close", (code, signal) => done(code ?? (signal ? -1 : null))));
  undo.push(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  });
  return { child, stderr: () => stderr, exited };
}

/** Temp folders of compare runs in `tmp` (each test gives xbench a TMPDIR of its own). */
function runTemps(tmp: string): string[] {
  return readdirSync(tmp).filter((n) => n.startsWith("xbench-compare-"));
}

const SPIN = 'bench("spin", () => { let s = 0; for (let i = 0; i < 2000; i++) s += Math.sqrt(i); return s; });';

/** A bench file whose every load starts two sleeps in sessions of their own (one holding stdout and stderr), their pids noted. */
const DETACHING = [
  'import { bench } from "mitata";',
  'import { spawn } from "node:child_process";',
  'import { appendFileSync } from "node:fs";',
  'const quiet = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });',
  'const holder = spawn("sleep", ["600"], { detached: true, stdio: ["ignore", "inherit", "inherit"] });',
  "quiet.unref(); holder.unref();",
  "appendFileSync(process.env.FAULT_DIR + '/pids', `${quiet.pid} ${holder.pid}\\n`);",
  SPIN,
  "",
].join("\n");

describe("compare under faults", () => {
  test("nothing a bench process starts outlives its round, own sessions and held pipes included", () => {
    const { repo, dir } = setup({
      "grand.bench.ts": DETACHING,
    });
    killAtEnd(join(dir, "pids"));
    const r = xbench(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20"], {
      cwd: repo.dir,
      env: { ...ENV, FAULT_DIR: dir },
      timeout: 240_000,
    });
    expect(`${r.stdout}${r.stderr}`).not.toContain("failed");
    expect(r.code).toBe(0);
    const started = pids(join(dir, "pids"));
    // Every process loads both sides (an inventory process, then one duet per round): 2 grandchildren a side.
    expect(started.length).toBeGreaterThanOrEqual(4 * 7);
    expect(started.filter(alive)).toEqual([]);
    expect(repo.worktrees()).toHaveLength(1);
  }, 300_000);

  test("a helper cache that cannot be written (a file): said in one line, helpers from a private folder, nothing left running", () => {
    const { repo, dir } = setup({
      "grand.bench.ts": DETACHING,
    });
    killAtEnd(join(dir, "pids"));
    const cache = join(dir, "not-a-folder");
    writeFileSync(cache, "a file where the cache should be\n");
    const r = xbench(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20"], {
      cwd: repo.dir,
      env: { ...ENV, FAULT_DIR: dir, XBENCH_CACHE_DIR: cache },
      timeout: 240_000,
    });
    expect(r.code).toBe(0);
    const said = r.stderr.split("\n").filter((line) => line.includes("the helper cache"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      new RegExp(`the helper cache ${cache} cannot be used \\(.*\\): helpers run from \\S+xbench-helpers-\\w+ for this run$`),
    );
    const started = pids(join(dir, "pids"));
    expect(started.length).toBeGreaterThanOrEqual(7);
    expect(started.filter(alive)).toEqual([]);
    // The private folder goes with the run.
    const folder = /helpers run from (\S+) for this run/.exec(said[0]!)![1]!;
    expect(existsSync(folder)).toBe(false);
  }, 300_000);

  test("SIGKILL of xbench kills the bench process and its descendants; --resume reclaims the worktree and folders in one line", async () => {
    const { repo, dir, tmp } = setup({
      ".gitignore": "node_modules/\n",
      "hang.bench.ts": [
        'import { bench } from "mitata";',
        'import { spawn } from "node:child_process";',
        'import { existsSync, writeFileSync } from "node:fs";',
        "const dir = process.env.FAULT_DIR;",
        // The first bench process hangs with a grandchild in its own session; later ones measure.
        "if (!existsSync(dir + '/hung')) {",
        "  writeFileSync(dir + '/hung', '');",
        '  const g = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });',
        "  g.unref();",
        "  writeFileSync(dir + '/pids', `${process.pid} ${g.pid}`);",
        "  setInterval(() => {}, 1000);",
        "  await new Promise(() => {});",
        "}",
        SPIN,
        "",
      ].join("\n"),
    });
    mkdirSync(join(repo.dir, "node_modules")); // bundles go to node_modules/.cache/xbench
    killAtEnd(join(dir, "pids"));
    const run = start(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20"], repo.dir, { FAULT_DIR: dir, TMPDIR: tmp });
    expect(await waitFor(() => pids(join(dir, "pids")).length === 2)).toBe(true);
    const [bench, grandchild] = pids(join(dir, "pids")) as [number, number];
    expect(alive(bench) && alive(grandchild)).toBe(true);
    const runDir = /run folder (\S+)/.exec(run.stderr())![1]!;
    const temps = runTemps(tmp);
    expect(temps).toHaveLength(1);
    expect(repo.worktrees()).toHaveLength(2);

    process.kill(run.child.pid!, "SIGKILL"); // xbench alone: no handler runs
    await run.exited;
    expect(await waitFor(() => !alive(bench) && !alive(grandchild), 30_000)).toBe(true);
    expect(existsSync(join(repo.dir, "node_modules", ".cache", "xbench"))).toBe(true); // left by the killed run

    const resumed = xbench(["compare", "--resume", runDir], {
      cwd: repo.dir,
      env: { ...ENV, FAULT_DIR: dir, TMPDIR: tmp },
      timeout: 240_000,
    });
    expect(resumed.code).toBe(0);
    const reclaimed = resumed.stderr.split("\n").filter((l) => l.includes("reclaimed"));
    expect(reclaimed).toHaveLength(1);
    expect(reclaimed[0]).toContain(`reclaimed 1 worktree and 1 temp folder left by dead xbench run (pid ${run.child.pid})`);
    expect(repo.worktrees()).toHaveLength(1);
    expect(runTemps(tmp)).toEqual([]);
    expect(readdirSync(join(repo.dir, "node_modules"))).toEqual([]);
  }, 300_000);

  test("Ctrl-C during --build (sent to the whole group) stops it at once: exit 130, resume hint, nothing left", async () => {
    const { repo, dir, tmp } = setup({ "b.bench.ts": `import { bench } from "mitata";\n${SPIN}\n` });
    const build = `echo $$ > '${dir}/build.pid'; exec sleep 600`;
    killAtEnd(join(dir, "build.pid"));
    const run = start(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--build", build], repo.dir, { TMPDIR: tmp });
    expect(await waitFor(() => pids(join(dir, "build.pid")).length === 1)).toBe(true);
    const [builder] = pids(join(dir, "build.pid")) as [number];
    process.kill(-run.child.pid!, "SIGINT");
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toMatch(/SIGINT: stopped\. .*continue with: xbench compare --resume \S+/);
    expect(run.stderr()).not.toContain("failed");
    expect(alive(builder)).toBe(false);
    expect(repo.worktrees()).toHaveLength(1);
    expect(runTemps(tmp)).toEqual([]);
  }, 300_000);

  test("a bench process that hangs is named while it runs, before its timeout ends it", () => {
    const { repo } = setup({
      "h.bench.ts": [
        'import { bench } from "mitata";',
        "setInterval(() => {}, 1000);",
        'bench("hang", () => new Promise(() => {}));',
        "",
      ].join("\n"),
    });
    const r = xbench(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--timeout", "8"], {
      cwd: repo.dir,
      env: ENV,
      timeout: 240_000,
    });
    expect(r.code).toBe(3);
    const said = r.stderr.split("\n").filter((line) => line.includes("has run"));
    expect(said.length).toBeGreaterThanOrEqual(1);
    expect(said[0]).toContain(
      "h.bench.ts: a bench process has run 3 s and not ended; it is stopped at 8 s (--timeout), and a benchmark that never returns may be stuck",
    );
    expect(r.stderr.indexOf("has run 3 s")).toBeLessThan(r.stderr.indexOf("timed out"));
  }, 300_000);

  test("no empty node_modules/.cache/xbench (or .cache) is left; a .cache of the project's own stays", () => {
    const { repo } = setup({ ".gitignore": "node_modules/\n", "c.bench.ts": `import { bench } from "mitata";\n${SPIN}\n` });
    mkdirSync(join(repo.dir, "node_modules"));
    let r = xbench(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20"], { cwd: repo.dir, env: ENV, timeout: 240_000 });
    expect(r.code).toBe(0);
    expect(readdirSync(join(repo.dir, "node_modules"))).toEqual([]);

    mkdirSync(join(repo.dir, "node_modules", ".cache", "other"), { recursive: true });
    r = xbench(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20"], { cwd: repo.dir, env: ENV, timeout: 240_000 });
    expect(r.code).toBe(0);
    expect(readdirSync(join(repo.dir, "node_modules", ".cache"))).toEqual(["other"]);
  }, 300_000);
});
