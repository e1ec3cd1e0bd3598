#!/usr/bin/env bun
/**
 * The preload shim's cost per open, in instructions (valgrind's callgrind counts them the same on
 * every run, whatever else the machine does): bench/tracer-overhead/open-loop.c opens and closes
 * files through libc's open() under `xbench-supervisor --backend preload --preload SHIM`, each
 * shim in the same run. Every count is the difference of two runs, N and 2N opens, divided by
 * the opens between them, so start-up and exit cancel out; the same difference untraced is taken
 * off, which leaves the shim's own instructions per open:
 *   first    absolute paths, 1,024 of them in turn: every open is a first-time record
 *   repeat   one absolute path again and again: a repeat the shim skips
 *   relative 1,024 relative paths in turn: a record that names the cwd
 *
 *   bun bench/shim-instructions.ts [--opens 20000] [LABEL=SHIM.so ...]
 * Without shims, this build's (dist/helpers/linux-x64, or $XBENCH_HELPER_DIR). The supervisor is
 * always this build's.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import mri from "mri";
import { join, resolve } from "pathe";

const ROOT = resolve(import.meta.dir, "..");
const HELPERS = process.env.XBENCH_HELPER_DIR ?? join(ROOT, "dist", "helpers", "linux-x64");
const argv = mri(process.argv.slice(2), { default: { opens: 20_000 } });
const shims: Array<[string, string]> = argv._.length
  ? argv._.map((s) => {
      const at = String(s).indexOf("=");
      return [String(s).slice(0, at), resolve(String(s).slice(at + 1))];
    })
  : [["this build", join(HELPERS, "libxbench-preload.so")]];

const work = mkdtempSync(join(tmpdir(), "xbench-shim-instructions-"));
const openLoop = join(work, "open-loop");
const cc = spawnSync("gcc", ["-O2", "-o", openLoop, join(ROOT, "bench", "tracer-overhead", "open-loop.c")], { encoding: "utf8" });
if (cc.status !== 0) throw new Error(cc.stderr);
mkdirSync(join(work, "files"));
for (let i = 0; i < 1024; i++) writeFileSync(join(work, "files", `f${i}`), "x");
writeFileSync(join(work, "files", "one0"), "x");
const log = join(work, "trace.log");

/** open-loop's arguments per case: a name prefix and how many names it cycles through. */
const CASES: Record<string, [string, number]> = {
  first: [join(work, "files", "f"), 1024],
  repeat: [join(work, "files", "one"), 1],
  relative: ["files/f", 1024],
};

/** Instructions of one run of `n` opens of `c` (under `shim`, or untraced). */
function instructions(shim: string | undefined, c: [string, number], n: number): number {
  const out = join(work, "callgrind.out");
  const cg = ["valgrind", "--tool=callgrind", `--callgrind-out-file=${out}`, openLoop, c[0], String(n), "x", String(c[1])];
  const cmd = shim ? [join(HELPERS, "xbench-supervisor"), "--backend", "preload", "--preload", shim, "--log", log, "--", ...cg] : cg;
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: work, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd.join(" ")}: exit ${r.status}: ${r.stderr}`);
  const summary = /^summary: (\d+)/m.exec(readFileSync(out, "utf8"));
  if (!summary) throw new Error("no callgrind summary");
  return Number(summary[1]);
}

/** open-loop opens n/10+1 times to warm up, then n times. */
const opened = (n: number) => Math.floor(n / 10) + 1 + n;
const n = Number(argv.opens);
const perOpen = (shim: string | undefined, c: [string, number]) =>
  (instructions(shim, c, 2 * n) - instructions(shim, c, n)) / (opened(2 * n) - opened(n));

const untraced = Object.fromEntries(Object.entries(CASES).map(([name, c]) => [name, perOpen(undefined, c)]));
const rows = shims.map(([label, shim]) => [label, ...Object.entries(CASES).map(([name, c]) => perOpen(shim, c) - untraced[name]!)]);
rmSync(work, { recursive: true, force: true });

const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`shim instructions per open (callgrind, ${n} and ${2 * n} opens; load ${load})`);
console.log(`| shim | ${Object.keys(CASES).join(" | ")} |`);
console.log(
  `|---|${Object.keys(CASES)
    .map(() => "---")
    .join("|")}|`,
);
for (const [label, ...counts] of rows) console.log(`| ${label} | ${counts.map((x) => Number(x).toFixed(1)).join(" | ")} |`);
console.log(
  `untraced, the whole loop per open: ${Object.values(untraced)
    .map((x) => x.toFixed(1))
    .join(" / ")}`,
);
