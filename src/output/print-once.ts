/**
 * Output of a command that prints one text and ends (`--version`), at the least start-up cost:
 * no static import. In Bun (the compiled binary) `Bun.write` to stdout costs nothing a hello
 * world does not pay, where loading node:fs costs a few milliseconds
 * (docs/measurements.md, "Start-up"); elsewhere node:fs. A closed reader (`| head -0`) is no
 * failure; a stdout that cannot take the text (`> /dev/full`) is one line and status 1, as
 * for every other command (stdout.ts).
 */

interface BunWriter {
  write(destination: unknown, data: string): Promise<number>;
  stdout: unknown;
}

/** Writes all of `text` to stdout; the exit status. */
export async function printOnce(text: string): Promise<number> {
  try {
    const bun = (globalThis as { Bun?: BunWriter }).Bun;
    if (bun) await bun.write(bun.stdout, text);
    else await writeAll(text);
    return 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPIPE") return 0;
    const [{ printError }, { stdoutFailure }] = await Promise.all([import("./errors.ts"), import("./stdout.ts")]);
    printError(stdoutFailure(error));
    return 1;
  }
}

async function writeAll(text: string): Promise<void> {
  const { writeSync } = await import("node:fs");
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) done += writeSync(1, bytes, done);
}
