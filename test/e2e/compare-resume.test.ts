/**
 * What `--resume` and the rounds keep apart (docs/reliability.md, "Nothing mixed"): a run is
 * resumed only on the tree its rounds measured, and a bench process killed from outside is run
 * again instead of failing its rows for the whole run.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV, compareIn, repoPerTest, rowOf } from "../support/compare.ts";
import { waitFor } from "../support/procs.ts";
import { workFiles } from "../support/repo.ts";
import { startXbench, tempDir, xbench } from "../support/xbench.ts";

let undo: Array<() => void> = [];
afterEach(() => {
  for (const step of undo.reverse()) step();
  undo = [];
});
const repoWith = repoPerTest();

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0);

describe("--resume measures the tree its rounds measured", () => {
  test("a tree edited after the interruption is refused in one line; put back, the run resumes and finishes", async () => {
    const repo = repoWith(workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]));
    const run = startXbench(["compare", "--base", "HEAD", "--rounds", "12", "--time", "150"], { cwd: repo.dir, env: COMPARE_ENV });
    undo.push(run.kill);
    expect(await waitFor(() => /run folder (\S+)/.test(run.stderr()))).toBe(true);
    const runDir = /run folder (\S+)/.exec(run.stderr())![1]!;
    const rounds = join(runDir, "rounds.ndjson");
    // The inventory and three rounds measured, then Ctrl-C.
    expect(await waitFor(() => lines(rounds) >= 4, 120_000)).toBe(true);
    process.kill(-run.pid, "SIGINT");
    expect(await run.exited).toBe(130);
    const measured = lines(rounds);

    // The measured function made 30 times slower.
    const original = readFileSync(join(repo.dir, "work.ts"), "utf8");
    repo.write(workFiles("w.bench.ts", [{ label: "spin", work: 60000 }]));
    const refused = xbench(["compare", "--resume", runDir], { cwd: repo.dir, env: COMPARE_ENV, timeout: 120_000 });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `xbench: cannot resume ${runDir}: the working tree changed since the run began (work.ts changed); its rounds measured the tree as it was. Put it back, or start a new compare\n`,
    );
    expect(lines(rounds)).toBe(measured);

    repo.write({ "work.ts": original });
    const resumed = xbench(["compare", "--resume", runDir, "--json", "-"], { cwd: repo.dir, env: COMPARE_ENV, timeout: 240_000 });
    expect(resumed.code).toBe(0);
    const result = JSON.parse(resumed.stdout);
    expect(result.rounds.completed).toBe(12);
    expect(rowOf(result, "spin").status).toBe("ok");
  }, 300_000);
});

describe("a bench process killed from outside", () => {
  test("is run again: the row measures every round, nothing fails, no reaper message", () => {
    const { dir, cleanup } = tempDir("xbench-resume-kill-");
    undo.push(cleanup);
    const repo = repoWith({
      ...workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]),
      "k.bench.ts": [
        'import { bench } from "mitata";',
        'import { appendFileSync, readFileSync } from "node:fs";',
        "const count = `${process.env.FAULT_DIR}/loads`;",
        "appendFileSync(count, 'x');",
        // The 7th load: a side of the fourth bench process (each loads both sides), killed as the OOM killer would.
        "if (readFileSync(count, 'utf8').length === 7) process.kill(process.pid, 'SIGKILL');",
        'bench("k", () => { let s = 0; for (let i = 0; i < 2000; i++) s += Math.sqrt(i); return s; });',
        "",
      ].join("\n"),
    });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "k.bench"], { env: { ...COMPARE_ENV, FAULT_DIR: dir } });
    expect(readFileSync(join(dir, "loads"), "utf8").length).toBeGreaterThan(7);
    expect(r.stderr).not.toContain("xbench-reaper");
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    const row = rowOf(r.result, "k");
    expect(row.status).toBe("ok");
    expect(row.base.filter((v) => v !== null)).toHaveLength(6);
  }, 300_000);
});
