/**
 * The least a Bun program can do to trace `true`, the floor `xbench trace -- true` is held to
 * (bench/startup.ts, bench/trace-cost.ts): load node:fs, spawn the supervisor with Bun.spawn,
 * read the whole log back, remove it, write one line. What xbench adds past this is its own
 * code; what this adds past a Bun hello and the supervisor is the runtime's.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "pathe";

/** Compiles the floor program into `dir` (as build.ts compiles xbench) for `supervisor`; its path. */
export function buildMinimalTracer(dir: string, supervisor: string): string {
  const source = join(dir, "minimal.ts");
  const out = join(dir, "minimal");
  writeFileSync(
    source,
    `import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
const dir = mkdtempSync("/dev/shm/xbench-minimal-");
const child = Bun.spawn([${JSON.stringify(supervisor)}, "--log", dir + "/t.log", "--", "true"], { stdio: ["inherit", "inherit", "inherit"] });
await child.exited;
const fd = openSync(dir + "/t.log", "r");
const head = Buffer.allocUnsafe(4096);
readSync(fd, head, 0, 4096, 0);
const tail = Number(head.readBigUInt64LE(24));
const body = Buffer.allocUnsafe(Math.max(1, tail - 4096));
readSync(fd, body, 0, body.length, 4096);
closeSync(fd);
rmSync(dir, { recursive: true, force: true });
writeSync(2, "read " + tail + " bytes\\n");
`,
  );
  const r = spawnSync(process.execPath, ["build", "--compile", "--minify", "--bytecode", "--format=esm", "--outfile", out, source], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (r.status !== 0) throw new Error("bun build --compile of the minimal tracer failed");
  return out;
}
