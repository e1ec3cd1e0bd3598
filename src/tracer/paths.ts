/** Turning recorded (raw, possibly relative) paths into absolute ones, in the parent. */
import { realpathSync } from "node:fs";

const SLASH = 0x2f;
const DOT = 0x2e;

/** A folder's real path (every symlink in it followed), or undefined when it cannot be had. */
export type RealPath = (path: Buffer) => Buffer | undefined;

/** realpath(3) of `path` as the file system is now. */
export const realPathNow: RealPath = (path) => {
  try {
    return realpathSync.native(path, { encoding: "buffer" });
  } catch {
    return undefined;
  }
};

/** realPathNow, remembering each answer (for one reading of a trace). */
export function cachedRealPath(real: RealPath = realPathNow): RealPath {
  const seen = new Map<string, Buffer | undefined>();
  return (path) => {
    const key = path.toString("latin1");
    if (seen.has(key)) return seen.get(key);
    const out = real(path);
    seen.set(key, out);
    return out;
  };
}

/**
 * Joins `path` onto `base` when relative and normalizes `.` and repeated slashes. `..` is taken
 * as the kernel takes it: the parent of the folder the path before it names, symlinks followed
 * (with `l -> sub/deep`, `l/../x` is `sub/x`), looked up through `real` when the trace is read;
 * where that lookup fails (the folder is gone, or never was) it drops the name before it, as
 * text. Other symlinks stay as the program named them. `base` (a cwd or a dirfd's folder, as the
 * kernel names them) has none. Works on bytes, so names that are not UTF-8 survive intact.
 */
export function canonicalize(base: Buffer, path: Buffer, real: RealPath = realPathNow): Buffer {
  const relative = path[0] !== SLASH && base.length > 0;
  const full = relative ? joined(base, path) : path;
  if (full[0] === SLASH && isNormal(full)) return full;
  let parts: Buffer[] = [];
  /** How many leading parts are known to name a real folder (no symlink among them). */
  let realUpTo = relative ? segments(base).length : 0;
  for (const seg of segments(full)) {
    if (seg.length === 1 && seg[0] === DOT) continue;
    if (seg.length === 2 && seg[0] === DOT && seg[1] === DOT) {
      const resolved = full[0] === SLASH && parts.length > realUpTo ? real(joinAbsolute(parts)) : undefined;
      if (resolved) parts = segments(resolved);
      parts.pop();
      realUpTo = resolved ? parts.length : Math.min(realUpTo, parts.length);
      continue;
    }
    parts.push(seg);
  }
  if (full[0] !== SLASH && parts.length > 0) return Buffer.concat(parts.flatMap((p, i) => (i ? [Buffer.from("/"), p] : [p])));
  return joinAbsolute(parts);
}

/** The non-empty segments of a path. */
function segments(p: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= p.length; i++) {
    if (i < p.length && p[i] !== SLASH) continue;
    if (i > start) out.push(p.subarray(start, i));
    start = i + 1;
  }
  return out;
}

function joinAbsolute(parts: Buffer[]): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) out.push(Buffer.from("/"), p);
  return out.length ? Buffer.concat(out) : Buffer.from("/");
}

function joined(base: Buffer, path: Buffer): Buffer {
  const out = Buffer.allocUnsafe(base.length + 1 + path.length);
  base.copy(out, 0);
  out[base.length] = SLASH;
  path.copy(out, base.length + 1);
  return out;
}

const DOUBLE = Buffer.from("//");
const SLASH_DOT = Buffer.from("/.");

/** No empty, `.` or `..` segment and no trailing slash: the common case, checked natively. */
function isNormal(p: Buffer): boolean {
  if (p.length > 1 && p[p.length - 1] === SLASH) return false;
  if (p.includes(DOUBLE)) return false;
  for (let i = p.indexOf(SLASH_DOT); i >= 0; i = p.indexOf(SLASH_DOT, i + 2)) {
    const a = p[i + 2];
    if (a === undefined || a === SLASH || (a === DOT && (p[i + 3] === undefined || p[i + 3] === SLASH))) return false;
  }
  return true;
}

/** Made on first use: most paths are ASCII, and a TextDecoder costs start-up (`xbench trace -- true`). */
let decoders: { strict: TextDecoder; lossy: TextDecoder } | undefined;

/** The path as a string; `hex` holds the exact bytes when they are not valid UTF-8. */
export function displayPath(bytes: Buffer): { path: string; hex?: string } {
  if (isAscii(bytes)) return { path: bytes.toString("latin1") };
  decoders ??= { strict: new TextDecoder("utf-8", { fatal: true }), lossy: new TextDecoder("utf-8", { fatal: false }) };
  try {
    return { path: decoders.strict.decode(bytes) };
  } catch {
    return { path: decoders.lossy.decode(bytes), hex: bytes.toString("hex") };
  }
}

function isAscii(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}
