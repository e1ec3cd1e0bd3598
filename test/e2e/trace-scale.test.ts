/** 100,000 distinct files: every one recorded, the supervisor's memory bounded. */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { join } from "pathe";
import { compile, fixture, SUPERVISOR } from "../support/trace.ts";
import { readAccessLog } from "../../src/tracer/index.ts";
import { traceScratchRoot } from "../../src/tracer/scratch.ts";

// The files and the log go where xbench puts its logs, shared memory when there is one. Making
// 100,000 files on this machine's ext4 beside two CPU hogs took 20-92 s untraced (journal and
// writeback), 5-8 s in /dev/shm: that wait is the disk's, and it made the 120 s limit fail one
// run in a few under load.
const dir = realpathSync(mkdtempSync(join(traceScratchRoot(), "xbench-trace-scale-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const many = join(dir, "many");
compile("gcc", ["-O2", "-o", many, fixture("many.c")]);
const N = 100_000;

describe.each(["seccomp", "auto"])("backend %s", (backend) => {
  test(`${N} files with 200-byte names: all recorded, supervisor RSS bounded`, () => {
    const files = join(dir, `files-${backend}`);
    mkdirSync(files);
    const log = join(dir, `log-${backend}`);
    const r = spawnSync(SUPERVISOR, ["--backend", backend, "--log", log, "--", many, files, String(N)], {
      stdio: "inherit",
      timeout: 120_000,
    });
    expect(r.status).toBe(0);
    const parsed = readAccessLog(log);
    const created = parsed.accesses.filter((a) => a.path.startsWith(`${files}/`) && a.modes.includes("write"));
    expect(created.length).toBe(N);
    expect(parsed.complete).toBe(true);
    // The log holds ~25 MB of records; the supervisor keeps only a window of it mapped.
    expect(parsed.header.tail).toBeGreaterThan(20 * 1024 * 1024);
    expect(parsed.header.supervisorMaxRssKb).toBeGreaterThan(0);
    expect(parsed.header.supervisorMaxRssKb).toBeLessThan(12 * 1024);
    rmSync(files, { recursive: true, force: true });
    rmSync(log, { force: true });
  }, 180_000);
});
