/** Turning recorded (raw, possibly relative) paths into absolute ones, in the parent. */

const SLASH = 0x2f;
const DOT = 0x2e;

/**
 * Joins `path` onto `base` when relative and normalizes `.`, `..` and repeated slashes,
 * lexically (symlinks are not resolved: the file may be gone, and the path the program used
 * is what it depends on). Works on bytes, so names that are not UTF-8 survive intact.
 */
export function canonicalize(base: Buffer, path: Buffer): Buffer {
  const full = path[0] === SLASH || base.length === 0 ? path : joined(base, path);
  if (full[0] === SLASH && isNormal(full)) return full;
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= full.length; i++) {
    if (i < full.length && full[i] !== SLASH) continue;
    const seg = full.subarray(start, i);
    start = i + 1;
    if (seg.length === 0 || (seg.length === 1 && seg[0] === DOT)) continue;
    if (seg.length === 2 && seg[0] === DOT && seg[1] === DOT) {
      parts.pop();
      continue;
    }
    parts.push(seg);
  }
  if (full[0] !== SLASH && parts.length > 0) return Buffer.concat(parts.flatMap((p, i) => (i ? [Buffer.from("/"), p] : [p])));
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

const decoder = new TextDecoder("utf-8", { fatal: true });
const lossy = new TextDecoder("utf-8", { fatal: false });

/** The path as a string; `hex` holds the exact bytes when they are not valid UTF-8. */
export function displayPath(bytes: Buffer): { path: string; hex?: string } {
  try {
    return { path: decoder.decode(bytes) };
  } catch {
    return { path: lossy.decode(bytes), hex: bytes.toString("hex") };
  }
}
