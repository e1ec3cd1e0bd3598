/**
 * The Windows tracer helpers (native/win/), cross-built with mingw-w64 for the windows-x64
 * target: xbench-launch.exe and xbench-hook.dll. Static libgcc, so they need nothing beyond
 * what every Windows has (kernel32, ntdll, msvcrt); stripped; no link time stamp, so a rebuild
 * of the same sources gives the same bytes.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, renameSync } from "node:fs";
import { basename, join } from "pathe";

/** The platform key the helpers are extracted under (src/helpers: `${process.platform}-${process.arch}`). */
export const WINDOWS_HELPER_PLATFORM = "win32-x64";
export const MINGW_CC = "x86_64-w64-mingw32-gcc";

interface WindowsUnit {
  name: string;
  sources: string[];
  kind: "exe" | "dll";
  libs: string[];
}

export const WINDOWS_UNITS: WindowsUnit[] = [
  { name: "xbench-launch.exe", sources: ["launch.c", "winlog.c", "inject.c"], kind: "exe", libs: [] },
  {
    name: "xbench-hook.dll",
    sources: ["hook.c", "record.c", "patch.c", "winlog.c", "inject.c"],
    kind: "dll",
    libs: ["-lntdll"],
  },
];

/** The compiler's flags for one unit (tests build their fixtures with the same base). */
export const MINGW_FLAGS = ["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fno-strict-aliasing", "-static-libgcc", "-s"];

/**
 * Builds the units from `nativeDir`/win into `outDir`; returns their paths. Throws with a clear
 * message when mingw-w64 is missing or a unit does not compile.
 */
export function buildWindowsHelpers(nativeDir: string, outDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const probe = spawnSync(MINGW_CC, ["--version"], { stdio: "ignore" });
  if (probe.error || probe.status !== 0)
    throw new Error(`${MINGW_CC} not found; the Windows tracer helpers need it: apt-get install gcc-mingw-w64-x86-64`);
  mkdirSync(outDir, { recursive: true });
  return WINDOWS_UNITS.map((unit) => {
    const out = join(outDir, unit.name);
    const tmp = `${out}.tmp`;
    const args = [
      ...MINGW_FLAGS,
      ...(unit.kind === "dll" ? ["-shared"] : []),
      "-Wl,--no-insert-timestamp",
      "-o",
      tmp,
      ...unit.sources.map((s) => join(nativeDir, "win", s)),
      ...unit.libs,
    ];
    const r = spawnSync(MINGW_CC, args, { encoding: "utf8", env });
    if (r.error || r.status !== 0) throw new Error(`${unit.name} failed:\n${r.stderr ?? r.error?.message}`);
    renameSync(tmp, out);
    return out;
  });
}

/** Copies built helpers into `dir` (the npm package's helpers/<platform>, where npm users' trace() finds them). */
export function copyHelpers(files: readonly string[], dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const file of files) copyFileSync(file, join(dir, basename(file)));
}
