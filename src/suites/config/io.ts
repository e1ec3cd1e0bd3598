import { closeSync, fstatSync, openSync, readFileSync, renameSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { currentIdentity, identityOf, type FileIdentity } from "./stat-key.ts";

/**
 * Every file operation the store performs, in one replaceable object, so tests can make a
 * single read or save fail (EIO, ENOSPC) without touching the real file system.
 * Only node:fs APIs that Node 20, Bun and Deno all implement.
 */
export interface StoreIo {
  /** The bytes and the identity of the very inode they came from (fstat on the open fd). */
  readFile(path: string): { text: string; identity: FileIdentity };
  stat(path: string): FileIdentity | null;
  /** Creates `tempPath` exclusively, writes, sets `mode`, fsyncs; returns the fsynced identity. */
  writeTemp(tempPath: string, text: string, mode: number): Promise<FileIdentity>;
  rename(from: string, to: string): void;
  /** Makes a rename durable; best effort (some platforms cannot open a folder). */
  syncDir(dir: string): Promise<void>;
  remove(path: string): void;
}

export const nodeIo: StoreIo = {
  readFile(path) {
    const fd = openSync(path, "r");
    try {
      const identity = identityOf(fstatSync(fd, { bigint: true }));
      return { text: readFileSync(fd, "utf8"), identity };
    } finally {
      closeSync(fd);
    }
  },
  stat: currentIdentity,
  async writeTemp(tempPath, text, mode) {
    const handle = await open(tempPath, "wx", mode);
    try {
      await handle.writeFile(text, "utf8");
      // open() applies the umask; chmod gives the temp file exactly the old file's mode.
      await handle.chmod(mode);
      await handle.sync();
      return identityOf(await handle.stat({ bigint: true }));
    } finally {
      await handle.close();
    }
  },
  rename: renameSync,
  async syncDir(dir) {
    try {
      const handle = await open(dir, "r");
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch {
      // Windows and some file systems refuse; the rename is still atomic, only less durable.
    }
  },
  remove(path) {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  },
};
