/** 100,000 distinct files: every one recorded, the supervisor's memory bounded. */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { realpathSync, mkdirSync, rmSync } from "node:fs";
import { join } from "pathe";
import { tempDir } from "../support/xbench.ts";
import { compile, fixture, SUPERVISOR } from "../support/trace.ts";
import { readAccessLog } from "../../src/tracer/index.ts";

const tmp = tempDir("xbench-trace-scale-");
const dir = realpathSync(tmp.dir);
afterAll(tmp.cleanup);
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
  }, 120_000);
});
