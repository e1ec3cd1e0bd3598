#!/usr/bin/env bun
/**
 * What measuring only what changed saves: a suite of 24 bench files of 3 rows each, head
 * changing code that 2 of them reach. `dist/xbench compare` (unchanged files listed, not
 * measured) against `compare --all` (everything measured), alternately, on the same repository
 * in one run. Prints each run's wall time, rows measured, and the ratio.
 *
 *   bun bench/unchanged.ts [PAIRS] [--time MS]
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "pathe";
import type { CompareResult } from "../src/model/result.ts";
import { tempRepo, workBench, workModule } from "./temp-repo.ts";

const args = process.argv.slice(2);
const pairs = Number(args.find((a) => /^\d+$/.test(a)) ?? 1);
const timeMs = args.includes("--time") ? args[args.indexOf("--time") + 1]! : "50";
const bin = join(import.meta.dir, "..", "dist", "xbench");
const FILES = 24;

const repo = tempRepo("xbench-unchanged-");

try {
  for (let i = 0; i < FILES; i++) {
    repo.write(`src/m${i}.js`, workModule(i));
    repo.write(`bench/m${i}.bench.js`, workBench(i));
  }
  repo.commit("suite");
  repo.write("src/m3.js", "export function work3(n) { let s = 0; for (let k = 0; k < 2 * n; k++) s = (s + k * 6) % 65521; return s; }\n");
  repo.write("src/m17.js", "export function work17(n) { let s = 1; for (let k = 0; k < n; k++) s = (s * 31 + k) % 65521; return s; }\n");

  const out = join(repo.dir, "..", `${repo.dir.split("/").pop()}.json`);
  const run = (extra: string[]) => {
    const started = performance.now();
    const r = spawnSync(bin, ["compare", "--base", "HEAD", "--rounds", "6", "--time", timeMs, "--json", out, ...extra], {
      cwd: repo.dir,
      encoding: "utf8",
    });
    const wallS = (performance.now() - started) / 1000;
    if (r.status !== 0) throw new Error(`compare ${extra.join(" ")} exited ${r.status}: ${r.stderr}`);
    const result = JSON.parse(readFileSync(out, "utf8")) as CompareResult;
    return { wallS, measured: result.rows.filter((row) => row.status === "ok").length, rows: result.rows.length };
  };

  console.log(`${FILES} bench files x 3 rows, head changes code 2 of them reach; --rounds 6 --time ${timeMs}`);
  for (let p = 0; p < pairs; p++) {
    const order = p % 2 === 0 ? [[], ["--all"]] : [["--all"], []];
    const results = order.map((extra) => ({ extra, ...run(extra) }));
    const byDefault = results.find((r) => r.extra.length === 0)!;
    const all = results.find((r) => r.extra.length > 0)!;
    console.log(
      `pair ${p + 1}: default ${byDefault.wallS.toFixed(1)} s (${byDefault.measured} of ${byDefault.rows} rows measured) · --all ${all.wallS.toFixed(1)} s (${all.measured} measured) · ratio ${(byDefault.wallS / all.wallS).toFixed(3)}`,
    );
  }
  rmSync(out, { force: true });
} finally {
  repo.cleanup();
}
