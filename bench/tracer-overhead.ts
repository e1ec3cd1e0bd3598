#!/usr/bin/env bun
/**
 * Tracer overhead, measured in one run (not a timed test):
 *   per-open: open+close of an absolute path inside a loop, untraced vs preload vs seccomp vs
 *             strace -f; reported as ns per open and the difference to untraced (wall and
 *             CPU time). The shim's own cost is also measured in-process: blocks of libc
 *             open() (interposed) alternate with blocks of raw syscall(SYS_openat) (not), and
 *             the fastest block of each is compared, traced minus untraced; this is the
 *             figure that resists a noisy, shared machine;
 *   launch:   fork+exec+wait of /bin/true, untraced vs under xbench-supervisor per backend;
 *             and the part of it that installs the seccomp filter, against a one-number filter
 *             (filter-install.c).
 *   floors:   what any tracer of each kind costs on this machine, measured in the same rounds:
 *             a bare seccomp notification round trip (notify-floor.c), one atomic add and
 *             memcpy per record into fresh shared memory (record-floor.c), and a static wrapper
 *             that only vforks and execs the command, bare and with an empty LD_PRELOAD object
 *             (exec-wrapper.c). Targets written for faster machines read against these.
 * Rounds are interleaved and the median taken, so drift hits every variant alike.
 *
 *   bun bench/tracer-overhead.ts [--rounds 7] [--opens 200000] [--launches 200]
 * Uses dist/helpers/linux-x64 (run `bun build.ts --native-only` first) or $XBENCH_HELPER_DIR.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "pathe";
import mri from "mri";
import { traceScratchRoot } from "../src/tracer/scratch.ts";

const ROOT = resolve(import.meta.dir, "..");
const HELPERS = process.env.XBENCH_HELPER_DIR ?? join(ROOT, "dist", "helpers", "linux-x64");
const SUPERVISOR = join(HELPERS, "xbench-supervisor");
const argv = mri(process.argv.slice(2), { default: { rounds: 7, opens: 200_000, "strace-opens": 5_000, launches: 200 } });

const work = mkdtempSync(join(tmpdir(), "xbench-tracer-bench-"));
function cc(src: string, out: string, compiler = "gcc", flags: string[] = []): string {
  const r = spawnSync(compiler, ["-O2", ...flags, "-o", join(work, out), join(ROOT, "bench", "tracer-overhead", src)], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return join(work, out);
}
const openLoop = cc("open-loop.c", "open-loop");
const spawnLoop = cc("spawn-loop.c", "spawn-loop");
const notifyFloor = cc("notify-floor.c", "notify-floor", "gcc", ["-I", join(ROOT, "native", "linux")]);
const recordFloor = cc("record-floor.c", "record-floor");
const execWrapper = cc("exec-wrapper.c", "exec-wrapper", "musl-gcc", ["-static"]);
const emptyObject = cc("empty-object.c", "empty-object.so", "gcc", ["-shared", "-fPIC"]);
const filterInstall = cc("filter-install.c", "filter-install");
const target = join(work, "target.txt");
writeFileSync(target, "x");
/** 1024 files to cycle through: every open is a first-time record for the shim. */
const CYCLE = 1024;
const cyclePrefix = join(work, "f");
for (let i = 0; i < CYCLE; i++) writeFileSync(`${cyclePrefix}${i}`, "x");
// The log goes where `xbench trace` puts it (shared memory when there is room).
const logDir = mkdtempSync(join(traceScratchRoot(), "xbench-tracer-bench-log-"));
const log = join(logDir, "trace.log");

function run(cmd: string[]): number[] {
  const r = spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) throw new Error(`${cmd.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return r.stdout.trim().split("\n").pop()!.split(" ").map(Number);
}

const traced = (backend: string) => [SUPERVISOR, "--backend", backend, "--log", log, "--"];
const haveStrace = spawnSync("sh", ["-c", "command -v strace"]).status === 0;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const min = (xs: number[]) => Math.min(...xs);

type Sample = { wall: number[]; cpu: number[] };
const sample = (): Sample => ({ wall: [], cpu: [] });
const opens: Record<string, Sample> = {
  untraced: sample(),
  preload: sample(),
  seccomp: sample(),
  ...(haveStrace ? { strace: sample() } : {}),
};
const launches: Record<string, number[]> = { untraced: [], preload: [], seccomp: [], auto: [] };
const floors = { seccomp: sample(), record: [] as number[], wrapper: [] as number[], wrapperPreload: [] as number[] };
const filter = { xbench: [] as number[], floor: [] as number[] };
const ab: Record<"untraced" | "preload" | "untracedCycle" | "preloadCycle", number[]> = {
  untraced: [],
  preload: [],
  untracedCycle: [],
  preloadCycle: [],
};
const n = String(argv.opens);
const add = (s: Sample, [wall, cpu]: number[]) => (s.wall.push(wall!), s.cpu.push(cpu!));
for (let round = 0; round < argv.rounds; round++) {
  const [ul, ur] = run([openLoop, target, n, "ab"]);
  ab.untraced.push(ul! - ur!);
  const [pl, pr] = run([...traced("preload"), openLoop, target, n, "ab"]);
  ab.preload.push(pl! - pr!);
  const [ucl, ucr] = run([openLoop, cyclePrefix, n, "ab", String(CYCLE)]);
  ab.untracedCycle.push(ucl! - ucr!);
  const [pcl, pcr] = run([...traced("preload"), openLoop, cyclePrefix, n, "ab", String(CYCLE)]);
  ab.preloadCycle.push(pcl! - pcr!);
  add(opens.untraced!, run([openLoop, target, n]));
  add(opens.preload!, run([...traced("preload"), openLoop, target, n]));
  add(opens.seccomp!, run([...traced("seccomp"), openLoop, target, String(Math.min(argv.opens, 50_000))]));
  add(floors.seccomp, run([notifyFloor, target, String(Math.min(argv.opens, 50_000))]));
  floors.record.push(run([recordFloor, logDir, String(argv.opens)])[0]!);
  if (haveStrace) add(opens.strace!, run(["strace", "-f", "-qq", "-o", "/dev/null", openLoop, target, String(argv["strace-opens"])]));
  const l = String(argv.launches);
  launches.untraced!.push(run([spawnLoop, l, "/bin/true"])[0]!);
  for (const b of ["preload", "seccomp", "auto"]) launches[b]!.push(run([spawnLoop, l, ...traced(b), "/bin/true"])[0]!);
  floors.wrapper.push(run([spawnLoop, l, execWrapper, "/bin/true"])[0]!);
  floors.wrapperPreload.push(run([spawnLoop, l, execWrapper, "--preload", emptyObject, "/bin/true"])[0]!);
  const [ours, one] = run([filterInstall, "21"]);
  filter.xbench.push(ours!);
  filter.floor.push(one!);
}
rmSync(work, { recursive: true, force: true });
rmSync(logDir, { recursive: true, force: true });

const fmt = (ns: number) => (Math.abs(ns) >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(0)} ns`);
const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`load average during the run: ${load}`);
console.log(`per open+close of an absolute path, ${argv.rounds} interleaved rounds; overhead = variant - untraced`);
console.log(
  `  ${"".padEnd(9)} ${"wall median".padStart(12)} ${"overhead".padStart(10)} ${"wall min".padStart(10)} ${"overhead".padStart(10)} ${"cpu median".padStart(11)} ${"overhead".padStart(10)}`,
);
const b = opens.untraced!;
for (const [name, s] of Object.entries(opens)) {
  const cols = [
    [median(s.wall), median(b.wall)],
    [min(s.wall), min(b.wall)],
    [median(s.cpu), median(b.cpu)],
  ].map(([v, base]) => `${fmt(v!).padStart(name === "x" ? 0 : 11)} ${(name === "untraced" ? "" : `+${fmt(v! - base!)}`).padStart(10)}`);
  console.log(`  ${name.padEnd(9)} ${cols.join(" ")}`);
}
const shim = (u: number[], p: number[]) =>
  `untraced ${fmt(median(u))}, preload ${fmt(median(p))}; shim = +${fmt(median(p) - median(u))} per open`;
console.log("preload shim cost in-process (libc open - raw syscall, fastest blocks, median of rounds):");
console.log(`  same path again (a repeat the shim skips): ${shim(ab.untraced, ab.preload)}`);
console.log(`  ${CYCLE} paths in turn (a record per open):    ${shim(ab.untracedCycle, ab.preloadCycle)}`);
const lb = launches.untraced!;
console.log(`launch of /bin/true (fork+exec+wait), ${argv.rounds} rounds x ${argv.launches}; overhead = variant - untraced`);
for (const [name, xs] of Object.entries(launches)) {
  const over = (v: number, base: number) => (name === "untraced" ? "" : `+${((v - base) / 1000).toFixed(2)} ms`);
  console.log(
    `  ${name.padEnd(9)} median ${(median(xs) / 1000).toFixed(2).padStart(7)} ms ${over(median(xs), median(lb)).padStart(10)}   min ${(min(xs) / 1000).toFixed(2).padStart(7)} ms ${over(min(xs), min(lb)).padStart(10)}`,
  );
}
const ms = (us: number) => `${(us / 1000).toFixed(2)} ms`;
/** `v` against a floor: the ratio and the difference, printed by `show`. */
const againstFloor = (v: number, floor: number, show: (x: number) => string, what = "the floor") =>
  `${(v / floor).toFixed(2)}x ${what}, ${show(Math.abs(v - floor))} ${v >= floor ? "above" : "below"} it`;
const seccompFloor = median(floors.seccomp.wall) - median(b.wall);
const seccompOver = median(opens.seccomp!.wall) - median(b.wall);
const recordFloorNs = median(floors.record);
const shimRecord = median(ab.preloadCycle) - median(ab.untracedCycle);
console.log("floors, same rounds: the least a tracer of each kind costs on this machine (medians)");
console.log(
  `  seccomp, bare notification round trip per open: +${fmt(seccompFloor)} wall, +${fmt(median(floors.seccomp.cpu) - median(b.cpu))} cpu`,
);
console.log(
  `    xbench seccomp +${fmt(seccompOver)}: ${againstFloor(seccompOver, seccompFloor, fmt)} (path read, existence probe, record)`,
);
console.log(`  preload, atomic add + memcpy per record into fresh shared memory: ${fmt(recordFloorNs)} per record`);
console.log(`    xbench shim, a record per open +${fmt(shimRecord)}: ${againstFloor(shimRecord, recordFloorNs, fmt)}`);
const wrapperFloor = median(floors.wrapper) - median(lb);
const preloadFloor = median(floors.wrapperPreload) - median(lb);
console.log(
  `  launch, a static wrapper that only vforks and execs: +${ms(wrapperFloor)}; with an empty LD_PRELOAD object: +${ms(preloadFloor)}`,
);
for (const [name, floor, what] of [
  ["preload", preloadFloor, "the preload floor"],
  ["auto", preloadFloor, "the preload floor"],
  ["seccomp", wrapperFloor, "the wrapper floor"],
] as const) {
  const over = median(launches[name]!) - median(lb);
  console.log(`    xbench ${name.padEnd(7)} +${ms(over)}: ${againstFloor(over, floor, ms, what)}`);
}
const filterFloor = median(filter.floor);
console.log(`  installing a one-number seccomp filter with a listener: ${fmt(filterFloor)}`);
console.log(`    xbench's filter (auto's): ${fmt(median(filter.xbench))}, ${againstFloor(median(filter.xbench), filterFloor, fmt)}`);
