#!/usr/bin/env bun
/**
 * Calibrates `xbench bench tracer` (docs/suites.md):
 *   A/A    the same helper build as head and base, RUNS separate runs: every row's median
 *          change should stay within the noise floor;
 *   slowed head's helpers built with -DXBENCH_SLOW_NS=NS (a fixed delay per recorded access,
 *          native/common/log.h), base built without: the access rows must move far past the floor.
 *
 *   bun bench/tracer-noise.ts [--runs 3] [--slow-ns 2000] [--iterations N] [--out DIR] [--skip-aa] [--skip-slow]
 *
 * Needs dist/xbench (`bun build.ts`). Prints one line per run and row, and writes each run's
 * JSON into --out (default: a temporary folder, printed).
 *
 * The hook is a busy wait at the top of xb_frame_write in native/common/log.h, the frame writer every
 * recorded access goes through (shim and supervisor alike).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "pathe";
import mri from "mri";
import type { TracerResult } from "../src/suites/tracer/model.ts";

const ROOT = resolve(import.meta.dir, "..");
const BIN = join(ROOT, "dist", "xbench");
const FLOOR = 0.025;

const argv = mri(process.argv.slice(2), {
  string: ["runs", "slow-ns", "iterations", "out"],
  boolean: ["skip-aa", "skip-slow"],
  default: { runs: "3", "slow-ns": "2000" },
});
const runs = Number(argv.runs);
const out = resolve(argv.out ?? mkdtempSync(join(tmpdir(), "xbench-tracer-noise-")));
mkdirSync(out, { recursive: true });

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited with ${r.status}`);
  return r.stdout;
}

function buildHelpers(tree: string, dir: string, cflags: string): string {
  const r = spawnSync(process.execPath, ["build.ts", "--native-only", "--helpers-out", dir], {
    cwd: tree,
    env: { ...process.env, XBENCH_CFLAGS: cflags },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (r.status !== 0) throw new Error(`build.ts in ${tree} exited with ${r.status}`);
  return dir;
}

function pct(x: number): string {
  return `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
}

function bench(label: string, index: number, baseHelper: string, env: NodeJS.ProcessEnv): TracerResult {
  const json = join(out, `${label.replace(/[^a-z0-9]+/gi, "-")}-${index}.json`);
  const args = ["bench", "tracer", "--base-helper", baseHelper, "--json", json];
  if (argv.iterations) args.push("--iterations", argv.iterations);
  const started = Date.now();
  run(BIN, args, env);
  const result = JSON.parse(readFileSync(json, "utf8")) as TracerResult;
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const load = `${result.loadavg.start[0].toFixed(1)}→${result.loadavg.end[0].toFixed(1)}`;
  for (const row of result.rows) {
    const c = row.change!;
    const flag = Math.abs(c.median) <= FLOOR ? "within" : "OUTSIDE";
    console.log(
      `${label} run ${index}  ${row.backend.padEnd(7)} ${row.row.padEnd(6)}  change ${pct(c.median).padStart(7)} [${pct(c.q1)} .. ${pct(c.q3)}]  ${flag} ±${FLOOR * 100}%  (${seconds} s, load ${load})`,
    );
  }
  return result;
}

const helpers = run(BIN, ["helpers"]).trim();
if (!argv["skip-aa"]) {
  for (let i = 1; i <= runs; i++) bench("A/A", i, helpers, process.env);
}
if (!argv["skip-slow"]) {
  const base = buildHelpers(ROOT, join(out, "helpers-base"), "");
  const slow = buildHelpers(ROOT, join(out, "helpers-slow"), `-DXBENCH_SLOW_NS=${argv["slow-ns"]}`);
  const same = (name: string) => readFileSync(join(base, name)).equals(readFileSync(join(slow, name)));
  if (same("xbench-supervisor") && same("libxbench-preload.so")) {
    throw new Error("-DXBENCH_SLOW_NS changed nothing: native/common/log.h lost its XBENCH_SLOW_NS hook");
  }
  for (let i = 1; i <= runs; i++) bench(`slow ${argv["slow-ns"]} ns`, i, base, { ...process.env, XBENCH_HELPER_DIR: slow });
}
console.log(`results in ${out}`);
