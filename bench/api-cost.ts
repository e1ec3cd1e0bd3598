#!/usr/bin/env bun
/**
 * What each benchmark API's stand-in costs per iteration against mitata's, measured by the
 * bench-process driver itself: one process loads a mitata file as "base" and the same two
 * benchmarks written with another API as "head", and times them alternately (A B B A…), as a
 * compare's duet does. A no-op (`() => {}`) shows the per-iteration overhead; a ~1 µs loop
 * shows whether it matters. A copy of the mitata file is the control: how far two copies of
 * identical code drift apart in this runtime. Rounds alternate which file loads first; the ratio per round is
 * head/base, summarized as the median with [Q1 .. Q3] over rounds.
 *
 *   bun bench/api-cost.ts [ROUNDS] [--runtime node|bun|deno]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { samplingBudget } from "../src/compare/plan.ts";
import type { Runtime } from "../src/model/result.ts";
import { bundle } from "../src/runner/bundle.ts";
import { CHILD_ENV, CHILD_PROTOCOL, type Job } from "../src/runner/protocol.ts";
import { runtimeLaunch } from "../src/runner/runtimes.ts";
import { runBenchProcess } from "../src/runner/spawn.ts";
import { spread } from "../src/stats/quantile.ts";

const args = process.argv.slice(2);
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 10);
const runtime = (args.includes("--runtime") ? args[args.indexOf("--runtime") + 1] : "node") as Runtime;

/** About 1 µs of arithmetic on this kind of machine; the same source in every file. */
const WORK = `export function work() { let s = 0; for (let i = 0; i < 200; i++) s = (s + i * i) % 1000003; return s; }\n`;

/**
 * The same two benchmarks, "noop" and "1 µs", in each API's own words. Each returns work()'s
 * value: deno's V8 drops a call to a pure function whose result is discarded, and the row
 * would then time nothing (a 1 µs benchmark written `() => { work(); }` read 70 ns there).
 */
const MITATA = `import { bench } from "mitata";\nimport { work } from "./work.js";\nbench("noop", () => {});\nbench("1 µs", () => work());\n`;
const FILES: Record<string, string> = {
  mitata: MITATA,
  // The control: the same mitata file, another copy. What it shows is what two copies of the
  // same code differ by in this runtime (JIT decisions per copy), not any API's cost.
  "mitata (copy)": MITATA,
  vitest: `import { bench } from "vitest";\nimport { work } from "./work.js";\nbench("noop", () => {});\nbench("1 µs", () => work());\n`,
  tinybench: `import { Bench } from "tinybench";\nimport { work } from "./work.js";\nconst b = new Bench();\nb.add("noop", () => {}).add("1 µs", () => work());\nawait b.run();\n`,
  "Benchmark.js": `const Benchmark = require("benchmark");\nconst { work } = require("./work.js");\nnew Benchmark.Suite().add("noop", function () {}).add("1 µs", function () { return work(); }).run();\n`,
  "Deno.bench": `import { work } from "./work.js";\nDeno.bench("noop", () => {});\nDeno.bench("1 µs", () => work());\n`,
};

const dir = mkdtempSync(join(tmpdir(), "xbench-api-cost-"));
try {
  const bundles: Record<string, string> = {};
  for (const [api, source] of Object.entries(FILES)) {
    const folder = join(dir, api.replace(/\W/g, ""));
    mkdirSync(folder);
    writeFileSync(join(folder, "work.js"), WORK);
    const file = join(folder, api === "Benchmark.js" ? "suite.cjs" : "suite.bench.mjs");
    writeFileSync(file, source);
    bundles[api] = await bundle({ kind: "side", benchFile: file, outDir: join(folder, "out"), runtime });
  }
  const driver = await bundle({ kind: "driver", outDir: join(dir, "driver"), runtime });
  const budget = samplingBudget();
  const resultFile = join(dir, "result.ndjson");

  /** head/base per label for one process: mitata as base, `api` as head, in the order given. */
  async function round(api: string, headFirst: boolean): Promise<Record<string, number>> {
    const sides = [
      { side: "base" as const, bundle: bundles.mitata! },
      { side: "head" as const, bundle: bundles[api]! },
    ];
    const job: Job = { protocol: CHILD_PROTOCOL, kind: "duet", sides: headFirst ? sides.reverse() : sides, parts: "timed", budget };
    rmSync(resultFile, { force: true });
    const launch = runtimeLaunch(runtime, dir, driver);
    const outcome = await runBenchProcess({
      argv: launch.argv,
      cwd: dir,
      env: { ...(process.env as Record<string, string>), ...launch.env, [CHILD_ENV.job]: JSON.stringify(job) },
      resultFile,
      timeoutMs: 120_000,
    });
    if (outcome.error) throw new Error(`${api}: ${outcome.error}`);
    const value = (side: string, label: string) => outcome.report.rows.find((r) => r.side === side && r.label === label)?.value;
    for (const label of ["noop", "1 µs"]) (mitataNs[label] ??= []).push(value("base", label)!);
    return Object.fromEntries(["noop", "1 µs"].map((label) => [label, value("head", label)! / value("base", label)!]));
  }

  const ratios: Record<string, Record<string, number[]>> = {};
  const mitataNs: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++) {
    for (const api of Object.keys(FILES).filter((a) => a !== "mitata")) {
      const result = await round(api, r % 2 === 1);
      for (const [label, ratio] of Object.entries(result)) ((ratios[api] ??= {})[label] ??= []).push(ratio);
    }
  }
  console.log(`runtime ${runtime} · ${rounds} processes per API (mitata as base in each) · ratio head/base per iteration`);
  const ns = (label: string) => spread(mitataNs[label]!).median.toFixed(2);
  console.log(`mitata itself: noop ${ns("noop")} ns, 1 µs ${ns("1 µs")} ns per iteration (median over every process)`);
  console.log(`${"API".padEnd(14)}${"noop".padEnd(28)}1 µs`);
  for (const [api, byLabel] of Object.entries(ratios)) {
    const cell = (label: string) => {
      const s = spread(byLabel[label]!);
      return `${s.median.toFixed(3)} [${s.q1.toFixed(3)} .. ${s.q3.toFixed(3)}]`;
    };
    console.log(`${api.padEnd(14)}${cell("noop").padEnd(28)}${cell("1 µs")}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
