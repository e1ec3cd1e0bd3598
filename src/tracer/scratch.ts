import { accessSync, constants, statfsSync } from "node:fs";
import { tmpdir } from "node:os";

/** Shared memory, where the record log costs no file-system work per launch. */
const SHM = "/dev/shm";

/** Room the log may grow into: its default capacity (native/common/log.h) with a margin. */
const LOG_ROOM = 2 * 2 ** 30;

/**
 * Where trace logs go: /dev/shm when it is writable and has room for a full log (a page
 * fault past a full tmpfs would kill the traced program with SIGBUS), else the temp folder.
 * Measured here: a tracked launch costs ~2.7 ms less with its log in tmpfs than on ext4.
 */
export function traceScratchRoot(shm = SHM, room = LOG_ROOM, platform: NodeJS.Platform = process.platform): string {
  // Windows has no /dev/shm (under wine the path even resolves, to a Linux folder on Z:).
  if (platform === "win32") return tmpdir();
  try {
    accessSync(shm, constants.W_OK);
    const fs = statfsSync(shm);
    if (fs.bavail * fs.bsize >= room) return shm;
  } catch {
    // No /dev/shm (or not ours): fall through.
  }
  return tmpdir();
}
