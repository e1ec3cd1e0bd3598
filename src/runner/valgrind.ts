/**
 * Valgrind as the counter of `compare --measure instructions|cycles` (docs/counting.md): the
 * command line a bench process runs under, and the check that valgrind is there before any work.
 */
import { spawnSync } from "node:child_process";
import { usageError } from "../errors.ts";
import { COUNTER_HELPER, optionalHelper } from "../helpers/index.ts";
import type { CountedMeasure } from "../model/result.ts";
import { CYCLE_WEIGHTS, type CountMeasure } from "./protocol.ts";

/** What `--measure` takes: time (the default), or a count of the work done. */
export const MEASURES = ["time", "instructions", "cycles"] as const;
export type Measure = (typeof MEASURES)[number];

/** The counted measure of a plan's `measure`, or undefined for time. */
export function countMeasure(measure: Measure | undefined): CountMeasure | undefined {
  return measure === "instructions" || measure === "cycles" ? measure : undefined;
}

/** The unit of a plan's benchmark rows: ns per iteration, or the counted events per iteration. */
export function measuredUnit(measure: Measure | undefined): "ns" | CountMeasure {
  return countMeasure(measure) ?? "ns";
}

/**
 * The caches callgrind simulates for `cycles`: fixed, not read from the machine's CPU, so that
 * estimated cycles mean the same on every runner (a common desktop geometry: 32 KiB 8-way L1s,
 * an 8 MiB 16-way last level, 64-byte lines).
 */
export const SIMULATED_CACHES = { I1: "32768,8,64", D1: "32768,8,64", LL: "8388608,16,64" } as const;

/** The valgrind executable: `$XBENCH_VALGRIND`, else `valgrind` on PATH. */
export function valgrindCommand(): string {
  return process.env.XBENCH_VALGRIND || "valgrind";
}

const INSTALL_HINT = "install it: apt-get install valgrind (dnf install valgrind, pacman -S valgrind)";

/**
 * Valgrind's version (`valgrind-3.19.0`), checked before any work: a missing or broken valgrind,
 * or a platform it does not run on, is one line and exit 2.
 */
export function checkValgrind(measure: CountMeasure): string {
  if (process.platform !== "linux") throw usageError(`--measure ${measure} counts under valgrind, which xbench runs on Linux only`);
  const command = valgrindCommand();
  const done = spawnSync(command, ["--version"], { encoding: "utf8" });
  if (done.error) {
    const missing = (done.error as NodeJS.ErrnoException).code === "ENOENT";
    throw usageError(
      `--measure ${measure} counts under valgrind, and ${missing ? `${command} was not found` : done.error.message}: ${INSTALL_HINT}`,
    );
  }
  const version = done.stdout.trim();
  if (done.status !== 0 || !/^valgrind-\d/.test(version))
    throw usageError(
      `--measure ${measure}: \`${command} --version\` did not answer as valgrind does (${version || `exit ${done.status}`}): ${INSTALL_HINT}`,
    );
  return version;
}

/**
 * The command line before a counted bench process's own: callgrind with instrumentation and
 * collection off until the bench process's counter switches them on; its dumps to `out`.
 */
export function callgrindArgv(measure: CountMeasure, out: string): string[] {
  const caches =
    measure === "cycles"
      ? ["--cache-sim=yes", `--I1=${SIMULATED_CACHES.I1}`, `--D1=${SIMULATED_CACHES.D1}`, `--LL=${SIMULATED_CACHES.LL}`]
      : [];
  return [
    valgrindCommand(),
    "--tool=callgrind",
    "-q",
    "--instr-atstart=no",
    "--collect-atstart=no",
    `--callgrind-out-file=${out}`,
    ...caches,
  ];
}

/** How a counting run counts, as its report states it: valgrind's version and the runtime's flags. */
export interface CounterInfo {
  valgrind: string;
  /** `node --single-threaded --expose-gc`: what the bench processes ran with, not production settings. */
  runtimeFlags: string;
}

/**
 * What a counting run needs of this machine and build, checked before any work: valgrind and
 * the counter module. One line and exit 2 otherwise; valgrind's version when both are there.
 */
export function checkCounting(measure: CountMeasure): string {
  const valgrind = checkValgrind(measure);
  if (!optionalHelper(COUNTER_HELPER))
    throw usageError(`--measure ${measure}: this xbench has no counter module (${COUNTER_HELPER}) for ${process.platform}-${process.arch}`);
  return valgrind;
}

/** What a counting plan's report states of its counting (model/result.ts CountedMeasure). */
export function countedMeasure(measure: Measure | undefined, counter: CounterInfo | undefined): CountedMeasure | undefined {
  const quantity = countMeasure(measure);
  if (!quantity) return undefined;
  return {
    quantity,
    tool: counter?.valgrind ?? "valgrind",
    runtimeFlags: counter?.runtimeFlags ?? "",
    ...(quantity === "cycles" ? { caches: { ...SIMULATED_CACHES, weights: { ...CYCLE_WEIGHTS } } } : {}),
  };
}
