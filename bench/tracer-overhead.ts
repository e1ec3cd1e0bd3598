#!/usr/bin/env bun
/**
 * Tracer overhead, measured in one run (not a timed test):
 *   per-open: open+close of an absolute path inside a loop, untraced vs preload vs seccomp vs
 *             strace -f; reported as ns per open and the difference to untraced;
 *   launch:   fork+exec+wait of /bin/true, untraced vs under xbench-supervisor per backend.
 * Rounds are interleaved and the median taken, so drift hits every variant alike.
 *
 *   bun bench/tracer-overhead.ts [--rounds 7] [--opens 200000] [--launches 200]
 * Uses dist/helpers/linux-x64 (run `bun build.ts --native-only` first) or $XBENCH_HELPER_DIR.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "pathe";
import mri from "mri";

const ROOT = resolve(import.meta.dir, "..");
const HELPERS = process.env.XBENCH_HELPER_DIR ?? join(ROOT, "dist", "helpers", "linux-x64");
const SUPERVISOR = join(HELPERS, "xbench-supervisor");
const argv = mri(process.argv.slice(2), { default: { rounds: 7, opens: 200_000, "strace-opens": 5_000, launches: 200 } });

const work = mkdtempSync(join(tmpdir(), "xbench-tracer-bench-"));
function cc(src: string, out: string): string {
  const r = spawnSync("gcc", ["-O2", "-o", join(work, out), join(ROOT, "bench", "tracer-overhead", src)], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return join(work, out);
}
const openLoop = cc("open-loop.c", "open-loop");
const spawnLoop = cc("spawn-loop.c", "spawn-loop");
const target = join(work, "target.txt");
writeFileSync(target, "x");
const log = join(work, "trace.log");

function run(cmd: string[]): number {
  const r = spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) throw new Error(`${cmd.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return Number(r.stdout.trim().split("\n").pop());
}

const traced = (backend: string) => [SUPERVISOR, "--backend", backend, "--log", log, "--"];
const haveStrace = spawnSync("sh", ["-c", "command -v strace"]).status === 0;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const opens: Record<string, number[]> = { untraced: [], preload: [], seccomp: [], ...(haveStrace ? { strace: [] } : {}) };
const launches: Record<string, number[]> = { untraced: [], preload: [], seccomp: [], auto: [] };
const n = String(argv.opens);
for (let round = 0; round < argv.rounds; round++) {
  opens.untraced!.push(run([openLoop, target, n]));
  opens.preload!.push(run([...traced("preload"), openLoop, target, n]));
  opens.seccomp!.push(run([...traced("seccomp"), openLoop, target, String(Math.min(argv.opens, 50_000))]));
  if (haveStrace) opens.strace!.push(run(["strace", "-f", "-qq", "-o", "/dev/null", openLoop, target, String(argv["strace-opens"])]));
  const l = String(argv.launches);
  launches.untraced!.push(run([spawnLoop, l, "/bin/true"]));
  for (const b of ["preload", "seccomp", "auto"]) launches[b]!.push(run([spawnLoop, l, ...traced(b), "/bin/true"]));
}
rmSync(work, { recursive: true, force: true });

const base = median(opens.untraced!);
console.log(`per open+close of an absolute path (median of ${argv.rounds} rounds)`);
for (const [name, xs] of Object.entries(opens)) {
  const m = median(xs);
  const d = m - base;
  const shown = Math.abs(d) >= 1000 ? `${(d / 1000).toFixed(2)} µs` : `${d.toFixed(0)} ns`;
  console.log(`  ${name.padEnd(9)} ${m.toFixed(0).padStart(8)} ns   ${name === "untraced" ? "" : `+${shown}  (x${(m / base).toFixed(2)})`}`);
}
const lbase = median(launches.untraced!);
console.log(`launch of /bin/true: fork+exec+wait (median of ${argv.rounds} rounds x ${argv.launches})`);
for (const [name, xs] of Object.entries(launches)) {
  const m = median(xs);
  console.log(`  ${name.padEnd(9)} ${m.toFixed(0).padStart(8)} µs   ${name === "untraced" ? "" : `+${((m - lbase) / 1000).toFixed(2)} ms`}`);
}
