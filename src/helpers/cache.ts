import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "pathe";
import { VERSION } from "../version.ts";

/** A helper file shipped inside the compiled binary. */
export interface EmbeddedFile {
  /** Where Bun's virtual file system serves it from. */
  path: string;
  sha256: string;
  /** Bytes: a start-up checks an extracted copy by its size alone (see extractEmbedded). */
  size: number;
}

/** What build.ts registers on globalThis before the CLI starts (compiled binary only). */
export interface EmbeddedHelpers {
  /** Undefined on targets with no native helpers yet. */
  platform?: string;
  /** 12 hex digits of a hash over every file's sha256: names the cache folder of this content. */
  id: string;
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

/** Loaded on first use: node:crypto costs ~2 ms of start-up, and only an extraction hashes. */
export function sha256(bytes: Uint8Array): string {
  const crypto = process.getBuiltinModule("node:crypto") as typeof import("node:crypto");
  return crypto.createHash("sha256").update(bytes).digest("hex");
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
  const tmp = `${dest}.${process.pid}.${Math.random().toString(16).slice(2, 10)}.tmp`;
  try {
    writeFileSync(tmp, bytes, { mode, flag: "wx" });
    chmodSync(tmp, mode);
    renameSync(tmp, dest);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** `<cache>/<version>/<platform>-<id>`: one folder per content, so two builds of one version never share one. */
export function extractedDir(embedded: EmbeddedHelpers & { platform: string }, root = cacheRoot()): string {
  return join(root, VERSION, `${embedded.platform}-${embedded.id}`);
}

function extractOne(dir: string, name: string, file: EmbeddedFile): void {
  const dest = join(dir, name);
  const bytes = new Uint8Array(readFileSync(file.path));
  if (sha256(bytes) !== file.sha256) throw new Error(`embedded helper ${name} is corrupt; rebuild xbench`);
  installAtomically(dest, bytes, 0o755);
  if (!matches(dest, file.sha256)) throw new Error(`could not install helper ${name} into ${dir}`);
}

/**
 * Extracts the embedded helpers into their folder (extractedDir) where missing, and returns it.
 * By default an extracted file is trusted when its size is right: files arrive only by an
 * atomic rename of a verified copy into a folder named by their content, and hashing them all
 * on every start would cost more than tracing a short command. `verify` re-hashes each one and
 * re-extracts any that differ (`xbench helpers` does). `only`: these files alone are checked.
 */
export function extractEmbedded(
  embedded: EmbeddedHelpers & { platform: string },
  root = cacheRoot(),
  verify = false,
  only?: readonly string[],
): string {
  const dir = extractedDir(embedded, root);
  for (const [name, file] of Object.entries(embedded.files)) {
    if (only && !only.includes(name)) continue;
    const dest = join(dir, name);
    const ok = verify ? matches(dest, file.sha256) : statSync(dest, { throwIfNoEntry: false })?.size === file.size;
    if (ok) continue;
    mkdirSync(dir, { recursive: true });
    extractOne(dir, name, file);
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
