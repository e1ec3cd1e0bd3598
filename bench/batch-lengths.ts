#!/usr/bin/env bun
/**
 * How long the measured batches of a fast benchmark are, per process: the sampler
 * (src/runner/child/sampler.ts, or another copy of it given with --sampler, say an older
 * commit's) bundled for the runtime, then run in fresh processes on two copies of a ~0.7 µs
 * string operation, as a duet runs base and head. Each copy gets its own closure, so the JIT
 * warms each on its own, and the second copy's first batch is cold, as in a real duet.
 *
 *   bun bench/batch-lengths.ts [--sampler FILE] [--runtime node|bun|deno] [--processes 10] [--kind parse]
 *
 * Prints per process and side: iterations per measured batch, the batch's length
 * (iterations × median time per iteration), the time per iteration, and the measured batches
 * against every batch the side ran (calibration, warm-up and rewarm batches included); then the
 * median and the shortest batch over all processes. `--kind K` samples the truth lab's workload
 * K instead (bench/truth-lab/fixture.ts; `parse` is the ms-scale one).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "pathe";
import mri from "mri";
import { median } from "../src/stats/quantile.ts";
import { WORKLOADS_JS } from "./truth-lab/fixture.ts";

const args = mri(process.argv.slice(2), { string: ["sampler", "runtime", "processes", "kind"] });
const sampler = resolve(String(args.sampler ?? join(import.meta.dir, "..", "src", "runner", "child", "sampler.ts")));
const runtime = String(args.runtime ?? "node");
const processes = Number(args.processes ?? 10);

/** One process: two copies of the workload, sampled as a duet at the default budget. */
const kind = args.kind ? String(args.kind) : undefined;
const DRIVER = `import { sample, prepare } from "./sampler.js";
const lab = ${JSON.stringify(kind ?? null)};
const copies = lab ? [(await import("./a.mjs")).workloads[lab], (await import("./b.mjs")).workloads[lab]] : [];
const copy = () => lab ? ((fn) => () => fn(0))(copies.shift()) : new Function("s", "return function text() { return (s + ' Over The Lazy Dog').toLowerCase().split(' ').reverse().join('-').length; }")("The Quick Brown Fox Jumps");
const budget = JSON.parse(process.argv[2] ?? "null") ?? { batchNs: 1e6, sideNs: 200e6, warmupNs: 50e6, minBatches: 8 };
const subjects = [await prepare(copy(), {}, undefined), await prepare(copy(), {}, undefined)];
const calls = subjects.map(() => []);
const watched = subjects.map((s, i) => ({ ...s, batch: async (n) => { const t = await s.batch(n); calls[i].push(n); return t; } }));
const results = await sample(watched, budget);
console.log(JSON.stringify(results.map((r, i) => ({ n: calls[i][calls[i].length - 1], value: r.value, batches: r.batches, calls: calls[i].length }))));
`;

const dir = mkdtempSync(join(tmpdir(), "xbench-batch-lengths-"));
try {
  const built = await Bun.build({ entrypoints: [sampler], outdir: dir, target: runtime === "bun" ? "bun" : "node", naming: "sampler.js" });
  if (!built.success) throw new Error(built.logs.map(String).join("\n"));
  writeFileSync(join(dir, "driver.mjs"), DRIVER);
  writeFileSync(join(dir, "a.mjs"), WORKLOADS_JS);
  writeFileSync(join(dir, "b.mjs"), WORKLOADS_JS);
  const argv = runtime === "deno" ? ["deno", "run", "-A", "driver.mjs"] : [runtime === "bun" ? process.execPath : "node", "driver.mjs"];
  const lengths: number[] = [];
  for (let p = 0; p < processes; p++) {
    const r = spawnSync(argv[0]!, argv.slice(1), { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`process ${p + 1} failed: ${r.stderr}`);
    const sides = JSON.parse(r.stdout.trim().split("\n").pop()!) as Array<{ n: number; value: number; batches: number; calls: number }>;
    const cells = sides.map((s, i) => {
      lengths.push(s.n * s.value);
      return `${"AB"[i]} n ${String(s.n).padStart(6)} batch ${((s.n * s.value) / 1e3).toFixed(1).padStart(7)} µs ${s.value.toFixed(1).padStart(6)} ns/iter ${String(s.batches).padStart(4)} of ${String(s.calls).padStart(4)} batches measured`;
    });
    console.log(`process ${String(p + 1).padStart(2)}: ${cells.join(" | ")}`);
  }
  console.log(
    `${runtime}, ${sampler}: batch length median ${(median(lengths) / 1e3).toFixed(1)} µs, shortest ${(Math.min(...lengths) / 1e3).toFixed(1)} µs, longest ${(Math.max(...lengths) / 1e3).toFixed(1)} µs`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
