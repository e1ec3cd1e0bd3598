import { writeSync } from "node:fs";

/**
 * Writes `text` straight to stdout (1) or stderr (2). Creating Bun's process.stdout or
 * process.stderr stream costs 3-8 ms of start-up, more than tracing `true` takes, so the fast
 * paths (`--version`, `trace`) write this way. A short or failed write (a full non-blocking
 * pipe) hands the rest to the stream, which waits for room.
 */
export function writeDirect(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) {
      const n = writeSync(fd, bytes, done);
      if (n <= 0) break;
      done += n;
    }
  } catch {
    // EAGAIN and the like: the stream below copes.
  }
  if (done < bytes.length) (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(done));
}
