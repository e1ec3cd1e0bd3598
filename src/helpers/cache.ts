import { createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "pathe";
import { VERSION } from "../version.ts";

/** A helper file shipped inside the compiled binary. */
export interface EmbeddedFile {
  /** Where Bun's virtual file system serves it from. */
  path: string;
  sha256: string;
}

/** What build.ts registers on globalThis before the CLI starts (compiled binary only). */
export interface EmbeddedHelpers {
  /** Undefined on targets with no native helpers yet. */
  platform?: string;
  files: Record<string, EmbeddedFile>;
  /** Sources compiled into bench processes, by asset name (see runner/assets.ts). */
  assets?: Record<string, string>;
}

export function embeddedHelpers(): EmbeddedHelpers | undefined {
  return (globalThis as { __XBENCH_EMBEDDED__?: EmbeddedHelpers }).__XBENCH_EMBEDDED__;
}

/** `$XBENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/xbench`, else `~/.cache/xbench`. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XBENCH_CACHE_DIR) return env.XBENCH_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
  return join(xdg, "xbench");
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function matches(file: string, expected: string): boolean {
  try {
    return sha256(readFileSync(file)) === expected;
  } catch {
    return false;
  }
}

/**
 * Writes `bytes` to `dest` so that no reader ever sees a partial file: a private temp file
 * in the same folder, then rename. Two first runs at once both rename a complete copy.
 */
function installAtomically(dest: string, bytes: Uint8Array, mode: number): void {
  const tmp = `${dest}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, bytes, { mode });
    chmodSync(tmp, mode);
    renameSync(tmp, dest);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Extracts the embedded helpers once into `<cache>/<version>/<platform>/`, verifying each
 * file's checksum and re-extracting on mismatch. Returns the folder.
 */
export function extractEmbedded(embedded: EmbeddedHelpers & { platform: string }, root = cacheRoot()): string {
  const dir = join(root, VERSION, embedded.platform);
  mkdirSync(dir, { recursive: true });
  for (const [name, file] of Object.entries(embedded.files)) {
    const dest = join(dir, name);
    if (matches(dest, file.sha256)) continue;
    const bytes = new Uint8Array(readFileSync(file.path));
    if (sha256(bytes) !== file.sha256) throw new Error(`embedded helper ${name} is corrupt; rebuild xbench`);
    installAtomically(dest, bytes, 0o755);
    if (!matches(dest, file.sha256)) throw new Error(`could not install helper ${name} into ${dir}`);
  }
  return dir;
}

/** Looks upward from `start` for `dist/helpers/<platform>` (source checkout) or `helpers/<platform>` (npm). */
export function findHelperDir(start: string, platform: string): string | undefined {
  let dir = start;
  for (let i = 0; i < 5; i++) {
    for (const candidate of [join(dir, "helpers", platform), join(dir, "dist", "helpers", platform)]) {
      if (existsSync(candidate)) return candidate;
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}
