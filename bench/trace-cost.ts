#!/usr/bin/env bun
/**
 * What `xbench trace` costs, measured in one run as ratios to floors measured in the same
 * rounds (never as absolute targets: figures move between machines). Arms are interleaved, in a
 * rotated order each round, and medians compared.
 *
 *   start:   `xbench trace -- true` vs `strace -f -o /dev/null true` vs the supervisor alone, and
 *            the floor of `xbench trace -- true`: a Bun-compiled hello plus the supervisor alone;
 *            wall and CPU time (a loaded machine inflates the first far more than the second).
 *   programs: untraced vs preload vs auto vs seccomp (all through `xbench trace`) on gcc, git
 *            status in a 2,000-file repository, tar x and find; auto / preload is the target ratio.
 *   reading: readAccessLog on a synthetic log of 1M records over 20,000 paths, against the floor
 *            of streaming its frames and doing nothing with them.
 *
 *   bun bench/trace-cost.ts [--rounds 7] [--skip-programs]
 * Uses dist/xbench and dist/helpers/linux-x64 (run `bun build.ts` first).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "pathe";
import mri from "mri";
import { readAccessLog } from "../src/tracer/index.ts";
import { HEADER_SIZE, LOG_MAGIC, LOG_VERSION, REC_SIZE, scanLogFile } from "../src/tracer/log.ts";
import { buildMinimalTracer } from "./minimal-tracer.ts";

const ROOT = resolve(import.meta.dir, "..");
const XBENCH = join(ROOT, "dist", "xbench");
const SUPERVISOR = join(process.env.XBENCH_HELPER_DIR ?? join(ROOT, "dist", "helpers", "linux-x64"), "xbench-supervisor");
const argv = mri(process.argv.slice(2), { boolean: ["skip-programs"], default: { rounds: 7 } });
const work = mkdtempSync(join(tmpdir(), "xbench-trace-cost-"));
// A private helper cache: another xbench build on this machine must not swap our helpers.
const env = { ...process.env, XBENCH_CACHE_DIR: join(work, "cache") };

function sh(cmd: string[], cwd = work): void {
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd, env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd.join(" ")}: exit ${r.status}: ${r.stderr}`);
}

/** Wall time of one run, in ms. */
function time(cmd: string[], cwd = work, before?: () => void): number {
  before?.();
  const t = performance.now();
  sh(cmd, cwd);
  return performance.now() - t;
}

/**
 * Wall ms of one run of `cmd`, and its CPU ms (with every descendant it waited for) into `cpu`:
 * on a loaded machine wall time measures the queue, CPU time what each arm itself costs.
 */
function timeCpu(cmd: string[], cpu: number[]): number {
  const t = performance.now();
  const r = Bun.spawnSync(cmd, { cwd: work, env, stdio: ["ignore", "ignore", "ignore"] });
  const wall = performance.now() - t;
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: exit ${r.exitCode}`);
  cpu.push(Number(r.resourceUsage.cpuTime.total) / 1000);
  return wall;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs every arm once per round, in a rotated order; returns the samples per arm. */
function interleave(arms: Record<string, () => number>, rounds: number): Record<string, number[]> {
  const names = Object.keys(arms);
  const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length]!;
      out[name]!.push(arms[name]!());
    }
  return out;
}

// ---------------------------------------------------------------- start
const hello = join(work, "hello");
writeFileSync(join(work, "hello.ts"), 'console.log("hi");\n');
sh([process.execPath, "build", "--compile", "--outfile", hello, join(work, "hello.ts")]);
const minimal = buildMinimalTracer(work, SUPERVISOR);
const log = join("/dev/shm", `xbench-trace-cost-${process.pid}.log`);
sh([XBENCH, "trace", "--", "true"]); // extract the helpers once
const startArms: Record<string, string[]> = {
  "xbench trace -- true": [XBENCH, "trace", "--", "true"],
  "strace -f true": ["strace", "-f", "-o", "/dev/null", "true"],
  "supervisor alone": [SUPERVISOR, "--log", log, "--", "true"],
  "bun-compiled hello": [hello],
  "bun minimal tracer": [minimal],
  "xbench --version": [XBENCH, "--version"],
};
const startCpu: Record<string, number[]> = Object.fromEntries(Object.keys(startArms).map((k) => [k, []]));
const start = interleave(
  Object.fromEntries(Object.entries(startArms).map(([k, cmd]) => [k, () => timeCpu(cmd, startCpu[k]!)])),
  argv.rounds * 3,
);
rmSync(log, { force: true });

// ---------------------------------------------------------------- programs
function tree(root: string, n: number): void {
  const past = new Date(Date.now() - 3600_000);
  for (let i = 0; i < n; i++) {
    const sub = join(root, `d${i % 40}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.txt`), `${i}\n`);
    utimesSync(join(sub, `f${i}.txt`), past, past);
  }
}
const programs: Record<string, { cmd: string[]; cwd: string; before?: () => void }> = {};
if (!argv["skip-programs"]) {
  const gcc = join(work, "gcc");
  mkdirSync(gcc);
  writeFileSync(join(gcc, "hello.c"), '#include <stdio.h>\n#include <string.h>\nint main(void) { puts("hi"); return 0; }\n');
  programs.gcc = { cmd: ["gcc", "-O1", "-o", "hello", "hello.c"], cwd: gcc };
  const repo = join(work, "repo");
  tree(repo, 2000);
  for (const a of [
    ["init", "-q"],
    ["add", "."],
    ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
  ])
    sh(["git", ...a], repo);
  programs["git status"] = { cmd: ["git", "status", "--porcelain"], cwd: repo };
  sh(["tar", "cf", join(work, "tree.tar"), "-C", repo, "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7"]);
  const tarx = join(work, "tarx");
  programs["tar x"] = {
    cmd: ["tar", "xf", join(work, "tree.tar")],
    cwd: tarx,
    before: () => (rmSync(tarx, { recursive: true, force: true }), mkdirSync(tarx)),
  };
  programs.find = { cmd: ["find", "/usr/include", "-name", "x"], cwd: work };
}
const traced = (backend: string, cmd: string[]) => [XBENCH, "trace", "--backend", backend, "-o", "/dev/null", "--", ...cmd];
const programResults: Record<string, Record<string, number[]>> = {};
for (const [name, p] of Object.entries(programs)) {
  programResults[name] = interleave(
    {
      untraced: () => time(p.cmd, p.cwd, p.before),
      preload: () => time(traced("preload", p.cmd), p.cwd, p.before),
      auto: () => time(traced("auto", p.cmd), p.cwd, p.before),
      seccomp: () => time(traced("seccomp", p.cmd), p.cwd, p.before),
    },
    argv.rounds,
  );
}

// ---------------------------------------------------------------- reading
/** A log of `n` records over `distinct` paths (a quarter relative to a base), as the shim writes. */
function syntheticLog(file: string, n: number, distinct: number): void {
  const parts: Buffer[] = [Buffer.alloc(HEADER_SIZE)];
  let size = HEADER_SIZE;
  for (let i = 0; i < n; i++) {
    const k = (i * 7919) % distinct;
    const base = Buffer.from(k % 4 === 0 ? "/home/user/project/src" : "");
    const path = Buffer.from(k % 4 === 0 ? `mod${k % 50}/file${k}.c` : `/usr/include/pkg${k % 97}/header-${k}.h`);
    const len = REC_SIZE + base.length + path.length;
    const f = Buffer.alloc((8 + len + 7) & ~7);
    f.writeUInt32LE(0x31434258, 0);
    f.writeUInt32LE(len, 4);
    f[8] = i % 3 === 0 ? 2 : 1; // stat or open
    f[9] = 1;
    f.writeUInt16LE(base.length, 10);
    f.writeUInt32LE(1000 + (i % 5), 12);
    f.writeInt32LE(i % 11 === 0 ? 2 : 0, 20);
    f.writeUInt32LE(path.length, 24);
    f.writeBigUInt64LE(BigInt(1e12 + i), 32);
    base.copy(f, 40);
    path.copy(f, 40 + base.length);
    parts.push(f);
    size += f.length;
  }
  const h = parts[0]!;
  h.writeBigUInt64LE(LOG_MAGIC, 0);
  h.writeUInt32LE(LOG_VERSION, 8);
  h.writeUInt32LE(HEADER_SIZE, 12);
  h.writeBigUInt64LE(BigInt(size), 16);
  h.writeBigUInt64LE(BigInt(size), 24);
  writeFileSync(file, Buffer.concat(parts));
}
const synth = join(work, "synthetic.log");
syntheticLog(synth, 1_000_000, 20_000);
/** Wall ms of `f`, and its CPU ms into `cpu` (what a loaded machine does not inflate). */
const msOf = (f: () => void, cpu: number[]) => () => {
  const t = performance.now();
  const c = process.cpuUsage();
  f();
  const d = process.cpuUsage(c);
  cpu.push((d.user + d.system) / 1000);
  return performance.now() - t;
};
const readCpu: number[] = [],
  floorCpu: number[] = [];
const reading = interleave(
  {
    "readAccessLog, 1M records": msOf(() => readAccessLog(synth), readCpu),
    "floor: stream the frames": msOf(() => scanLogFile(synth, () => {}), floorCpu),
  },
  argv.rounds,
);
rmSync(work, { recursive: true, force: true });

// ---------------------------------------------------------------- report
const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const cpus = readFileSync("/proc/cpuinfo", "utf8")
  .split("\n")
  .filter((l) => l.startsWith("processor")).length;
const f1 = (x: number) => x.toFixed(1);
console.log(`load average at the end: ${load} (${cpus} CPUs); medians of interleaved rounds, wall ms`);
const m = (xs: Record<string, number[]>) => Object.fromEntries(Object.entries(xs).map(([k, v]) => [k, median(v)]));
const s = m(start);
const floor = s["bun-compiled hello"]! + s["supervisor alone"]!;
const sc = m(startCpu);
console.log(`start (${argv.rounds * 3} rounds), wall and CPU (the process and what it waited for):`);
for (const [k, v] of Object.entries(s)) console.log(`  ${k.padEnd(22)} ${f1(v).padStart(7)} ms wall ${f1(sc[k]!).padStart(7)} ms CPU`);
console.log(
  `  CPU: xbench trace -- true / strace -f true: ${(sc["xbench trace -- true"]! / sc["strace -f true"]!).toFixed(2)}x (target <= 2x); xbench --version / bun-compiled hello: ${(sc["xbench --version"]! / sc["bun-compiled hello"]!).toFixed(2)}x`,
);
console.log(`  floor of xbench trace -- true (hello + supervisor alone): ${f1(floor)} ms`);
console.log(
  `  xbench trace -- true / floor: ${(s["xbench trace -- true"]! / floor).toFixed(2)}x (target <= 1.3x); / strace -f: ${(s["xbench trace -- true"]! / s["strace -f true"]!).toFixed(2)}x`,
);
console.log(
  `  bun minimal tracer / floor: ${(s["bun minimal tracer"]! / floor).toFixed(2)}x (the runtime's share); xbench trace -- true / bun minimal tracer: ${(s["xbench trace -- true"]! / s["bun minimal tracer"]!).toFixed(2)}x (xbench's own)`,
);
if (Object.keys(programResults).length)
  console.log(`programs through xbench trace (${argv.rounds} rounds), ratio to untraced; auto / preload is the target (<= 1.3x):`);
for (const [name, r] of Object.entries(programResults)) {
  const p = m(r);
  const cols = ["preload", "auto", "seccomp"].map((b) => `${b} ${f1(p[b]!)} ms (${(p[b]! / p.untraced!).toFixed(2)}x)`);
  console.log(
    `  ${name.padEnd(10)} untraced ${f1(p.untraced!)} ms; ${cols.join("; ")}; auto/preload ${(p.auto! / p.preload!).toFixed(2)}x`,
  );
}
const rd = m(reading);
console.log(
  `reading (${argv.rounds} rounds): readAccessLog of 1M records ${f1(rd["readAccessLog, 1M records"]!)} ms wall, ${f1(median(readCpu))} ms CPU (target <= 500 ms), ${(rd["readAccessLog, 1M records"]! / rd["floor: stream the frames"]!).toFixed(2)}x the floor of streaming its frames (${f1(rd["floor: stream the frames"]!)} ms wall, ${f1(median(floorCpu))} ms CPU)`,
);
