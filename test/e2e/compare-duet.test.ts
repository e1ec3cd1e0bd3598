import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV, compareIn, repoPerTest, rowOf } from "../support/compare.ts";
import type { RoundRecord } from "../../src/compare/run/store.ts";
import type { TestRepo } from "../support/repo.ts";

const ENV = COMPARE_ENV;

const repoWith = repoPerTest();
const compare = (repo: TestRepo, args: string[], env?: Record<string, string | undefined>) => compareIn(repo, args, { timeMs: 30, env });
const row = rowOf;

/** A small router library as its authors would lay it out: ESM, "sideEffects": false, a radix-ish matcher. */
function routerLibrary(staticCost: number): Record<string, string> {
  return {
    "package.json": JSON.stringify(
      { name: "tiny-router", version: "1.2.0", type: "module", sideEffects: false, exports: "./src/index.ts" },
      null,
      2,
    ),
    "src/index.ts": 'export { createRouter, addRoute, findRoute } from "./router.ts";\n',
    "src/router.ts": [
      "export interface Router { static: Map<string, string>; dynamic: Array<[RegExp, string]> }",
      "export function createRouter(): Router { return { static: new Map(), dynamic: [] }; }",
      "export function addRoute(router: Router, path: string, data: string): void {",
      "  if (path.includes(':')) router.dynamic.push([new RegExp('^' + path.replace(/:\\w+/g, '([^/]+)') + '$'), data]);",
      "  else router.static.set(path, data);",
      "}",
      "function normalize(path: string): string {",
      "  let out = path;",
      `  for (let i = 0; i < ${staticCost}; i++) out = out.endsWith('/') && out.length > 1 ? out.slice(0, -1) : out;`,
      "  return out;",
      "}",
      "export function findRoute(router: Router, path: string): string | undefined {",
      "  const clean = normalize(path);",
      "  const hit = router.static.get(clean);",
      "  if (hit !== undefined) return hit;",
      "  for (const [re, data] of router.dynamic) if (re.test(clean)) return data;",
      "  return undefined;",
      "}",
      "",
    ].join("\n"),
    "bench/router.bench.ts": [
      'import { bench, group, summary, run } from "mitata";',
      'import { addRoute, createRouter, findRoute } from "../src/index.ts";',
      "",
      "const router = createRouter();",
      "for (let i = 0; i < 50; i++) addRoute(router, `/api/v1/items/${i}`, `item ${i}`);",
      'addRoute(router, "/api/v1/users/:id", "user");',
      "",
      'group("static", () => {',
      '  bench("lookup", () => findRoute(router, "/api/v1/items/42"));',
      '  bench("miss", () => findRoute(router, "/nope"));',
      "});",
      'group("dynamic", () => {',
      "  summary(() => {",
      '    bench("lookup", () => findRoute(router, "/api/v1/users/7"));',
      '    bench("miss", () => findRoute(router, "/api/v1/users"));',
      "  });",
      "});",
      "",
      "await run();",
      "",
    ].join("\n"),
  };
}

describe("both sides in one bench process (duet)", () => {
  test('a library with "sideEffects": false and the same names in two groups: every benchmark on both sides, named with its group', () => {
    const repo = repoWith(routerLibrary(200));
    const r = compare(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    const labels = r.result!.rows.map((x) => x.label).sort();
    expect(labels).toEqual(["dynamic › lookup", "dynamic › miss", "static › lookup", "static › miss"]);
    for (const x of r.result!.rows) {
      expect(x.status).toBe("ok");
      expect(x.mode).toBe("duet");
      expect(x.base.every((v) => typeof v === "number" && v > 0)).toBe(true);
      expect(x.head.every((v) => typeof v === "number" && v > 0)).toBe(true);
    }
    expect(row(r.result, "static › lookup").id).toMatch(/^router-[0-9a-f]{8}: static › lookup$/);
  });

  test("a 30% slowdown in the code under test is slower, in the rows that run it", () => {
    const repo = repoWith(routerLibrary(200));
    repo.write({ "src/router.ts": routerLibrary(2000)["src/router.ts"]! });
    const r = compare(repo, ["--base", "HEAD", "--rounds", "10"]);
    expect(r.code).toBe(0);
    // Every lookup normalizes the path, so every row slows; the change is far above the noise.
    for (const x of r.result!.rows) {
      expect(x.stats!.verdict).toBe("slower");
      expect(x.stats!.delta).toBeGreaterThan(0.2);
    }
  });

  test("mitata's API runs unchanged: plot wrappers, .args(), .range(), generators, iterators, async, .gc()", () => {
    const repo = repoWith({
      "api.bench.ts": [
        'import { bench, barplot, boxplot, group, lineplot, run, summary, do_not_optimize } from "mitata";',
        'barplot(() => { bench("bar", () => Math.sqrt(2)); });',
        'boxplot(() => { bench("box", () => Math.sqrt(3)); });',
        'lineplot(() => { bench("line $n", function* (state) { const n = state.get("n"); yield () => n * 2; }).range("n", 1, 64); });',
        'group("outer", () => { group("inner", () => { summary(() => { bench("deep", () => 1 + 1); }); }); });',
        'bench("sized $size", function* (state) { const xs = new Array(state.get("size")).fill(1); yield () => xs.reduce((a, b) => a + b, 0); }).args("size", [10, 100]);',
        'bench("with input", function* () { yield { [0]() { return [3, 1, 2]; }, bench(xs) { return xs.sort(); } }; });',
        'bench("iterator", (state) => { for (const _ of state) do_not_optimize(Math.sqrt(5)); });',
        'bench("async", async () => { await Promise.resolve(1); });',
        'bench("collected", () => new Array(100).fill(0)).gc("inner");',
        "await run();",
        "",
      ].join("\n"),
    });
    const r = compare(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    const labels = r.result!.rows.map((x) => x.label);
    expect(labels).toEqual([
      "bar",
      "box",
      "line 1",
      "line 8",
      "line 64",
      "outer › inner › deep",
      "sized 10",
      "sized 100",
      "with input",
      "iterator",
      "async",
      "collected",
    ]);
    // Bodies such as Math.sqrt(2) or 1 + 1 fold to nothing: those rows read `no work measured`.
    for (const x of r.result!.rows) {
      expect(["ok", "no-work"]).toContain(x.status);
      expect(x.base.every((v) => typeof v === "number" && v > 0)).toBe(true);
    }
    // Every batch of every kind of benchmark lasts at least 1 ms (--time 30 notwithstanding),
    // and the rounds file says how many iterations it held.
    const runs = join(repo.dir, ".git", "xbench", "runs");
    const records = readdirSync(runs).flatMap((id) =>
      readFileSync(join(runs, id, "rounds.ndjson"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as RoundRecord),
    );
    const timed = records.flatMap((record) => record.rows ?? []).filter((x) => x.value !== undefined);
    expect(timed.length).toBe(12 * 2 * 6);
    for (const x of timed) expect([x.label, x.batchNs! >= 1e6, x.iterations! >= 1]).toEqual([x.label, true, true]);
  });

  test("the same name twice in one group is two rows, numbered in file order on both sides", () => {
    const repo = repoWith({
      "dup.bench.ts":
        'import { bench, group } from "mitata";\ngroup("g", () => { bench("x", () => JSON.stringify([1])); bench("x", () => JSON.stringify([2])); });\nbench("y", () => JSON.stringify([3]));\n',
    });
    const r = compare(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.stdout).not.toContain("more than once");
    expect(r.result!.rows.map((x) => [x.label, x.status])).toEqual([
      ["g › x", "ok"],
      ["g › x #2", "ok"],
      ["y", "ok"],
    ]);
  });

  test("a package both sides import is one instance in a duet process; the project's own modules are one per side", () => {
    const repo = repoWith({
      ".gitignore": "node_modules/\n",
      "src/own.ts": "(globalThis as any).__ownLoads = ((globalThis as any).__ownLoads ?? 0) + 1;\nexport const own = 1;\n",
      "probe.bench.ts": [
        'import { appendFileSync } from "node:fs";',
        'import { bench } from "mitata";',
        'import { shared } from "stateful";',
        'import { own } from "./src/own.ts";',
        "const g = globalThis as any;",
        "appendFileSync(process.env.PROBE_FILE!, JSON.stringify({ side: process.env.XBENCH_SIDE, pkg: g.__pkgLoads, own: g.__ownLoads }) + '\\n');",
        'bench("touch", () => shared.count + own);',
        "",
      ].join("\n"),
    });
    repo.write({
      "node_modules/stateful/package.json": JSON.stringify({ name: "stateful", type: "module", main: "index.js" }),
      "node_modules/stateful/index.js": "globalThis.__pkgLoads = (globalThis.__pkgLoads ?? 0) + 1;\nexport const shared = { count: 0 };\n",
    });
    const probe = join(repo.dir, "..", `${repo.dir.split("/").pop()}-probe.ndjson`);
    try {
      const r = compare(repo, ["--base", "HEAD", "--rounds", "6"], { ...ENV, PROBE_FILE: probe });
      expect(r.code).toBe(0);
      const lines = readFileSync(probe, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { side: string; pkg: number; own: number });
      // Every process loads both sides: the second side finds the package already loaded,
      // but loads its own copy of the project's module.
      const seconds = lines.filter((l) => l.own === 2);
      expect(seconds.length).toBeGreaterThanOrEqual(6);
      for (const l of seconds) expect(l.pkg).toBe(1);
      expect(new Set(lines.map((l) => l.side))).toEqual(new Set(["base", "head"]));
    } finally {
      rmSync(probe, { force: true });
    }
  });

  test("isolate() in a file, or --isolate: one side per process, and the report says so", () => {
    const repo = repoWith({
      "iso.bench.ts":
        'import { bench } from "mitata";\nimport { isolate } from "xbench";\nisolate();\nbench("alone", () => Math.sqrt(2));\n',
      "duo.bench.ts": 'import { bench } from "mitata";\nbench("together", () => Math.sqrt(3));\n',
    });
    const r = compare(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(0);
    expect(row(r.result, "alone").mode).toBe("isolated");
    expect(row(r.result, "together").mode).toBe("duet");
    expect(r.stderr).toContain("iso.bench.ts: one side per process (the file calls isolate())");
    expect(r.stdout).toContain("1 timed row(s) measured one side per bench process");
    const all = compare(repo, ["--base", "HEAD", "--rounds", "6", "--isolate"]);
    expect(all.result!.rows.map((x) => x.mode)).toEqual(["isolated", "isolated"]);
  });

  test("a random heap layout is drawn per process (one side each) or per side (a duet of different code), never in an A/A duet", () => {
    const repo = repoWith({
      "src/lib.ts": "export const lib = (x: number) => Math.sqrt(x);\n",
      "pad.bench.ts": [
        'import { appendFileSync } from "node:fs";',
        'import { bench } from "mitata";',
        'import { lib } from "./src/lib.ts";',
        "const pads = (globalThis as any).__xbenchHeapPads;",
        "if (pads?.length) appendFileSync(process.env.PROBE_FILE!, `${process.env.XBENCH_SIDE} ${pads.length} ${pads.at(-1).length}\\n`);",
        'bench("padded", () => lib(5));',
        "",
      ].join("\n"),
    });
    const probe = join(repo.dir, "..", `${repo.dir.split("/").pop()}-pads.txt`);
    const linesOf = (side: string) =>
      readFileSync(probe, "utf8")
        .trim()
        .split("\n")
        .filter((l) => l.startsWith(`${side} `))
        .map((l) => l.split(" ").map(Number).slice(1) as [number, number]);
    try {
      const r = compare(repo, ["--base", "HEAD", "--rounds", "6", "--isolate"], { ...ENV, PROBE_FILE: probe });
      expect(r.code).toBe(0);
      for (const side of ["base", "head"]) {
        const pads = linesOf(side);
        expect(pads.length).toBe(6); // one per round: the inventory process draws nothing
        expect(pads.every(([drawn]) => drawn === 1)).toBe(true); // once, before anything loads
        expect(new Set(pads.map(([, size]) => size)).size).toBeGreaterThan(1);
      }
      rmSync(probe);
      // Both sides in one process, the same code: they share its layout, nothing is drawn.
      expect(compare(repo, ["--base", "HEAD", "--rounds", "6"], { ...ENV, PROBE_FILE: probe }).code).toBe(0);
      expect(existsSync(probe)).toBe(false);
      // Head changes the module: each side's load is preceded by a draw of its own.
      repo.write({ "src/lib.ts": "export const lib = (x: number) => Math.sqrt(x) + 0;\n" });
      expect(compare(repo, ["--base", "HEAD", "--rounds", "6"], { ...ENV, PROBE_FILE: probe }).code).toBe(0);
      for (const side of ["base", "head"]) {
        const pads = linesOf(side);
        expect(pads.length).toBe(6);
        expect(new Set(pads.map(([drawn]) => drawn))).toEqual(new Set([1, 2])); // drawn before each side, whichever loads first
        expect(new Set(pads.map(([, size]) => size)).size).toBeGreaterThan(1);
      }
    } finally {
      rmSync(probe, { force: true });
    }
  });

  test("a process that dies mid-file keeps the rows it measured; the rest fail, exit 3", () => {
    const repo = repoWith({
      "crash.bench.ts": [
        'import { bench } from "mitata";',
        'bench("first", () => Math.sqrt(2));',
        'bench("second", () => Math.sqrt(3));',
        'bench("dies", () => process.exit(7));',
        "",
      ].join("\n"),
    });
    const r = compare(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(3);
    for (const label of ["first", "second"]) {
      expect(row(r.result, label).status).toBe("ok");
      expect(row(r.result, label).base.every((v) => typeof v === "number")).toBe(true);
    }
    expect(row(r.result, "dies").status).toBe("failed");
    // The row being measured when the process exited says so; a row after it would fail with the process's exit.
    expect(row(r.result, "dies").error!.message).toBe(
      "the benchmark called process.exit(7) while it ran: a benchmark must return, not end the process",
    );
  });

  test("sampling until narrow: stops on the width target at a whole cycle, or on the time budget, and says which", () => {
    const repo = repoWith({
      "w.bench.ts":
        'import { bench } from "mitata";\nconst doc = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ i, s: String(i) })));\nbench("w", () => JSON.parse(doc).length);\n',
    });
    const easy = compare(repo, ["--base", "HEAD", "--target", "50"]);
    expect(easy.code).toBe(0);
    // Quiet, 6 rounds reach ±50%; under load (4 CPU hogs, load 16) it took 66: either way a whole
    // cycle, and the target is what stopped it.
    const { completed } = easy.result!.rounds;
    expect(easy.result!.rounds).toMatchObject({ stoppedBy: "target", targetHalfWidth: 0.5 });
    expect(completed).toBeGreaterThanOrEqual(6);
    expect(completed % 2).toBe(0);
    expect(easy.stdout).toContain(`sampled until every interval was within ±50.0%: ${completed} rounds`);
    expect(easy.result!.minEffect).toBe(0.005);
    const tight = compare(repo, ["--base", "HEAD", "--target", "0.0001", "--max-time", "2", "--min-effect", "0", "--verbose"]);
    expect(tight.code).toBe(0);
    // --min-effect 0: only identical values could read `same`.
    expect(tight.result!.minEffect).toBe(0);
    expect(tight.result!.rows[0]!.stats!.verdict).not.toBe("same");
    expect(tight.stdout).toMatch(/note: w\.bench\.ts › w: ±\d+\.\d+% after \d+ rounds, wider than the ±0\.0001% target; about \d+ rounds/);
    expect(tight.result!.rounds.stoppedBy).toBe("time");
    expect(tight.result!.rounds.completed % 2).toBe(0);
    expect(tight.stdout).toMatch(
      /1 of 1 intervals wider than the ±0\.0001% target when the 2 s budget \(--max-time\) ran out: widest ±\d+\.\d+%/,
    );
  });
});
