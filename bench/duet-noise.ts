#!/usr/bin/env bun
/**
 * Where the noise of a ms-scale benchmark's per-round ratio comes from: per-call noise within a
 * process (which more calls per process average out) or a per-process part (which only more
 * processes average out). In fresh processes, two copies of the truth lab's `parse` workload
 * (bench/truth-lab/fixture.ts, ~50 ms a call) alternate A B B A one call at a time, as a duet
 * of one-call batches does, after a warm-up; per process and k, d_k = ln(median of B's first k
 * calls / median of A's first k). Both copies are the same code, so every d_k is noise.
 *
 *   bun bench/duet-noise.ts [--processes 8] [--calls 48] [--warmup 8] [--runtime node|bun|deno] [--kind parse] [--gc]
 *
 * --gc collects garbage (a full collection) before every call, outside its timing, to see
 * whether a call that starts from a clean heap varies less (it did not: docs/sampling.md).
 *
 * Prints per k and per-side statistic (median; lower quartile; minimum; mean; and the mean of
 * the fastest 90%, which xbench uses for slow benchmarks, sampler.ts's slowValue): the
 * standard deviation of d_k over processes, and what it would be if only per-call noise counted
 * (σ at the largest k × √(largest k / k)).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import mri from "mri";
import { slowValue } from "../src/runner/child/sampler.ts";
import { WORKLOADS_JS } from "./truth-lab/fixture.ts";

const args = mri(process.argv.slice(2), { string: ["processes", "calls", "warmup", "runtime", "kind"], boolean: ["gc"] });
const processes = Number(args.processes ?? 8);
const calls = Number(args.calls ?? 48);
const warmup = Number(args.warmup ?? 8);
const runtime = String(args.runtime ?? "node");
const kind = String(args.kind ?? "parse");
const gc = Boolean(args.gc);

const DRIVER = `const a = (await import("./a.mjs")).workloads.${kind};
const b = (await import("./b.mjs")).workloads.${kind};
const now = globalThis.Bun?.nanoseconds ?? (() => 1e6 * performance.now());
const collect = ${gc ? `globalThis.Bun ? () => Bun.gc(true) : (await import("node:v8").then((v8) => v8.setFlagsFromString("--expose-gc")), (await import("node:vm")).runInNewContext("gc"))` : "() => {}"};
const time = (fn) => { collect(); const t0 = now(); fn(0); return now() - t0; };
const ta = [], tb = [];
for (let i = 0; i < 4 * ${warmup}; i++) (i % 4 === 0 || i % 4 === 3 ? a : b)(0);
for (let i = 0; ta.length < ${calls} || tb.length < ${calls}; i++) {
  if (i % 4 === 0 || i % 4 === 3) ta.push(time(a)); else tb.push(time(b));
}
console.log(JSON.stringify({ a: ta, b: tb }));
`;

/** Quantile q of xs (type 7). */
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((x, y) => x - y);
  const h = (s.length - 1) * q;
  return s[Math.floor(h)]! + (h - Math.floor(h)) * (s[Math.ceil(h)]! - s[Math.floor(h)]!);
};
const median = (xs: number[]) => quantile(xs, 0.5);
/** Per-side statistics a round's value could be. */
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const ESTIMATORS: Record<string, (xs: number[]) => number> = {
  median,
  q25: (xs) => quantile(xs, 0.25),
  min: (xs) => Math.min(...xs),
  mean,
  trim10: slowValue,
};
const sd = (xs: number[]) => {
  const m = xs.reduce((s, x) => s + x, 0) / xs.length;
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
};

const dir = mkdtempSync(join(tmpdir(), "xbench-duet-noise-"));
try {
  writeFileSync(join(dir, "a.mjs"), WORKLOADS_JS);
  writeFileSync(join(dir, "b.mjs"), WORKLOADS_JS);
  writeFileSync(join(dir, "driver.mjs"), DRIVER);
  const argv = runtime === "deno" ? ["deno", "run", "-A", "driver.mjs"] : [runtime === "bun" ? process.execPath : "node", "driver.mjs"];
  const ks = [2, 4, 8, 16, 32, 64, 128].filter((k) => k <= calls);
  const d: Record<string, number[][]> = Object.fromEntries(Object.keys(ESTIMATORS).map((e) => [e, ks.map(() => [])]));
  const perCall: number[] = [];
  for (let p = 0; p < processes; p++) {
    const r = spawnSync(argv[0]!, argv.slice(1), { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`process ${p + 1} failed: ${r.stderr}`);
    const { a, b } = JSON.parse(r.stdout.trim().split("\n").pop()!) as { a: number[]; b: number[] };
    for (const [name, estimate] of Object.entries(ESTIMATORS)) {
      ks.forEach((k, i) => {
        d[name]![i]!.push(Math.log(estimate(b.slice(0, k)) / estimate(a.slice(0, k))));
      });
    }
    perCall.push(median(a) / 1e6);
    // Per-call noise within the process: the spread of ln(call / the side's median).
    const within = sd([...a.map((x) => Math.log(x / median(a))), ...b.map((x) => Math.log(x / median(b)))]);
    console.log(
      `process ${p + 1}: median call ${(median(a) / 1e6).toFixed(1)} ms, per-call sd of ln ${within.toFixed(3)}, d_${calls} ${d.median!.at(-1)!.at(-1)!.toFixed(4)}`,
    );
  }
  console.log(
    `${runtime}, ${kind}${gc ? ", gc before each call" : ""}: median call ${median(perCall).toFixed(1)} ms over ${processes} processes; sd of d over processes:`,
  );
  for (const [name, byK] of Object.entries(d)) {
    const last = sd(byK.at(-1)!);
    ks.forEach((k, i) => {
      const alone = (last * Math.sqrt(ks.at(-1)! / k)).toFixed(4);
      console.log(
        `  ${name.padEnd(6)} k ${String(k).padStart(3)} calls a side: ${sd(byK[i]!).toFixed(4)}; per-call noise alone would give ${alone}`,
      );
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
