/** Turning recorded (raw, possibly relative) paths into absolute ones, in the parent. */

const SLASH = 0x2f;
const DOT = 0x2e;

/**
 * Joins `path` onto `base` when relative and normalizes `.`, `..` and repeated slashes,
 * lexically (symlinks are not resolved: the file may be gone, and the path the program used
 * is what it depends on). Works on bytes, so names that are not UTF-8 survive intact.
 */
export function canonicalize(base: Buffer, path: Buffer): Buffer {
  const full = path[0] === SLASH || base.length === 0 ? path : Buffer.concat([base, Buffer.from("/"), path]);
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
