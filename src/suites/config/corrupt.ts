import { createHash } from "node:crypto";
import { existsSync, linkSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { tempName } from "./temp.ts";

/** The backup of corrupt bytes: named by their content, so every process picks the same name. */
export function backupPath(path: string, bytes: Uint8Array): string {
  return `${path}.corrupt-${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}`;
}

/**
 * Copies a corrupt config file to `config.json.corrupt-<content hash>` before anything can
 * overwrite it: once per distinct corrupt content, across processes and restarts, as the name
 * is the content's. The copy is written to a temp file and linked into place, so a backup is
 * never partial and never clobbered. `done` remembers the stat keys this store already
 * handled, so a reader on every turn does not re-read a large corrupt file. Returns the backup
 * path, or null when this content was already backed up or the copy failed (the edit is
 * refused anyway).
 */
export function backupCorruptFile(path: string, statKey: string | null, done: Set<string>): string | null {
  if (statKey !== null && done.has(statKey)) return null;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  const target = backupPath(path, bytes);
  if (statKey !== null) done.add(statKey);
  if (existsSync(target)) return null;
  const temp = tempName(target);
  try {
    writeFileSync(temp, bytes, { flag: "wx" });
    try {
      linkSync(temp, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return null; // another process, same content
      renameSync(temp, target); // no hard links here: same bytes either way
    }
    return target;
  } catch {
    return null;
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // renamed, or never written
    }
  }
}

/** The corrupt-file backups beside `path`, oldest first. */
export function corruptBackups(path: string): string[] {
  const prefix = `${basename(path)}.corrupt-`;
  return readdirSync(dirname(path))
    .filter((name) => name.startsWith(prefix) && !name.includes(".tmp-"))
    .map((name) => join(dirname(path), name))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
}
