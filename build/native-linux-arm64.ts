/**
 * The native helpers for linux-arm64, cross-compiled on an x86-64 Linux host with Debian's
 * aarch64 cross gcc (`apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross`). build.ts
 * calls this for `--target linux-arm64` (and `all`, `--release`), and embeds the result in
 * that binary as it embeds linux-x64's helpers in its own.
 *
 * The units (build/native-units.ts) that are static musl programs on x86-64 (the supervisor,
 * reaper, exec-stats, the static bench target) are static glibc programs here: Debian has no musl cross toolchain for
 * aarch64, and none of these programs uses what a static glibc cannot do (NSS lookups such as
 * getpwnam, dlopen, iconv). glibc's linker warns when a program does; `--fatal-warnings` makes
 * that warning a failed build. (zig cc from npm would give musl, at the cost of a ~50 MB
 * compiler download for every build.)
 */
import { spawnSync } from "node:child_process";
import { compileUnits } from "./native-compile.ts";
import { TOOLCHAINS, unitsFor } from "./native-units.ts";

export const LINUX_ARM64 = "linux-arm64";
const TOOLCHAIN = TOOLCHAINS[LINUX_ARM64];
export const ARM64_CC = TOOLCHAIN.cc;

export function haveArm64Compiler(): boolean {
  return spawnSync(ARM64_CC, ["--version"], { stdio: "ignore" }).status === 0;
}

/**
 * Builds the Linux units (build/native-units.ts) from `root` into `outDir` for aarch64; returns
 * the built files. Throws with the compiler's output when one fails, or with the apt command
 * when the compiler is missing. `cflags`: $XBENCH_CFLAGS.
 */
export function buildLinuxArm64(root: string, outDir: string, cflags: string[]): string[] {
  if (!haveArm64Compiler())
    throw new Error(
      `${ARM64_CC} not found; the linux-arm64 helpers are cross-compiled. Install it: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross`,
    );
  return compileUnits(TOOLCHAIN, unitsFor(TOOLCHAIN), outDir, { root, cflags, label: LINUX_ARM64 });
}
