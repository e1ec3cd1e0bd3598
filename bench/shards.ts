#!/usr/bin/env bun
/**
 * What sharding buys: a 72-row suite (24 files of 3 mitata rows, every file changed so all are
 * measured) compared at one budget with 1, 2 and 4 shards. Shards run one after another here,
 * standing for separate runners (run side by side on one machine they would share its cores).
 * Prints, per shard count: the wall time of the slowest shard (what a CI run would wait),
 * rows measured per second of bench-process time, and the median and largest half-width.
 *
 *   bun bench/shards.ts [--max-time S]
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "pathe";
import type { CompareResult } from "../src/model/result.ts";
import { mergeShards } from "../src/compare/shard.ts";
import { halfWidth, intervalRows } from "../src/report/row-stats.ts";
import { median } from "../src/stats/quantile.ts";
import { tempRepo, workBench, workModule } from "./temp-repo.ts";

const args = process.argv.slice(2);
const maxTime = args.includes("--max-time") ? args[args.indexOf("--max-time") + 1]! : "120";
const bin = join(import.meta.dir, "..", "dist", "xbench");
const FILES = 24;

const repo = tempRepo("xbench-shards-");

try {
  for (let i = 0; i < FILES; i++) {
    repo.write(`src/m${i}.js`, workModule(i));
    repo.write(`bench/m${i}.bench.js`, workBench(i));
  }
  repo.commit("suite");
  // Every module changes (the same work, written differently), so no row is skipped as unchanged.
  for (let i = 0; i < FILES; i++) repo.write(`src/m${i}.js`, `${workModule(i)}// touched\n`);

  console.log(`72 rows (24 files), default sampling (target ±1%, --max-time ${maxTime}) per shard; shards one after another`);
  for (const count of [1, 2, 4]) {
    const results: Array<{ source: string; result: CompareResult; wallS: number; benchS: number }> = [];
    for (let index = 1; index <= count; index++) {
      const out = join(repo.dir, "..", `${repo.dir.split("/").pop()}-${count}-${index}.json`);
      const started = performance.now();
      const r = spawnSync(bin, ["compare", "--base", "HEAD", "--max-time", maxTime, "--shard", `${index}/${count}`, "--json", out], {
        cwd: repo.dir,
        encoding: "utf8",
      });
      if (r.status !== 0) throw new Error(`shard ${index}/${count} exited ${r.status}: ${r.stderr}`);
      const result = JSON.parse(readFileSync(out, "utf8")) as CompareResult;
      rmSync(out, { force: true });
      results.push({ source: out, result, wallS: (performance.now() - started) / 1000, benchS: (result.timing?.childMs ?? 0) / 1000 });
    }
    const merged = mergeShards(results.map(({ source, result }) => ({ source, result })));
    const widths = intervalRows(merged.rows).map(halfWidth);
    const benchS = results.reduce((sum, r) => sum + r.benchS, 0);
    console.log(
      `${count} shard(s): slowest shard ${Math.max(...results.map((r) => r.wallS)).toFixed(0)} s · ${(merged.rows.length / benchS).toFixed(2)} rows per bench-process second · half-width median ±${(median(widths) * 100).toFixed(2)}%, largest ±${(Math.max(...widths) * 100).toFixed(2)}% · rounds ${results.map((r) => r.result.rounds.completed).join("/")}`,
    );
  }
} finally {
  repo.cleanup();
}
