import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "pathe";
import { XbenchError } from "../errors.ts";
import { VERSION } from "../version.ts";

/** A helper file shipped inside the compiled binary. */
export interface EmbeddedFile {
  /** Where Bun's virtual file system serves it from. */
  path: string;
  sha256: string;
  /** Bytes: a copy of another size is replaced without being hashed. */
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

/**
 * sha256 of `bytes` in hex. Bun's own hasher where there is one (the compiled binary: no module
 * to load at start-up); node:crypto, loaded on first use (~2 ms), elsewhere.
 */
export function sha256(bytes: Uint8Array): string {
  const bun = (globalThis as { Bun?: { CryptoHasher: new (algorithm: string) => CryptoHasherLike } }).Bun;
  if (bun) return new bun.CryptoHasher("sha256").update(bytes).digest("hex");
  const crypto = process.getBuiltinModule("node:crypto") as typeof import("node:crypto");
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

interface CryptoHasherLike {
  update(bytes: Uint8Array): CryptoHasherLike;
  digest(encoding: "hex"): string;
}

/**
 * A cache folder xbench will not run helpers from: another user's, writable by others, or a
 * link planted where xbench keeps its own folders (docs/platforms.md, "The helper cache").
 */
export class HelperCacheError extends XbenchError {
  override name = "HelperCacheError";
}

const myUid = () => process.getuid?.();

/**
 * Why a folder or file cannot be trusted to hold what xbench runs, or undefined: it must be the
 * user's own and writable by no one else (group-writable only for the user's own group).
 */
function untrusted(stat: Stats): string | undefined {
  const uid = myUid();
  if (uid === undefined) return undefined; // Windows: no owners or modes to read
  if (stat.uid !== uid) return `owned by uid ${stat.uid}, not by this user (uid ${uid})`;
  const mode = stat.mode & 0o777;
  if (mode & 0o002 || (mode & 0o020 && stat.gid !== process.getgid?.()))
    return `writable by other users (mode ${mode.toString(8).padStart(3, "0")})`;
  return undefined;
}

/** An I/O failure of the cache (a file where a folder should be, read-only, full): the reason, else undefined. */
function cacheIoReason(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ? `${(error as Error).message.split(",")[0]}` : undefined;
}

/**
 * The folders from the cache root down to `dir`, checked and made (private) where missing. The
 * root may be a link the user made (its own), every folder below it is one xbench made, never a
 * link. Throws HelperCacheError for an unsafe folder, the I/O error for an unusable one.
 */
function safeFolders(root: string, dir: string): void {
  const below = dir.slice(root.length).split("/").filter(Boolean);
  let at = root;
  for (let i = -1; i < below.length; i++) {
    if (i >= 0) at = join(at, below[i]!);
    let stat = lstatSync(at, { throwIfNoEntry: false });
    if (!stat) {
      mkdirSync(at, { recursive: true, mode: 0o700 });
      stat = lstatSync(at);
    }
    if (stat.isSymbolicLink()) {
      const link = i < 0 ? untrusted(stat) : "a symbolic link";
      if (link) throw new HelperCacheError(unsafeLine(at, link === "a symbolic link" ? link : `a link ${link}`));
      stat = statSync(at);
    }
    if (!stat.isDirectory()) {
      throw Object.assign(new Error(`${at} is not a folder`), { code: "ENOTDIR" });
    }
    const why = untrusted(stat);
    if (why) throw new HelperCacheError(unsafeLine(at, why));
  }
}

function unsafeLine(path: string, why: string): string {
  return `the helper cache ${path} is ${why}: xbench does not run helpers from it; remove it, or set XBENCH_CACHE_DIR to a folder of your own (docs/platforms.md)`;
}

/**
 * Whether `file` is a regular file (not a link) of this user's that no one else can write,
 * holding exactly the bytes the binary carries: checked before every first use in a process.
 */
function intact(file: string, expected: EmbeddedFile): boolean {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size !== expected.size || untrusted(stat)) return false;
  try {
    return sha256(readFileSync(file)) === expected.sha256;
  } catch {
    return false;
  }
}

/**
 * Writes `bytes` to `dest` so that no reader ever sees a partial file: a private temp file
 * in the same folder, then rename (which replaces a link or a tampered file at `dest`, never
 * writing through it). Two first runs at once both rename a complete copy.
 */
function installAtomically(dest: string, bytes: Uint8Array, mode: number): void {
  const tmp = `${dest}.${process.pid}.${Math.random().toString(16).slice(2, 10)}.tmp`;
  try {
    writeFileSync(tmp, bytes, { mode: 0o600, flag: "wx" });
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
  if (!intact(dest, file)) throw new Error(`could not install helper ${name} into ${dir}`);
}

/** Files checked in this process: each is hashed once before its first use, not at every call. */
const checked = new Set<string>();

/** Why the cache could not be used and where the helpers went instead, said once by the command. */
let fallback: { dir: string; why: string; said: boolean } | undefined;

/**
 * A private folder of this process's own, removed when it exits: where the helpers go when the
 * cache cannot take them, so that compare still runs its bench processes under the reaper.
 */
function fallbackDir(root: string, why: string): string {
  if (fallback) return fallback.dir;
  const dir = mkdtempSync(join(tmpdir(), "xbench-helpers-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  fallback = { dir, why: `the helper cache ${root} cannot be used (${why}): helpers run from ${dir} for this run`, said: false };
  return dir;
}

/** The line saying the cache could not be used, the first time it is asked after that happened; else undefined. */
export function helperCacheNotice(): string | undefined {
  if (!fallback || fallback.said) return undefined;
  fallback.said = true;
  return fallback.why;
}

/**
 * Extracts the embedded helpers into their folder (extractedDir) where missing, and returns it.
 * Every file is checked before this process first runs it: a regular file of the user's, that
 * no one else can write, with the sha256 the binary carries; any other is replaced by a fresh
 * copy. The folders must be the user's own, not links, writable by no one else: a cache that is
 * not is refused (HelperCacheError), and one that cannot be written (a file, read-only, full)
 * gives way to a private temp folder for this process (helperCacheNotice says so).
 * `verify` checks again files already checked (`xbench helpers`). `only`: these files alone.
 */
export function extractEmbedded(
  embedded: EmbeddedHelpers & { platform: string },
  root = cacheRoot(),
  verify = false,
  only?: readonly string[],
): string {
  if (fallback) return extractInto(fallback.dir, embedded, verify, only);
  const dir = extractedDir(embedded, root);
  try {
    safeFolders(root, dir);
    return extractInto(dir, embedded, verify, only);
  } catch (error) {
    if (error instanceof HelperCacheError) throw error;
    const why = cacheIoReason(error);
    if (!why) throw error;
    try {
      return extractInto(fallbackDir(root, why), embedded, verify, only);
    } catch (second) {
      const also = cacheIoReason(second);
      if (!also) throw second;
      throw new XbenchError(`cannot extract xbench's helpers: the cache ${root}: ${why}; TMPDIR (${tmpdir()}): ${also}`);
    }
  }
}

function extractInto(dir: string, embedded: EmbeddedHelpers, verify: boolean, only?: readonly string[]): string {
  for (const [name, file] of Object.entries(embedded.files)) {
    if (only && !only.includes(name)) continue;
    const dest = join(dir, name);
    if (!verify && checked.has(dest)) continue;
    if (!intact(dest, file)) extractOne(dir, name, file);
    checked.add(dest);
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
