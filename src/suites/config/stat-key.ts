import { statSync, type BigIntStats } from "node:fs";

/**
 * The identity of one version of a file: device, inode, size, mtime and ctime in
 * nanoseconds. An atomic replacement changes the inode even when size and mtime are
 * equal; ctime changes on rename and chmod too, which covers an inode number reused by
 * the next temp file. The known limit: an in-place rewrite keeping all five is invisible.
 */
export type StatKey = string & { readonly __statKey: unique symbol };

export interface FileIdentity {
  key: StatKey;
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  mode: number;
}

export function identityOf(stats: BigIntStats): FileIdentity {
  return {
    key: `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}` as StatKey,
    dev: stats.dev,
    ino: stats.ino,
    size: stats.size,
    mtimeNs: stats.mtimeNs,
    mode: Number(stats.mode & 0o7777n),
  };
}

/** The file's current identity, or null when it cannot be stat'ed (a miss, never a hit). */
export function currentIdentity(path: string): FileIdentity | null {
  try {
    return identityOf(statSync(path, { bigint: true }));
  } catch {
    return null;
  }
}

/**
 * True when `after` is the very inode `written` described, with its size and mtime:
 * the bytes we fsynced are what the path holds. ctime is left out on purpose: the
 * rename itself updates it.
 */
export function sameWrittenFile(written: FileIdentity, after: FileIdentity): boolean {
  return written.dev === after.dev && written.ino === after.ino && written.size === after.size && written.mtimeNs === after.mtimeNs;
}
