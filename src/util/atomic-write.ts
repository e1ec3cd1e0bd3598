/**
 * Writing a file whole or not at all: the text goes to a temporary file beside the target,
 * is flushed to disk, then renamed over the target. A failure on the way (a full disk, a
 * quota) removes the temporary file and leaves the previous file exactly as it was.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fchmodSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "pathe";

/** The errors a write can meet that are the disk's, not xbench's, in words. */
const IO_REASONS: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EIO: "input/output error",
  EFBIG: "file too large",
};

/** `no space left on device (ENOSPC)` for an error with a code, else undefined. */
export function ioReason(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!code) return undefined;
  const words = IO_REASONS[code] ?? (error as Error).message.split(",")[0]!.replace(/^[A-Z]+: /, "");
  return `${words} (${code})`;
}

/** Whether a failure of `error` means the disk is full, so freeing space is the way on. */
export function diskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

/** The file to replace: a symbolic link's target, so the link stays a link. */
function existing(path: string): { real: string; mode?: number; regular: boolean } {
  try {
    const real = realpathSync(path);
    const stat = statSync(real);
    return { real, mode: stat.mode & 0o7777, regular: stat.isFile() };
  } catch {
    return { real: path, regular: true };
  }
}

/**
 * Replaces `path` with `data` in one step. A device or a pipe (`/dev/stdout`) cannot be
 * replaced, so it is written in place. The new file keeps the old one's permissions.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const target = existing(path);
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  if (!target.regular) {
    const fd = openSync(target.real, "w");
    try {
      writeAll(fd, bytes);
    } finally {
      closeSync(fd);
    }
    return;
  }
  const temp = join(dirname(target.real), `.${basename(target.real)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, "wx", 0o666);
    if (target.mode !== undefined) fchmodSync(fd, target.mode);
    writeAll(fd, bytes);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target.real);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    rmSync(temp, { force: true });
    throw error;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // the write's own error is the one to tell
  }
}
