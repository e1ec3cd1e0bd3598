/** Threads and every way of starting children: nothing may go unseen. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { tempDir } from "../support/xbench.ts";
import { compile, fixture, traceRun } from "../support/trace.ts";

const tmp = tempDir("xbench-trace-procs-");
const dir = realpathSync(tmp.dir);
afterAll(tmp.cleanup);

const threads = join(dir, "threads");
const children = join(dir, "children");
compile("gcc", ["-O2", "-pthread", "-o", threads, fixture("threads.c")]);
compile("gcc", ["-O2", "-o", children, fixture("children.c")]);
const files = join(dir, "files");
mkdirSync(files);
for (let t = 0; t < 8; t++) for (let i = 0; i < 1000; i++) writeFileSync(join(files, `t${t}-f${i}`), "");
for (const name of ["fork", "spawn", "vfork", "envi", "pipe-a", "pipe-b"]) writeFileSync(join(dir, name), `${name}\n`);

describe.each(["auto", "seccomp"])("backend %s", (backend) => {
  test("8 threads x 1000 files: all 8000 seen", () => {
    const r = traceRun([threads, files], ["--backend", backend]);
    expect(r.code).toBe(0);
    let seen = 0;
    for (let t = 0; t < 8; t++) for (let i = 0; i < 1000; i++) if (r.modes.get(join(files, `t${t}-f${i}`))?.includes("read")) seen++;
    expect(seen).toBe(8000);
    expect(r.trace.complete).toBe(true);
  });

  test("fork+exec, posix_spawn and vfork children are traced", () => {
    const r = traceRun([children, dir], ["--backend", backend]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("fork\nspawn\nvfork\n");
    for (const name of ["fork", "spawn", "vfork"]) expect(r.modes.get(join(dir, name))).toEqual(["read"]);
  });

  test("an env -i exec chain stays traced", () => {
    const target = join(dir, "envi");
    const r = traceRun(["env", "-i", "/bin/sh", "-c", `env -i /bin/cat ${target}`], ["--backend", backend]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("envi\n");
    expect(r.modes.get(target)).toEqual(["read"]);
  });

  test("a shell pipeline: every stage traced", () => {
    const a = join(dir, "pipe-a");
    const b = join(dir, "pipe-b");
    const r = traceRun(["sh", "-c", `cat ${a} | cat - ${b} | sort | wc -l`], ["--backend", backend]);
    expect(r.stdout.trim()).toBe("2");
    expect(r.modes.get(a)).toEqual(["read"]);
    expect(r.modes.get(b)).toEqual(["read"]);
    expect(r.trace.accesses.some((x) => x.path.endsWith("/sort") && x.modes.includes("exec"))).toBe(true);
    expect(r.trace.accesses.some((x) => x.path.endsWith("/wc") && x.modes.includes("exec"))).toBe(true);
  });
});
