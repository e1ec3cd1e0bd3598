/**
 * The Windows tracer helpers (native/win/ over native/common/log.h), cross-built with mingw-w64 for the windows-x64
 * target: xbench-launch.exe and xbench-hook.dll. Static libgcc, so they need nothing beyond
 * what every Windows has (kernel32, ntdll, msvcrt); stripped; no link time stamp, so a rebuild
 * of the same sources gives the same bytes. Units and flags: build/native-units.ts.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { basename, join } from "pathe";
import { compileUnits } from "./native-compile.ts";
import { C_FLAGS, TOOLCHAINS, unitsFor } from "./native-units.ts";

/** The platform key the helpers are extracted under (src/helpers: `${process.platform}-${process.arch}`). */
export const WINDOWS_HELPER_PLATFORM = "win32-x64";
const TOOLCHAIN = TOOLCHAINS[WINDOWS_HELPER_PLATFORM];
export const MINGW_CC = TOOLCHAIN.cc;

/** The compiler's flags for an executable (tests build their fixtures with them). */
export const MINGW_FLAGS = [...C_FLAGS, ...TOOLCHAIN.flags];

/**
 * Builds the Windows units (build/native-units.ts) from `root` into `outDir`; returns their
 * paths. Throws with a clear message when mingw-w64 is missing or a unit does not compile.
 * `cflags`: $XBENCH_CFLAGS.
 */
export function buildWindowsHelpers(root: string, outDir: string, cflags: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const probe = spawnSync(MINGW_CC, ["--version"], { stdio: "ignore" });
  if (probe.error || probe.status !== 0)
    throw new Error(`${MINGW_CC} not found; the Windows tracer helpers need it: apt-get install gcc-mingw-w64-x86-64`);
  return compileUnits(TOOLCHAIN, unitsFor(TOOLCHAIN), outDir, { root, cflags, env });
}

/** Copies built helpers into `dir` (the npm package's helpers/<platform>, where npm users' trace() finds them). */
export function copyHelpers(files: readonly string[], dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const file of files) copyFileSync(file, join(dir, basename(file)));
}
