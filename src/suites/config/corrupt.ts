import { copyFileSync, constants, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Copies a corrupt config file to `config.json.corrupt-<timestamp>` before anything can
 * overwrite it. Once per corrupt version: `done` remembers the stat keys already saved,
 * and COPYFILE_EXCL never clobbers an earlier backup. Returns the backup path, or null
 * when this version was already backed up or the copy failed (the edit is refused anyway).
 */
export function backupCorruptFile(path: string, statKey: string | null, done: Set<string>, now = new Date()): string | null {
  if (statKey !== null && done.has(statKey)) return null;
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  const target = `${path}.corrupt-${stamp}`;
  try {
    copyFileSync(path, target, constants.COPYFILE_EXCL);
  } catch {
    return null;
  }
  if (statKey !== null) done.add(statKey);
  return target;
}

/** The corrupt-file backups beside `path`, oldest first. */
export function corruptBackups(path: string): string[] {
  const prefix = `${basename(path)}.corrupt-`;
  return readdirSync(dirname(path))
    .filter((name) => name.startsWith(prefix))
    .sort()
    .map((name) => join(dirname(path), name));
}
