#!/usr/bin/env bun
/**
 * The harness's own share of a compare's wall time: everything that is not the bench
 * processes' own run time (worktrees, bundling, spawning, bookkeeping, reporting), at
 * default settings, on a throwaway repository with one bench file of three benchmarks.
 *
 *   bun bench/compare-harness.ts
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "pathe";
import type { CompareResult } from "../src/model/result.ts";
import { createRepo, workFiles } from "../test/support/repo.ts";

const repo = createRepo();
try {
  repo.write(
    workFiles("harness.bench.ts", [
      { label: "small", work: 1_000 },
      { label: "medium", work: 20_000 },
      { label: "large", work: 200_000 },
    ]),
  );
  repo.commit("bench");
  const out = join(repo.dir, ".git", "harness-result.json");
  const start = performance.now();
  const r = spawnSync(join(import.meta.dir, "..", "dist", "xbench"), ["compare", "--base", "HEAD", "--json", out], {
    cwd: repo.dir,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const outerMs = performance.now() - start;
  if (r.status !== 0) throw new Error(`compare exited ${r.status}`);
  const result = JSON.parse(readFileSync(out, "utf8")) as CompareResult;
  const { wallMs, childMs } = result.timing!;
  // One duet process per round and bench file, plus one inventory process per file.
  console.log(`rounds ${result.rounds.completed}, bench processes ${result.rounds.completed + 1}`);
  console.log(`compare wall ${(outerMs / 1000).toFixed(1)} s (process start to exit)`);
  console.log(`bench processes ${(childMs / 1000).toFixed(1)} s`);
  console.log(
    `harness share ${((1 - childMs / outerMs) * 100).toFixed(1)}% of the whole run (${((1 - childMs / wallMs) * 100).toFixed(1)}% inside the engine)`,
  );
} finally {
  repo.cleanup();
}
