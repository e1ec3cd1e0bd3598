import { closeSync, existsSync, openSync, readSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "pathe";

/**
 * The Bun that xbench's npm package depends on (`bun`, whose per-platform optional package
 * `@oven/bun-<os>-<arch>` carries the executable, as esbuild's and biome's do). Found from
 * xbench's own location, so it works whatever the project has installed and whether or not
 * npm ran bun's postinstall script (which moves the executable into `bun/bin/bun.exe`).
 */
export function packagedBun(from: string = import.meta.url): string | undefined {
  let bunPackage: string;
  try {
    bunPackage = dirname(createRequire(from).resolve("bun/package.json"));
  } catch {
    return undefined; // not installed from npm (the binary, a checkout without node_modules)
  }
  const names = [`@oven/bun-${platformName()}`, `@oven/bun-${platformName()}-baseline`];
  for (const name of names) {
    try {
      const dir = dirname(createRequire(join(bunPackage, "package.json")).resolve(`${name}/package.json`));
      const file = join(dir, "bin", process.platform === "win32" ? "bun.exe" : "bun");
      if (existsSync(file)) return file;
    } catch {
      // That platform package is not installed.
    }
  }
  // After the postinstall script the executable sits in bun's own bin/; before it, a stub does.
  const moved = join(bunPackage, "bin", "bun.exe");
  return isExecutableImage(moved) ? moved : undefined;
}

/**
 * The `bun/bin/bun.exe` placeholder npm links into node_modules/.bin when bun's postinstall
 * script did not run (`--ignore-scripts`, or scripts of dependencies blocked): not a Bun to run.
 */
export function isBunPlaceholder(file: string): boolean {
  try {
    const real = realpathSync(file);
    return /[\\/]bun[\\/]bin[\\/]bun\.exe$/.test(real) && !isExecutableImage(real);
  } catch {
    return false;
  }
}

/** Bun's names for this platform: linux-x64, linux-x64-musl, darwin-aarch64, windows-x64. */
function platformName(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const arch = process.arch === "arm64" ? "aarch64" : process.arch;
  return `${os}-${arch}${os === "linux" && isMusl() ? "-musl" : ""}`;
}

function isMusl(): boolean {
  const report = (process as { report?: { getReport?: () => { header?: { glibcVersionRuntime?: string } } } }).report;
  return !!report?.getReport && !report.getReport().header?.glibcVersionRuntime;
}

/** An ELF, Mach-O or PE file, not a placeholder script. */
function isExecutableImage(file: string): boolean {
  if (!existsSync(file)) return false;
  const head = Buffer.alloc(4);
  const fd = openSync(file, "r");
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  const magic = head.readUInt32BE(0);
  return magic === 0x7f454c46 || head.readUInt16LE(0) === 0x5a4d || [0xcffaedfe, 0xcefaedfe, 0xfeedfacf].includes(magic);
}
