/**
 * Bench files that share a process (docs/compare.md, "Files share a process"): a round's
 * duet files run one after another in one bench process, a file that ends its process costs only
 * its own rows, and the files the process did not reach run in processes of their own, so every
 * row still gets exactly the rounds asked. Read from what the bench files saw (which process
 * loaded them) and from the result, never from timings.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { COMPARE_ENV, compareIn, repoPerTest, rowOf } from "../support/compare.ts";

const repoWith = repoPerTest();
let logs: string[] = [];
afterEach(() => {
  for (const dir of logs) rmSync(dir, { recursive: true, force: true });
  logs = [];
});

/** A bench file that notes which process loaded it (one line per side loaded), then one row of work. */
function benchFile(name: string, body = "x = (x * 31 + i) | 0;"): string {
  return `import { appendFileSync } from "node:fs";
import { bench } from "mitata";
if (process.env.LOAD_LOG) appendFileSync(process.env.LOAD_LOG, \`\${process.pid} ${name}\\n\`);
let sink = 0;
bench("${name}", () => {
  let x = 0;
  for (let i = 0; i < 500; i++) { ${body} }
  sink = x;
});
export { sink };
`;
}

/** The files each process loaded, by pid. */
function filesByProcess(log: string): Map<string, Set<string>> {
  const byPid = new Map<string, Set<string>>();
  for (const line of readFileSync(log, "utf8").split("\n").filter(Boolean)) {
    const [pid, file] = line.split(" ");
    if (!byPid.has(pid!)) byPid.set(pid!, new Set());
    byPid.get(pid!)!.add(file!);
  }
  return byPid;
}

function logFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "xbench-shared-"));
  logs.push(dir);
  return join(dir, "loads.log");
}

const FILES = { "a.bench.ts": benchFile("a"), "b.bench.ts": benchFile("b"), "c.bench.ts": benchFile("c") };

describe("bench files share a process", () => {
  test("by default a round's files load in one process; --files-per-process 1 gives each its own", () => {
    const repo = repoWith(FILES);
    const shared = logFile();
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"], { timeMs: 10, env: { ...COMPARE_ENV, LOAD_LOG: shared } });
    expect(r.code).toBe(0);
    for (const label of ["a", "b", "c"]) expect(rowOf(r.result, label).stats!.n).toBe(6);
    // Six rounds, one process each holding all three files (the inventory lists each file alone).
    const together = [...filesByProcess(shared).values()].filter((files) => files.size === 3);
    expect(together.length).toBe(6);

    const alone = logFile();
    const one = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--files-per-process", "1"], {
      timeMs: 10,
      env: { ...COMPARE_ENV, LOAD_LOG: alone },
    });
    expect(one.code).toBe(0);
    const processes = [...filesByProcess(alone).values()];
    expect(processes.every((files) => files.size === 1)).toBe(true);
    expect(processes.length).toBe(3 + 6 * 3);
  }, 300_000);

  test("a file that ends its process fails its own row; the files after it still get every round", () => {
    // b's benchmark ends the process it runs in: in a shared process, the files after it had not
    // run yet. Five files in an order drawn per round: b is last in both rounds of the first
    // cycle (after which it is not run again) one run in 25, and then nothing is left to rerun.
    const repo = repoWith({
      ...FILES,
      "b.bench.ts": benchFile("b", "if (i === 400) process.exit(7); x = (x * 31 + i) | 0;"),
      "d.bench.ts": benchFile("d"),
      "e.bench.ts": benchFile("e"),
    });
    const log = logFile();
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"], { timeMs: 10, env: { ...COMPARE_ENV, LOAD_LOG: log } });
    expect(r.code).toBe(3);
    const b = rowOf(r.result, "b");
    expect(b.status).toBe("failed");
    expect(b.error!.message).toContain("called process.exit(7)");
    for (const label of ["a", "c", "d", "e"]) expect(rowOf(r.result, label).stats!.n).toBe(6);
  }, 300_000);
});
