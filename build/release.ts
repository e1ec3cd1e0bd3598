/**
 * Release archives for `bun build.ts --release`: one `xbench-<version>-<target>.tar.gz` (a
 * `.zip` for Windows) per target, each holding a folder with the binary, README.md and
 * LICENSE, and a SHA256SUMS file in `sha256sum` format that install.sh checks against.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { basename, join } from "pathe";

/** What goes into every archive beside the binary. */
export const RELEASE_DOCS = ["README.md", "LICENSE"] as const;

export function archiveName(version: string, target: string): string {
  return `xbench-${version}-${target}${target.startsWith("windows") ? ".zip" : ".tar.gz"}`;
}

/** `<hex>  <file>` per archive, sorted by name: what `sha256sum -c` reads. */
export function sha256Sums(files: readonly string[]): string {
  return [...files]
    .sort((a, b) => basename(a).localeCompare(basename(b)))
    .map((file) => `${createHash("sha256").update(readFileSync(file)).digest("hex")}  ${basename(file)}\n`)
    .join("");
}

function tool(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.error) throw new Error(`${cmd} not found (${r.error.message}); install it to build release archives`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed:\n${r.stderr}`);
}

/**
 * Writes the archive of one target into `outDir` from its built `binary` and the docs in
 * `root`; the folder inside is named like the archive, so unpacking never litters.
 */
export function writeArchive(options: { root: string; outDir: string; version: string; target: string; binary: string }): string {
  const { root, outDir, version, target, binary } = options;
  const name = archiveName(version, target);
  const folder = name.replace(/\.(tar\.gz|zip)$/, "");
  const staging = join(outDir, ".staging");
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(join(staging, folder), { recursive: true });
  copyFileSync(binary, join(staging, folder, basename(binary)));
  for (const doc of RELEASE_DOCS) {
    if (!existsSync(join(root, doc))) throw new Error(`${doc} is missing; every release archive carries it`);
    copyFileSync(join(root, doc), join(staging, folder, doc));
  }
  const out = join(outDir, name);
  rmSync(out, { force: true });
  if (name.endsWith(".zip")) tool("zip", ["-q", "-r", "-X", out, folder], staging);
  else tool("tar", ["--owner=0", "--group=0", "--numeric-owner", "-czf", out, folder], staging);
  rmSync(staging, { recursive: true, force: true });
  return out;
}

/** Clears `outDir`, archives every built target, writes SHA256SUMS; returns the archives. */
export function writeRelease(options: { root: string; outDir: string; version: string; binaries: Record<string, string> }): string[] {
  rmSync(options.outDir, { recursive: true, force: true });
  mkdirSync(options.outDir, { recursive: true });
  const archives = Object.entries(options.binaries).map(([target, binary]) =>
    writeArchive({ root: options.root, outDir: options.outDir, version: options.version, target, binary }),
  );
  writeFileSync(join(options.outDir, "SHA256SUMS"), sha256Sums(archives));
  return archives;
}
