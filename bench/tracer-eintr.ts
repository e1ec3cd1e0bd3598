#!/usr/bin/env bun
/**
 * How often a traced call that never fails untraced fails with EINTR (docs/tracer.md, "Signals
 * during a call"): bench/tracer-overhead/eintr.c makes stat and open calls while SIGALRM
 * arrives every 100 µs to a handler without SA_RESTART. Untraced, strace -f, xbench under
 * seccomp (glibc build), and under auto for the static musl build (which only seccomp sees);
 * `--before DIR` adds the helpers of another build (XBENCH_HELPER_DIR) under seccomp. Rounds
 * alternate every arm; the figure is EINTR per 1,000 signals, median over rounds.
 *
 *   bun bench/tracer-eintr.ts [--rounds 5] [--calls 20000] [--before DIR]
 * Uses dist/xbench (run `bun build.ts` first).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "pathe";
import mri from "mri";

const ROOT = resolve(import.meta.dir, "..");
const XBENCH = join(ROOT, "dist", "xbench");
const argv = mri(process.argv.slice(2), { string: ["before"], default: { rounds: 5, calls: 20_000 } });
const work = mkdtempSync(join(tmpdir(), "xbench-eintr-"));

function cc(compiler: string, out: string, flags: string[] = []): string {
  const r = spawnSync(compiler, ["-O2", ...flags, "-o", join(work, out), join(ROOT, "bench", "tracer-overhead", "eintr.c")], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`${compiler}: ${r.stderr}`);
  return join(work, out);
}

const glibc = cc("gcc", "eintr");
const musl = spawnSync("sh", ["-c", "command -v musl-gcc"]).status === 0 ? cc("musl-gcc", "eintr-static", ["-static"]) : undefined;
const program = (bin: string) => [bin, String(argv.calls), "100"];

interface Arm {
  name: string;
  cmd: string[];
  env?: NodeJS.ProcessEnv;
}
const arms: Arm[] = [
  { name: "untraced", cmd: program(glibc) },
  { name: "strace -f", cmd: ["strace", "-f", "-o", "/dev/null", ...program(glibc)] },
  { name: "xbench trace --backend seccomp", cmd: [XBENCH, "trace", "--backend", "seccomp", "--", ...program(glibc)] },
];
if (argv.before)
  arms.push({
    name: `the same, helpers of ${argv.before}`,
    cmd: [XBENCH, "trace", "--backend", "seccomp", "--", ...program(glibc)],
    env: { ...process.env, XBENCH_HELPER_DIR: argv.before },
  });
if (musl) arms.push({ name: "xbench trace (auto), static musl build", cmd: [XBENCH, "trace", "--", ...program(musl)] });

const perThousand = new Map<string, number[]>(arms.map((a) => [a.name, []]));
try {
  for (let round = 0; round < argv.rounds; round++) {
    for (const arm of round % 2 ? [...arms].reverse() : arms) {
      const r = spawnSync(arm.cmd[0]!, arm.cmd.slice(1), { encoding: "utf8", env: arm.env ?? process.env });
      const m = /eintr (\d+) signals (\d+)/.exec(r.stdout);
      if (r.status !== 0 || !m) throw new Error(`${arm.name}: exit ${r.status}: ${r.stderr.trim()}`);
      perThousand.get(arm.name)!.push((1000 * Number(m[1])) / Math.max(1, Number(m[2])));
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`EINTR per 1,000 signals, median of ${argv.rounds} rounds of ${argv.calls} stat+open calls (range in brackets):`);
for (const [name, xs] of perThousand)
  console.log(
    `  ${name.padEnd(48)} ${median(xs).toFixed(1).padStart(6)}  [${Math.min(...xs).toFixed(1)} .. ${Math.max(...xs).toFixed(1)}]`,
  );
