/**
 * Rough edges of a first hour with compare: a run folder used by two processes, a full
 * disk, the footer after bench processes timed out, long silent steps named, a hanging PR
 * comment interrupted, and the A/A note with an uncommitted wrapper.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "pathe";
import { pidSpace } from "../../src/util/proc.ts";
import { COMPARE_ENV, compareIn, repoPerTest } from "../support/compare.ts";
import { pullRequestEnv } from "../support/github.ts";
import { waitFor } from "../support/procs.ts";
import { workFiles } from "../support/repo.ts";
import { requireBinary, tempDir } from "../support/xbench.ts";

const repoWith = repoPerTest();
let undo: Array<() => void> = [];
afterEach(() => {
  for (const step of undo.reverse()) step();
  undo = [];
});

const SPIN =
  'import { bench } from "mitata";\nbench("spin", () => { let s = 0; for (let i = 0; i < 2000; i++) s += Math.sqrt(i); return s; });\n';

/** A folder for the test's own files, removed after the test. */
function scratch(): string {
  const { dir, cleanup } = tempDir("xbench-rough-");
  undo.push(cleanup);
  return dir;
}

/** Starts dist/xbench (or `argv` around it) and collects its output; killed at the end of the test. */
function start(args: string[], cwd: string, env: Record<string, string | undefined> = COMPARE_ENV, prefix: string[] = []) {
  const argv = [...prefix, requireBinary(), ...args];
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((done) => child.on("close", (code, signal) => done(code ?? (signal ? -1 : null))));
  undo.push(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // gone
    }
  });
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

function records(runDir: string): Array<{ round: number; file: string; job: string }> {
  const file = join(runDir, "rounds.ndjson");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** A pid that names no process now. */
function deadPid(): number {
  return spawnSync("true").pid!;
}

describe("a run folder is used by one xbench at a time", () => {
  test("a --resume of a running run, and two --resume at once, are refused in one line; a dead owner's lock is taken over", async () => {
    const repo = repoWith({ "s.bench.ts": SPIN });
    const fresh = start(["compare", "--time", "150", "--base", "HEAD", "--rounds", "6"], repo.dir);
    let runDir: string | undefined;
    expect(
      await waitFor(() => {
        runDir ??= /run folder (\S+)/.exec(fresh.stderr())?.[1];
        return runDir !== undefined && records(runDir).length >= 1;
      }),
    ).toBe(true);
    const meanwhile = start(["compare", "--resume", runDir!], repo.dir);
    expect(await meanwhile.exited).toBe(2);
    expect(meanwhile.stderr()).toBe(`xbench: run folder ${runDir} in use by pid ${fresh.child.pid}\n`);
    fresh.child.kill("SIGINT");
    expect(await fresh.exited).toBe(130);
    expect(existsSync(join(runDir!, "lock"))).toBe(false); // released on the way out

    // As SIGKILL leaves it: a lock whose process is gone.
    writeFileSync(join(runDir!, "lock"), `${JSON.stringify({ pid: deadPid(), start: "1", space: pidSpace(hostname()) })}\n`);
    const [a, b] = [start(["compare", "--resume", runDir!], repo.dir), start(["compare", "--resume", runDir!], repo.dir)];
    const codes = await Promise.all([a.exited, b.exited]);
    expect([...codes].sort()).toEqual([0, 2]);
    const [winner, loser] = codes[0] === 0 ? [a, b] : [b, a];
    expect(loser.stderr()).toBe(`xbench: run folder ${runDir} in use by pid ${winner.child.pid}\n`);
    const keys = records(runDir!).map((r) => `${r.round} ${r.file} ${r.job}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(6);
    expect(existsSync(join(runDir!, "lock"))).toBe(false);
  }, 300_000);
});

/** Whether this process may mount a tmpfs in a mount namespace of its own (root, or a user namespace). */
function canMountTmpfs(): boolean {
  const r = spawnSync("unshare", ["--mount", "sh", "-c", "mount -t tmpfs -o size=64k none /mnt"], { encoding: "utf8" });
  return r.status === 0;
}

describe("a full disk", () => {
  test.skipIf(!canMountTmpfs())(
    "writing the run folder: one line naming the file, with the --resume hint",
    async () => {
      const dir = scratch();
      const repo = repoWith({
        "full.bench.ts": [
          'import { bench } from "mitata";',
          'import { appendFileSync, existsSync, readFileSync } from "node:fs";',
          'import { dirname } from "node:path";',
          // The third process (the inventory, round 1, then round 2) fills the run folder's disk.
          "const count = process.env.FAULT_DIR + '/loads';",
          "appendFileSync(count, 'x');",
          "if (readLoads() === 3) fill(dirname(process.env.XBENCH_RESULT_FILE) + '/filler');",
          "function readLoads() { return existsSync(count) ? readFileSync(count, 'utf8').length : 0; }",
          "function fill(file) {",
          "  try { for (;;) appendFileSync(file, Buffer.alloc(65536)); } catch {}",
          "  try { for (;;) appendFileSync(file, 'x'); } catch {}",
          "}",
          'bench("spin", () => { let s = 0; for (let i = 0; i < 2000; i++) s += Math.sqrt(i); return s; });',
          "",
        ].join("\n"),
      });
      const runs = join(repo.dir, ".git", "xbench", "runs");
      mkdirSync(runs, { recursive: true });
      // A tmpfs of its own over the run folders, seen only by this xbench and its children.
      const mount = ["unshare", "--mount", "sh", "-c", `mount -t tmpfs -o size=1m none '${runs}' && exec "$@"`, "sh"];
      const run = start(
        // One process at a time: with two, the other one's report file may be the write that fails first.
        ["compare", "--base", "HEAD", "--rounds", "40", "--time", "10", "--jobs", "1"],
        repo.dir,
        { ...COMPARE_ENV, FAULT_DIR: dir },
        mount,
      );
      expect(await run.exited).toBe(1);
      const runDir = /run folder (\S+)/.exec(run.stderr())![1]!;
      const errors = run
        .stderr()
        .split("\n")
        .filter((l) => l.startsWith("xbench: "));
      // The first write to find the disk full is the filling process's own result, or the round's record.
      const [file] = errors.map((line) => /^xbench: cannot write (\S+): /.exec(line)?.[1]);
      expect(file).toMatch(new RegExp(`^${runDir}/(rounds|result-process-\\d+)\\.ndjson$`));
      expect(errors).toEqual([
        `xbench: cannot write ${file}: no space left on device (ENOSPC). Measured rounds are saved; free some space, then continue with: xbench compare --resume ${runDir}`,
      ]);
      expect(repo.worktrees()).toHaveLength(1);
    },
    300_000,
  );
});

describe("the footer after bench processes timed out", () => {
  test("their time counts as bench time; the start load is taken at the start", () => {
    const repo = repoWith({
      "hang.bench.ts":
        'import { bench } from "mitata";\nsetInterval(() => {}, 1000);\nawait new Promise(() => {});\nbench("never", () => 1);\n',
    });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--timeout", "2"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/hang\.bench\.ts on both sides: timed out after 2 s/);
    // Three processes timed out after 2 s each (both sides together, then each alone).
    const took = /took ([\d.]+) s(?:, [\d.]+ s of it measuring)? \(([\d.]+) s in bench processes\)/.exec(r.stderr)!;
    expect(Number(took[1])).toBeGreaterThanOrEqual(6);
    expect(Number(took[2])).toBeGreaterThanOrEqual(6);
    expect(Number(took[2])).toBeLessThanOrEqual(Number(took[1]));
    const runDir = /run folder (\S+)/.exec(r.stderr)![1]!;
    const plan = JSON.parse(readFileSync(join(runDir, "plan.json"), "utf8"));
    expect(plan.loadavgStart).toHaveLength(3); // no round ran, and the start was still taken
    expect(r.result!.loadavg.start).toEqual(plan.loadavgStart);
  }, 300_000);
});

describe("long steps are named with their elapsed time", () => {
  test("--install: the install is named before round 1", () => {
    const dir = scratch();
    // An npm that takes 6 s, as a real install of a project does (or longer).
    writeFileSync(join(dir, "npm"), "#!/bin/sh\nsleep 6\n");
    chmodSync(join(dir, "npm"), 0o755);
    const repo = repoWith({ "package.json": '{ "name": "p", "private": true }\n', "i.bench.ts": SPIN });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--install"], {
      env: { ...COMPARE_ENV, PATH: `${dir}:${COMPARE_ENV.PATH}` },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^installing base's dependencies \(npm install --no-audit --no-fund\) · 0:0[56] elapsed$/m);
  }, 300_000);

  test("a PR comment that hangs and is interrupted says so on stderr", async () => {
    const calls: string[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        calls.push(new URL(req.url).pathname);
        return new Promise<Response>(() => {}); // never answers
      },
    });
    undo.push(() => server.stop(true));
    const dir = scratch();
    const repo = repoWith(workFiles("c.bench.ts", [{ label: "c", work: 200 }]));
    const env = pullRequestEnv({
      api: `http://127.0.0.1:${server.port}`,
      repository: "acme/widgets",
      number: 5,
      token: "t0ken",
      dir,
      summary: join(dir, "summary.md"),
    });
    const run = start(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--comment"], repo.dir, env);
    expect(await waitFor(() => calls.length > 0)).toBe(true);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    const runDir = /run folder (\S+)/.exec(run.stderr())![1]!;
    expect(run.stderr()).toContain(
      `SIGINT: stopped while posting the PR comment; the report is written (xbench compare --resume ${runDir} posts it again)`,
    );
  }, 300_000);
});

describe("the A/A note", () => {
  test("applies with an uncommitted wrapper and unrelated untracked files: both sides run the same code", () => {
    const repo = repoWith(workFiles("bench/a.ts", [{ label: "a", work: 3000 }]));
    repo.write({
      "wrap.ts": 'import { bench } from "mitata";\nimport { spin } from "./bench/work.ts";\nbench("wrapped", () => spin("a"));\n',
      "notes.txt": "not code\n",
    });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--bench", "wrap.ts"]);
    expect(r.code).toBe(0);
    expect(r.result!.head.dirty).toBe(true);
    expect(r.stdout).toContain("A/A run: ");
  }, 300_000);
});
