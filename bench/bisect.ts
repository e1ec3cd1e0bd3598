#!/usr/bin/env bun
/**
 * What bisect saves: `xbench bisect` on a 16-commit history where commit 11 makes one
 * benchmark twice as slow, against 16 sequential compares of the first commit with every
 * commit (what finding it by hand, or by a loop, costs), at the same settings (6 rounds,
 * 20 ms a side). The compares check out and bundle both sides each time; bisect probes
 * about log2(16) commits and bundles each once.
 *
 *   bun build.ts && bun bench/bisect.ts
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "pathe";
import type { BisectResult } from "../src/compare/bisect/bisect.ts";
import { createRepo, slowdownHistory } from "../test/support/repo.ts";

const BIN = join(import.meta.dir, "..", "dist", "xbench");
const SETTINGS = ["--rounds", "6", "--time", "20"];
const env = { ...process.env, PATH: `${join(import.meta.dir, "..", "node_modules", ".bin")}:${process.env.PATH}` };

function timed(args: string[], cwd: string): number {
  const start = performance.now();
  const r = spawnSync(BIN, args, { cwd, env, stdio: ["ignore", "ignore", "ignore"] });
  if (r.status !== 0 && r.status !== 1) throw new Error(`xbench ${args.join(" ")} exited ${r.status}`);
  return performance.now() - start;
}

const repo = createRepo();
try {
  const shas = slowdownHistory(repo, (i) => i >= 11);
  const out = join(repo.dir, ".git", "bisect.json");
  const bisectMs = timed(["bisect", "--good", shas[0]!, "--above", "10", "--json", out, ...SETTINGS], repo.dir);
  const result = JSON.parse(readFileSync(out, "utf8")) as BisectResult;
  const found = result.conclusion.kind === "found" ? `commit ${result.conclusion.firstBad}` : result.conclusion.kind;
  let comparesMs = 0;
  for (const sha of shas) comparesMs += timed(["compare", "--base", shas[0]!, "--head", sha, "--fail-above", "10", ...SETTINGS], repo.dir);
  console.log(
    `bisect: ${(bisectMs / 1000).toFixed(1)} s, ${result.steps.length} compare steps, ${result.bundled.length} commits bundled, found ${found}`,
  );
  console.log(`16 sequential compares: ${(comparesMs / 1000).toFixed(1)} s (${(comparesMs / 16000).toFixed(1)} s each)`);
  console.log(`bisect takes ${((bisectMs / comparesMs) * 100).toFixed(0)}% of the sequential compares' time`);
} finally {
  repo.cleanup();
}
