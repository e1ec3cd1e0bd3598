/**
 * The native helpers for linux-arm64, cross-compiled on an x86-64 Linux host with Debian's
 * aarch64 cross gcc (`apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross`). build.ts
 * calls this for `--target linux-arm64` (and `all`, `--release`), and embeds the result in
 * that binary as it embeds linux-x64's helpers in its own.
 *
 * The units that are static musl programs on x86-64 (the supervisor, reaper, exec-stats, the
 * static bench target) are static glibc programs here: Debian has no musl cross toolchain for
 * aarch64, and none of these programs uses what a static glibc cannot do (NSS lookups such as
 * getpwnam, dlopen, iconv). glibc's linker warns when a program does; `--fatal-warnings` makes
 * that warning a failed build. (zig cc from npm would give musl, at the cost of a ~50 MB
 * compiler download for every build.)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, renameSync } from "node:fs";
import { join } from "pathe";

export const LINUX_ARM64 = "linux-arm64";
export const ARM64_CC = "aarch64-linux-gnu-gcc";

/** One native program as build.ts lists it (NATIVE_UNITS). */
export interface CrossUnit {
  name: string;
  sources: string[];
  /** "static-musl" means static here too, with glibc (see above). */
  kind: "static-musl" | "shared" | "dynamic";
}

export function haveArm64Compiler(): boolean {
  return spawnSync(ARM64_CC, ["--version"], { stdio: "ignore" }).status === 0;
}

/** The compiler's arguments for one unit (sources already absolute). */
export function arm64Args(unit: CrossUnit, sources: string[], out: string, cflags: string[]): string[] {
  if (unit.kind === "static-musl") return [...cflags, "-static", "-Wl,--fatal-warnings", "-o", out, ...sources, "-lpthread"];
  if (unit.kind === "shared") return [...cflags, "-shared", "-fPIC", "-fvisibility=hidden", "-o", out, ...sources, "-ldl", "-lpthread"];
  return [...cflags, "-o", out, ...sources, "-lpthread"];
}

/**
 * Builds `units` from `nativeDir` into `outDir` for aarch64; returns the built files. Throws
 * with the compiler's output when one fails, or with the apt command when the compiler is missing.
 */
export function buildLinuxArm64(units: CrossUnit[], nativeDir: string, outDir: string, cflags: string[]): string[] {
  if (!haveArm64Compiler())
    throw new Error(
      `${ARM64_CC} not found; the linux-arm64 helpers are cross-compiled. Install it: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross`,
    );
  mkdirSync(outDir, { recursive: true });
  return units.map((unit) => {
    const out = join(outDir, unit.name);
    const tmp = `${out}.tmp`;
    const sources = unit.sources.map((s) => join(nativeDir, s));
    const r = spawnSync(ARM64_CC, arm64Args(unit, sources, tmp, cflags), { encoding: "utf8" });
    if (r.error) throw new Error(`${unit.name} (${LINUX_ARM64}): ${r.error.message}`);
    if (r.status !== 0) throw new Error(`${unit.name} (${LINUX_ARM64}) failed:\n${r.stderr}`);
    if (r.stderr) process.stderr.write(r.stderr);
    renameSync(tmp, out);
    return out;
  });
}
