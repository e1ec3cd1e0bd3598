#!/usr/bin/env bun
/**
 * What a command row costs and reports, per launcher, in one interleaved run (not a test):
 *   direct:  `true` spawned from this process (the baseline),
 *   helper:  the native `xbench-exec-stats --out F -- true` (what command rows use on Linux x86-64),
 *   xbench:  `dist/xbench exec-stats --out F -- true` (the fallback elsewhere).
 * Per launcher: the wall time of the whole launch as a ratio to direct, and the wall time and
 * peak RSS the launcher reports for `true`.
 *
 *   bun bench/exec-stats.ts [LAUNCHES]     (run `npm run build` first)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { median, spread } from "../src/stats/quantile.ts";

const launches = Number(process.argv[2] ?? 40);
const dist = join(import.meta.dir, "..", "dist");
const work = mkdtempSync(join(tmpdir(), "xbench-exec-stats-bench-"));
const out = join(work, "stats.json");
type Arm = "direct" | "helper" | "xbench";
const arms: Record<Arm, string[]> = {
  direct: ["true"],
  helper: [join(dist, "helpers", "linux-x64", "xbench-exec-stats"), "--out", out, "--", "true"],
  xbench: [join(dist, "xbench"), "exec-stats", "--out", out, "--", "true"],
};

function launch(arm: Arm): { wallMs: number; reported?: { wallNs: number; maxRssBytes: number } } {
  rmSync(out, { force: true });
  const argv = arms[arm];
  const start = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: "ignore" });
  const wallMs = performance.now() - start;
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}`);
  return arm === "direct" ? { wallMs } : { wallMs, reported: JSON.parse(readFileSync(out, "utf8")) };
}

const names = Object.keys(arms) as Arm[];
const wall: Record<Arm, number[]> = { direct: [], helper: [], xbench: [] };
const reportedNs: Record<Arm, number[]> = { direct: [], helper: [], xbench: [] };
const reportedRss: Record<Arm, number[]> = { direct: [], helper: [], xbench: [] };
try {
  for (const arm of names) launch(arm); // warm the page cache and the helper cache
  for (let i = 0; i < launches; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const arm of order) {
      const { wallMs, reported } = launch(arm);
      wall[arm].push(wallMs);
      if (reported) {
        reportedNs[arm].push(reported.wallNs);
        reportedRss[arm].push(reported.maxRssBytes);
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const ms = (x: number) => `${x.toFixed(2)} ms`;
console.log(`command-row launchers, ${launches} interleaved launches of \`true\` each; medians`);
for (const arm of names) {
  const ratio = spread(wall[arm].map((t, i) => t / wall.direct[i]!));
  const line = [`${arm.padEnd(7)} whole launch ${ms(median(wall[arm]))}`];
  if (arm !== "direct") {
    line.push(`(${ratio.median.toFixed(2)}x direct [${ratio.q1.toFixed(2)} .. ${ratio.q3.toFixed(2)}])`);
    line.push(`reports wall ${ms(median(reportedNs[arm]) / 1e6)}, peak RSS ${(median(reportedRss[arm]) / 1048576).toFixed(1)} MiB`);
  }
  console.log(line.join("  "));
}
