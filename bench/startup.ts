#!/usr/bin/env bun
/**
 * Start-up of `dist/xbench` on the paths where it is most of the cost (`--version`,
 * `trace -- true`, `compare --help`) against a Bun-compiled hello world built in this run,
 * launched in rotating order in one run so every arm sees the same machine. With `--before
 * BIN`, a second build (another commit's dist/xbench) runs the same commands in the same
 * rounds, so two builds compare side by side. Prints each arm's median and its ratio to hello
 * (the median of per-round ratios, with its quartiles), and with `--before` each command's
 * after/before ratio the same way. `trace -- true` is also held to its own floor, the least a
 * Bun program can do to trace `true` (bench/minimal-tracer.ts), run in the same rounds: ×floor.
 * A second hello that parses its argv with node:util's `parseArgs` (what citty parses with)
 * says what that module would add to the fast path, which reads argv without it.
 *
 *   bun bench/startup.ts [LAUNCHES] [--before BIN]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import mri from "mri";
import { join } from "pathe";
import { median, spread } from "../src/stats/quantile.ts";
import { buildMinimalTracer } from "./minimal-tracer.ts";

const argv = mri(process.argv.slice(2), { string: ["before"] });
const launches = Number(argv._[0] ?? 40);
const after = join(import.meta.dir, "..", "dist", "xbench");
const COMMANDS = [["--version"], ["trace", "--", "true"], ["compare", "--help"]];

/** A hello world compiled the way build.ts compiles xbench: the floor of a Bun binary's start-up. */
function buildHello(dir: string, name = "hello", code = 'console.log("hello");\n'): string {
  const source = join(dir, `${name}.ts`);
  const out = join(dir, name);
  writeFileSync(source, code);
  const r = spawnSync(process.execPath, ["build", source, "--compile", "--minify", "--bytecode", "--outfile", out], { stdio: "inherit" });
  if (r.status !== 0) throw new Error("bun build --compile of hello failed");
  return out;
}

function launchMs(command: string[]): number {
  const start = performance.now();
  const r = spawnSync(command[0]!, command.slice(1), { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`${command.join(" ")} exited ${r.status}`);
  return performance.now() - start;
}

const dir = mkdtempSync(join(tmpdir(), "xbench-startup-"));
try {
  const supervisor = join(import.meta.dir, "..", "dist", "helpers", "linux-x64", "xbench-supervisor");
  const utilHello =
    'import { parseArgs } from "node:util";\nparseArgs({ args: process.argv.slice(2), strict: false, allowPositionals: true });\nconsole.log("hello");\n';
  const arms: Record<string, string[]> = {
    hello: [buildHello(dir)],
    "hello + node:util": [buildHello(dir, "hello-util", utilHello), "trace", "--", "true"],
    "minimal tracer": [buildMinimalTracer(dir, supervisor)],
  };
  const builds: Array<[string, string]> = argv.before
    ? [
        ["before", argv.before],
        ["after", after],
      ]
    : [["xbench", after]];
  for (const command of COMMANDS) for (const [label, bin] of builds) arms[`${label} ${command.join(" ")}`] = [bin, ...command];
  const names = Object.keys(arms);
  const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (const name of names) launchMs(arms[name]!); // warm the page cache
  for (let i = 0; i < launches; i++) {
    const order = names.map((_, k) => names[(k + i) % names.length]!);
    for (const name of order) times[name]!.push(launchMs(arms[name]!));
  }
  console.log(`launches: ${launches} each, rotating order; load ${(await import("node:os")).loadavg()[0]!.toFixed(2)}`);
  for (const name of names) {
    const ratio = spread(times[name]!.map((t, i) => t / times.hello![i]!));
    const versus = name === "hello" ? "" : `  ×hello ${ratio.median.toFixed(2)} [${ratio.q1.toFixed(2)} .. ${ratio.q3.toFixed(2)}]`;
    const floor = spread(times[name]!.map((t, i) => t / times["minimal tracer"]![i]!));
    const traced = name.endsWith("trace -- true")
      ? `  ×floor ${floor.median.toFixed(2)} [${floor.q1.toFixed(2)} .. ${floor.q3.toFixed(2)}]`
      : "";
    console.log(`${name.padEnd(30)} median ${median(times[name]!).toFixed(1).padStart(6)} ms${versus}${traced}`);
  }
  if (argv.before) {
    for (const command of COMMANDS) {
      const [before, now] = [times[`before ${command.join(" ")}`]!, times[`after ${command.join(" ")}`]!];
      const ratio = spread(now.map((t, i) => t / before[i]!));
      console.log(
        `after/before ${command.join(" ").padEnd(17)} ${ratio.median.toFixed(2)} [${ratio.q1.toFixed(2)} .. ${ratio.q3.toFixed(2)}]`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
