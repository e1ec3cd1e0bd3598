#!/usr/bin/env bun
/**
 * Start-up of `dist/xbench --version` against `node -e 0`, launched alternately in one run
 * so both see the same machine. Prints the medians and their ratio.
 *
 *   bun bench/startup.ts [LAUNCHES]
 */
import { spawnSync } from "node:child_process";
import { join } from "pathe";
import { median, spread } from "../src/stats/quantile.ts";

const launches = Number(process.argv[2] ?? 40);
const bin = join(import.meta.dir, "..", "dist", "xbench");
const arms: Record<string, string[]> = { xbench: [bin, "--version"], node: ["node", "-e", "0"] };

function launchMs(argv: string[]): number {
  const start = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}`);
  return performance.now() - start;
}

const times: Record<string, number[]> = { xbench: [], node: [] };
for (const argv of Object.values(arms)) launchMs(argv); // warm the page cache
for (let i = 0; i < launches; i++) {
  const order = i % 2 === 0 ? ["xbench", "node"] : ["node", "xbench"];
  for (const arm of order) times[arm]!.push(launchMs(arms[arm]!));
}
const ratios = times.xbench!.map((t, i) => t / times.node![i]!);
const r = spread(ratios);
console.log(`launches: ${launches} each, alternating`);
console.log(`xbench --version  median ${median(times.xbench!).toFixed(1)} ms`);
console.log(`node -e 0         median ${median(times.node!).toFixed(1)} ms`);
console.log(`ratio xbench/node median ${r.median.toFixed(2)} [${r.q1.toFixed(2)} .. ${r.q3.toFixed(2)}]`);
