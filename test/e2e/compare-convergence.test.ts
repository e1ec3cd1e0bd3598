/**
 * Where a compare's budget goes (docs/compare.md, "Where the budget goes"): rows that reached
 * the target are not measured again, several bench processes run at once, the minimum rounds
 * are fitted to --max-time before the first round, and a row that measures an empty loop says
 * so. Assertions read what the run did (its run folder, its JSON), never how fast it was.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import type { RoundRecord } from "../../src/compare/run/store.ts";
import type { CompareResult } from "../../src/model/result.ts";
import { COMPARE_ENV, compareIn, repoPerTest, rowOf } from "../support/compare.ts";
import { xbench } from "../support/xbench.ts";

const repoWith = repoPerTest();

/**
 * `steady`: a fixed arithmetic loop, whose two sides agree within a percent or two in every
 * process. `erratic`: each side of each process scales its work by its own random factor
 * (0.6 to 1.4), so its rounds differ by tens of percent and its interval stays wide.
 */
const TWO_ROWS = `import { bench } from "mitata";
const factor = 0.6 + 0.8 * Math.random();
let sink = 0;
bench("steady", () => {
  let x = 0;
  for (let i = 0; i < 2000; i++) x = (x * 31 + i) | 0;
  sink = x;
});
bench("erratic", () => {
  let x = 0;
  const n = Math.round(2000 * factor);
  for (let i = 0; i < n; i++) x = (x * 31 + i) | 0;
  sink += x;
});
export { sink };
`;

function roundsOf(runDir: string): RoundRecord[] {
  return readFileSync(join(runDir, "rounds.ndjson"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RoundRecord);
}

const runFolder = (stderr: string) => /run folder (\S+)/.exec(stderr)![1]!;

describe("a row that reached the target is not measured again", () => {
  test("after the minimum rounds, later processes measure only the row still wide; --jobs 2 runs two at once", () => {
    const repo = repoWith({ "t.bench.ts": TWO_ROWS });
    const r = compareIn(repo, ["--base", "HEAD", "--target", "5", "--max-time", "25", "--jobs", "2"]);
    expect(r.code).toBe(0);
    const result = r.result!;
    expect(result.rounds.jobs).toBe(2);
    expect(result.level).toBe(0.97);
    const steady = rowOf(result, "steady");
    const erratic = rowOf(result, "erratic");
    expect(erratic.stats!.n).toBeGreaterThan(steady.stats!.n);
    // Every process after the steady row stopped was asked for the wide row only, and measured nothing else.
    const later = roundsOf(runFolder(r.stderr)).filter((rec) => rec.round >= steady.stats!.n);
    expect(later.length).toBeGreaterThan(0);
    for (const record of later) expect([...new Set(record.rows!.map((row) => row.label))]).toEqual(["erratic"]);
    // Two processes were in flight at once at least once: their spans overlap in the record.
    const spans = roundsOf(runFolder(r.stderr))
      .filter((rec) => rec.phaseMs !== undefined)
      .map((rec) => [rec.phaseMs! - rec.wallMs, rec.phaseMs!] as const)
      .sort((a, b) => a[0] - b[0]);
    expect(spans.some((span, i) => i > 0 && span[0] < spans[i - 1]![1] - 1)).toBe(true);
    // One note for the rows that missed the target, however many; per row with --verbose only.
    const notes = r.stdout.split("\n").filter((line) => line.includes("wider than the ±5.0% target"));
    expect(notes).toHaveLength(1);
  }, 300_000);

  test("--rounds N alone: every row is measured in exactly N rounds, however narrow", () => {
    const repo = repoWith({ "t.bench.ts": TWO_ROWS });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "8"]);
    expect(r.code).toBe(0);
    expect(r.result!.rows.map((row) => row.stats!.n)).toEqual([8, 8]);
    expect(r.result!.level).toBe(0.95);
    for (const record of roundsOf(runFolder(r.stderr)))
      expect(record.rows!.map((row) => row.label).sort()).toEqual(["erratic", "erratic", "steady", "steady"]);
  }, 300_000);
});

describe("the minimum rounds and --max-time", () => {
  test("rows sample for less so that the first 6 rounds fit, and a budget they cannot fit is said before round 1", () => {
    const rows = Array.from({ length: 12 }, (_, i) => `bench("row ${i}", () => JSON.stringify({ i: ${i}, list: [1, 2, 3] }));`);
    const repo = repoWith({ "many.bench.ts": `import { bench } from "mitata";\n${rows.join("\n")}\n` });
    const r = xbench(["compare", "--base", "HEAD", "--max-time", "3", "--json", "-"], {
      cwd: repo.dir,
      env: COMPARE_ENV,
      timeout: 300_000,
    });
    expect(r.code).toBe(0);
    const lines = r.stderr.split("\n");
    const first = lines.findIndex((line) => line.includes("round 1"));
    const shortened = lines.findIndex((line) =>
      /sampling each row 25 ms per side and process \(not 200 ms\), so that the first 6 rounds leave most of --max-time to the rows still wide after them/.test(
        line,
      ),
    );
    const over = lines.findIndex((line) => /the first 6 rounds need about \d+ s, more than --max-time 3 s/.test(line));
    expect(shortened).toBeGreaterThanOrEqual(0);
    expect(over).toBeGreaterThan(shortened);
    if (first >= 0) expect(over).toBeLessThan(first);
    const result = JSON.parse(r.stdout) as CompareResult;
    expect(result.rounds.completed).toBe(6); // the minimum runs anyway: an interval needs it
    const plan = JSON.parse(readFileSync(join(runFolder(r.stderr), "plan.json"), "utf8"));
    expect(plan.budget.sideNs).toBe(25e6);
    expect(plan.budgetFitted).toBe(true);
  }, 300_000);
});

describe("a machine that gets slower during the minimum rounds", () => {
  test("the rounds still owed are refitted, and an overrun is said when it becomes clear, not after it", () => {
    // Each bench process loads 0.4 s longer than the one before it (a counter file outside the
    // repository), as if other work took over the machine after round 1 was planned.
    const counter = join(mkdtempSync(join(tmpdir(), "xbench-slower-")), "processes");
    const bench = `import { bench } from "mitata";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
const path = process.env.SLOWER_COUNTER;
const seen = existsSync(path) ? readFileSync(path, "utf8").length : 0;
appendFileSync(path, ".");
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400 * seen);
bench("row", () => JSON.stringify({ list: [1, 2, 3] }));
`;
    const repo = repoWith({ "slower.bench.ts": bench });
    const r = xbench(["compare", "--base", "HEAD", "--max-time", "12", "--jobs", "1", "--json", "-"], {
      cwd: repo.dir,
      env: { ...COMPARE_ENV, SLOWER_COUNTER: counter },
      timeout: 300_000,
    });
    expect(r.code).toBe(0);
    const lines = r.stderr.split("\n");
    const first = lines.findIndex((line) => line.includes("round 1 ·"));
    const over = lines.findIndex((line) => /the first 6 rounds need about \d+ s, more than --max-time 12 s/.test(line));
    // Planned before round 1 the minimum fitted; the warning comes once the later processes show it will not.
    expect(first).toBeGreaterThanOrEqual(0);
    expect(over).toBeGreaterThan(first);
    expect((JSON.parse(r.stdout) as CompareResult).rounds.completed).toBe(6);
  }, 300_000);
});

describe("progress in a log", () => {
  test("without a terminal, a 60 s compare writes at most 20 progress lines, not one per round", () => {
    const repo = repoWith({
      "t.bench.ts":
        'import { bench } from "mitata";\nbench("join", () => ["a", "b", "c"].join("-"));\nbench("parse", () => JSON.parse("[1,2,3]"));\n',
    });
    // A target no row reaches: the run measures until --max-time.
    const r = compareIn(repo, ["--base", "HEAD", "--target", "0.01", "--max-time", "60"]);
    expect(r.code).toBe(0);
    expect(r.result!.rounds.stoppedBy).toBe("time");
    // Far more rounds than lines: a line per round would have been over the limit.
    expect(r.result!.rounds.completed).toBeGreaterThan(20);
    const lines = r.stderr.split("\n").filter((l) => /^round \d+/.test(l));
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length).toBeLessThanOrEqual(20);
  }, 300_000);
});

describe("a round far off the others", () => {
  test("the report names the round and why it is suspect: head's batches ran slower in that one process", () => {
    // Head's copy of the code counts the processes that load it (a file outside the repository);
    // in the fourth (the inventory is the first, so round 3) its work grows 20-fold: far beyond
    // what a whole process slowed by load (1.5x to 2x, for both sides) could make of the ratio.
    const counter = join(mkdtempSync(join(tmpdir(), "xbench-far-round-")), "loads");
    const lib = (head: boolean) =>
      [
        'import { appendFileSync, existsSync, readFileSync } from "node:fs";',
        ...(head
          ? [
              "const path = process.env.FAR_ROUND_COUNTER;",
              'const loads = (existsSync(path) ? readFileSync(path, "utf8").length : 0) + 1;',
              'if (process.env.XBENCH_SIDE === "head") appendFileSync(path, ".");',
              "const n = loads === 4 ? 40000 : 2000;",
            ]
          : ["const n = 2000;"]),
        "export function work() {",
        "  let s = 0;",
        "  for (let i = 0; i < n; i++) s += i % 7;",
        "  return s;",
        "}",
        "",
      ].join("\n");
    const repo = repoWith({
      "lib.js": lib(false),
      "t.bench.js": 'import { bench } from "mitata";\nimport { work } from "./lib.js";\nbench("work", () => work());\n',
    });
    repo.write({ "lib.js": lib(true) });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "10", "--jobs", "1"], { env: { ...COMPARE_ENV, FAR_ROUND_COUNTER: counter } });
    expect(r.code).toBe(0);
    expect(rowOf(r.result, "work").head[2]! / rowOf(r.result, "work").base[2]!).toBeGreaterThan(10);
    expect(r.stdout).toMatch(
      /^note: 1 row has a round far off its others, which widens its interval: t\.bench\.js › work, round 3 reads \+\d+\.\d% where its other rounds read [-+]\d+\.\d% to [-+]\d+\.\d%: head's batches there ran \d+% slower than in its other rounds and base's did not, a pause inside that process \(preempted, or a collection during them\)$/m,
    );
  }, 300_000);
});

describe("a row that measures nothing", () => {
  test("a body the JIT removes reads 'no work measured', with no interval and no verdict; one note line says it for all such rows", () => {
    const repo = repoWith({
      "t.bench.ts": `import { bench } from "mitata";
bench("folded away", () => {
  const a = 1 + 2;
});
bench("folded too", () => {
  const b = "x".length;
});
bench("real work", () => JSON.stringify({ a: [1, 2, 3], b: "text" }));
`,
    });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(0);
    const empty = rowOf(r.result, "folded away");
    expect(empty.status).toBe("no-work");
    expect(empty.stats).toBeUndefined();
    expect(rowOf(r.result, "real work").status).toBe("ok");
    const line = r.stdout.split("\n").find((l) => l.includes("folded away") && !l.startsWith("note"))!;
    expect(line).toMatch(/ns\s+no work measured$/);
    expect(rowOf(r.result, "folded too").status).toBe("no-work");
    const notes = r.stdout.split("\n").filter((l) => l.startsWith("note:") && l.includes("no work measured"));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^note: 2 rows read no work measured: under 1\.5 ns per iteration on both sides, below what time can resolve here/,
    );
    expect(r.stdout).toMatch(/2 no work measured \(3 rows\)/);
    const verbose = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--verbose"]);
    expect(verbose.stdout.split("\n").filter((l) => /^note: t\.bench\.ts › folded (away|too): no work measured: /.test(l))).toHaveLength(2);
  }, 300_000);
});

describe("a benchmark that times out", () => {
  test("is not run again: one process waits out --timeout, the file's other rows go on", () => {
    const repo = repoWith({
      "t.bench.ts": `import { bench } from "mitata";
bench("fine", () => JSON.stringify({ a: [1, 2, 3] }));
setInterval(() => {}, 1000);
bench("hangs", async () => {
  await new Promise(() => {});
});
`,
    });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--timeout", "3", "--jobs", "1"]);
    expect(r.code).toBe(3);
    const records = roundsOf(runFolder(r.stderr));
    expect(records.filter((rec) => rec.error?.startsWith("timed out")).length).toBe(1);
    expect(rowOf(r.result, "hangs").status).toBe("failed");
    expect(rowOf(r.result, "hangs").error!.message).toBe("timed out after 3 s");
    // Later processes were asked for the row that still works, and measured it.
    const later = records.filter((rec) => rec.round >= 2);
    expect(later.length).toBe(4);
    for (const rec of later) expect([...new Set(rec.rows!.map((row) => row.label))]).toEqual(["fine"]);
  }, 300_000);
});

describe("a benchmark whose promise never settles", () => {
  test("node ends its process at once: the row fails saying so, the other rows go on", () => {
    const repo = repoWith({
      "t.bench.ts": `import { bench } from "mitata";
bench("fine", () => JSON.stringify({ a: [1, 2, 3] }));
bench("never settles", async () => {
  await new Promise(() => {});
});
`,
    });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(3);
    expect(rowOf(r.result, "never settles").error!.message).toBe(
      "its promise never settled: the process ran out of work while the benchmark (or its setup) awaited it",
    );
    expect(r.stderr).toMatch(/t\.bench\.ts on [a-z ]+ \("never settles"\): its promise never settled/);
    // Not charged to the row measured before it in the same process.
    expect(rowOf(r.result, "fine").status).toBe("ok");
  }, 300_000);
});
