/**
 * The one table of the native helpers: every program, its sources (native/common for every
 * platform, native/unix for Linux and macOS, and the platform's own folder: native/linux,
 * native/mac or native/win, where a file of one role has one name), how it is linked, and the toolchain of each
 * helper platform with the flags it adds. The C flags are defined here once. build.ts (linux-x64)
 * and build/native-{linux-arm64,darwin,windows}.ts read it; each adds only what its toolchain
 * needs at run time (musl's kernel headers, zig's target triple).
 */
import { isAbsolute, join } from "pathe";
import { COUNTER_HELPER } from "../src/helpers/index.ts";

/** The operating system a unit's code is written for. */
export type NativeOs = "linux" | "darwin" | "windows";
/** static: a program with no dynamic loader; shared: a library loaded into the command; executable: the rest. */
export type UnitKind = "static" | "shared" | "executable";

export interface NativeUnit {
  /** The file's name in the helper folder (and in the binary's embedded helpers). */
  name: string;
  os: NativeOs;
  kind: UnitKind;
  /** Relative to the repository. */
  sources: string[];
  /** Libraries of this unit alone (after the kind's). */
  libs?: string[];
  /** Header folders of this unit alone: repo-relative ones searched first (-I), absolute ones last (-idirafter). */
  includes?: string[];
}

/** The C flags of every helper on every platform; $XBENCH_CFLAGS comes after them. */
export const C_FLAGS = ["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fno-strict-aliasing"];

/** Each OS's own folder under native/. */
export const PLATFORM_DIR: Record<NativeOs, string> = { linux: "native/linux", darwin: "native/mac", windows: "native/win" };

/**
 * The include path of a unit written for `os`: its platform's folder, so that shared code
 * (native/unix) includes the platform's file of a role (`sys.h`) by that one name.
 */
export function includeFlags(os: NativeOs, root: string): string[] {
  return [`-I${join(root, PLATFORM_DIR[os])}`];
}

/** The include path of one unit: its platform's folder, then the unit's own header folders. */
export function unitIncludeFlags(unit: NativeUnit, root: string): string[] {
  return [
    ...includeFlags(unit.os, root),
    ...(unit.includes ?? []).flatMap((dir) => (isAbsolute(dir) ? ["-idirafter", dir] : [`-I${join(root, dir)}`])),
  ];
}

const common = (...files: string[]) => files.map((f) => `native/common/${f}`);
const unix = (...files: string[]) => files.map((f) => `native/unix/${f}`);
const linux = (...files: string[]) => files.map((f) => `${PLATFORM_DIR.linux}/${f}`);
const mac = (...files: string[]) => files.map((f) => `${PLATFORM_DIR.darwin}/${f}`);
const win = (...files: string[]) => files.map((f) => `${PLATFORM_DIR.windows}/${f}`);
/** The target program of `xbench bench tracer`, beside the suite that runs it. */
const TRACER_TARGET = "src/suites/tracer/target.c";

/**
 * Valgrind's client-request headers (Debian's valgrind package), which the counter module
 * includes by name: searched after the system's own, so nothing else in the folder shadows them.
 */
export const VALGRIND_INCLUDE = process.env.XBENCH_VALGRIND_INCLUDE || "/usr/include/valgrind";

export const INTERPOSE_DYLIB = "libxbench-interpose.dylib";
export const MAC_LAUNCHER = "xbench-mac-launch";

export const NATIVE_UNITS: readonly NativeUnit[] = [
  {
    name: "xbench-supervisor",
    os: "linux",
    kind: "static",
    // The notification server's role files (native/linux/notify-server.h says what each holds) are
    // listed here, as the shim's are, rather than #included by notify.c.
    sources: [
      ...linux("launch.c", "filter.c", "tree.c", "progkind.c"),
      ...linux("notify.c", "notify-decode.c", "notify-probe.c", "notify-exec.c", "notify-paths.c", "notify-record.c"),
      ...unix("capacity.c", "logfile.c"),
      ...common("args.c"),
    ],
  },
  {
    name: "libxbench-preload.so",
    os: "linux",
    kind: "shared",
    // One object from the shim's role files (native/linux/shim.h says what each holds), listed
    // here rather than #included by shim.c: the table names every file the object is built from,
    // and test/unit/native-units.test.ts fails when one is left out.
    sources: [
      ...linux("shim.c", "shim-open.c", "shim-stat.c", "shim-dirs.c", "shim-names.c", "shim-exec.c", "shim-spawn.c"),
      ...linux("progkind.c"),
      ...unix("logfile.c"),
    ],
  },
  { name: "xbench-target", os: "linux", kind: "executable", sources: [TRACER_TARGET] },
  { name: "xbench-target-static", os: "linux", kind: "static", sources: [TRACER_TARGET] },
  { name: "xbench-exec-stats", os: "linux", kind: "static", sources: linux("exec-stats.c") },
  { name: "xbench-reaper", os: "linux", kind: "static", sources: linux("reaper.c") },
  {
    name: COUNTER_HELPER,
    os: "linux",
    kind: "shared",
    sources: linux("counter.c"),
    // Node-API's declarations from npm (node-api-headers): the runtime that loads it provides the symbols.
    includes: ["node_modules/node-api-headers/include", VALGRIND_INCLUDE],
  },
  {
    name: INTERPOSE_DYLIB,
    os: "darwin",
    kind: "shared",
    sources: [...mac("shim.c", "policy.c", "search.c"), ...unix("logfile.c")],
  },
  {
    name: MAC_LAUNCHER,
    os: "darwin",
    kind: "executable",
    sources: [...mac("launch.c", "policy.c", "search.c"), ...unix("capacity.c", "logfile.c"), ...common("args.c")],
  },
  { name: "xbench-launch.exe", os: "windows", kind: "executable", sources: win("launch.c", "logfile.c", "inject.c") },
  {
    name: "xbench-hook.dll",
    os: "windows",
    kind: "shared",
    sources: win("shim.c", "record.c", "patch.c", "logfile.c", "inject.c"),
    libs: ["-lntdll"],
  },
];

/** How one kind of unit is linked by a toolchain. */
interface KindLink {
  /** Another compiler for this kind (linux-x64's static programs: musl-gcc). */
  cc?: string;
  flags: string[];
  libs: string[];
}

export interface Toolchain {
  os: NativeOs;
  cc: string;
  /** After C_FLAGS, for every unit. */
  flags: string[];
  kinds: Partial<Record<UnitKind, KindLink>>;
}

const GLIBC_SHARED: KindLink = { flags: ["-shared", "-fPIC", "-fvisibility=hidden"], libs: ["-ldl", "-lpthread"] };
/**
 * x86-64's thread-locals through TLS descriptors (arm64's default): the shim then loads where
 * no static TLS is left for it (LD_AUDIT), at the cost docs/tracer-overhead.md measures.
 */
const GLIBC_SHARED_X64: KindLink = { ...GLIBC_SHARED, flags: [...GLIBC_SHARED.flags, "-mtls-dialect=gnu2"] };

/**
 * The toolchain of each helper platform (the key the helpers are extracted under). darwin's
 * compiler is zig's (`zig cc -target <triple>`); its two targets share these flags.
 */
export const TOOLCHAINS = {
  /** Static programs are musl (no NSS, no dlopen: nothing a static glibc would warn about). */
  "linux-x64": {
    os: "linux",
    cc: "gcc",
    flags: [],
    kinds: {
      static: { cc: "musl-gcc", flags: ["-static"], libs: [] },
      shared: GLIBC_SHARED_X64,
      executable: { flags: [], libs: ["-lpthread"] },
    },
  },
  /** Debian has no aarch64 musl cross toolchain: static glibc, and a linker warning fails the build. */
  "linux-arm64": {
    os: "linux",
    cc: "aarch64-linux-gnu-gcc",
    flags: [],
    kinds: {
      static: { flags: ["-static", "-Wl,--fatal-warnings"], libs: ["-lpthread"] },
      shared: GLIBC_SHARED,
      executable: { flags: [], libs: ["-lpthread"] },
    },
  },
  /** The dylib exports nothing (dyld reads its interpose table): without --no-gc-sections zig's linker drops it. */
  darwin: {
    os: "darwin",
    cc: "zig",
    flags: [],
    kinds: {
      shared: { flags: ["-shared", "-fvisibility=hidden", "-Wl,--no-gc-sections"], libs: [] },
      executable: { flags: [], libs: [] },
    },
  },
  /** Static libgcc (nothing beyond kernel32, ntdll, msvcrt), stripped, no time stamp: the same bytes every build. */
  "win32-x64": {
    os: "windows",
    cc: "x86_64-w64-mingw32-gcc",
    flags: ["-static-libgcc", "-s", "-Wl,--no-insert-timestamp"],
    kinds: {
      shared: { flags: ["-shared"], libs: [] },
      executable: { flags: [], libs: [] },
    },
  },
} as const satisfies Record<string, Toolchain>;

/** The units a toolchain builds: those written for its OS. */
export function unitsFor(toolchain: Toolchain): NativeUnit[] {
  return NATIVE_UNITS.filter((unit) => unit.os === toolchain.os);
}

/** One unit by name. */
export function unitNamed(name: string): NativeUnit {
  const unit = NATIVE_UNITS.find((u) => u.name === name);
  if (!unit) throw new Error(`no native unit ${name}`);
  return unit;
}

/**
 * The compiler and its arguments for one unit: C_FLAGS, `extra` (before the toolchain's own:
 * $XBENCH_CFLAGS, a target triple), the toolchain's and the kind's flags, the sources under
 * `root`, the libraries.
 */
export function compileCommand(
  toolchain: Toolchain,
  unit: NativeUnit,
  options: { root: string; out: string; extra?: string[] },
): { cc: string; args: string[] } {
  const link = toolchain.kinds[unit.kind];
  if (!link) throw new Error(`${unit.name}: the ${toolchain.os} toolchain builds no ${unit.kind} unit`);
  const args = [
    ...C_FLAGS,
    ...(options.extra ?? []),
    ...unitIncludeFlags(unit, options.root),
    ...toolchain.flags,
    ...link.flags,
    "-o",
    options.out,
    ...unit.sources.map((s) => join(options.root, s)),
    ...link.libs,
    ...(unit.libs ?? []),
  ];
  return { cc: link.cc ?? toolchain.cc, args };
}
