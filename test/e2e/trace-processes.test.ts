/** Threads and every way of starting children: nothing may go unseen. */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { tempDir, xbenchAsync } from "../support/xbench.ts";
import { compile, fixture, traceRun, type TraceJson } from "../support/trace.ts";

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

/**
 * A daemon that detaches itself (setsid, its parent gone) and waits for a file `go` before it
 * writes `after`. By default the trace waits for it (docs/tracer.md); with --detach-ok the trace
 * ends with the command, says the daemon ran on, and the daemon keeps working untouched (its file
 * calls still served by the filter): the test makes `go` only once xbench has returned.
 */
const DAEMON = 'setsid sh -c "touch ready; while [ ! -e go ]; do sleep 0.05; done; echo done > after" >/dev/null 2>&1 &';

/** Polls until `file` exists (the daemon's progress), for at most 60 s. */
async function appears(file: string): Promise<boolean> {
  for (let i = 0; i < 1200 && !existsSync(file); i++) await Bun.sleep(50);
  return existsSync(file);
}

describe.each(["auto", "seccomp", "preload"])("a detached daemon, backend %s", (backend) => {
  test("trace waits for it by default, and records what it does", async () => {
    const d = join(dir, `wait-${backend}`);
    mkdirSync(d);
    const out = join(d, "trace.json");
    const running = xbenchAsync(["trace", "--backend", backend, "--format", "json", "-o", out, "--", "sh", "-c", DAEMON], { cwd: d });
    expect(await appears(join(d, "ready"))).toBe(true);
    writeFileSync(join(d, "go"), "");
    const r = await running;
    expect(r.code).toBe(0);
    const trace = JSON.parse(readFileSync(out, "utf8")) as TraceJson;
    expect(trace.complete).toBe(true);
    expect(trace.accesses.find((a) => a.path === join(d, "after"))?.modes).toContain("write");
  });

  test("--detach-ok ends with the command; the daemon runs on and the trace says so", async () => {
    const d = join(dir, `detach-${backend}`);
    mkdirSync(d);
    const out = join(d, "trace.json");
    // xbench's output must close too (`xbench trace ... | tee` returns): only a guard lets the
    // daemon go if it does not, and the test then fails.
    let released = false;
    const guard = setTimeout(() => {
      released = true;
      writeFileSync(join(d, "go"), "");
    }, 60_000);
    const args = ["trace", "--backend", backend, "--detach-ok", "--format", "json", "-o", out, "--", "sh", "-c", DAEMON];
    const r = await xbenchAsync(args, { cwd: d });
    clearTimeout(guard);
    expect(released).toBe(false);
    expect(r.code).toBe(0);
    const trace = JSON.parse(readFileSync(out, "utf8")) as TraceJson;
    expect(trace.complete).toBe(false);
    expect(trace.incompleteReasons.join("\n")).toContain("were still running (--detach-ok)");
    expect(trace.accesses.some((a) => a.path === join(d, "after"))).toBe(false);
    writeFileSync(join(d, "go"), "");
    expect(await appears(join(d, "after"))).toBe(true);
    for (let i = 0; i < 100 && readFileSync(join(d, "after"), "utf8") === ""; i++) await Bun.sleep(50);
    expect(readFileSync(join(d, "after"), "utf8")).toBe("done\n");
  }, 120_000);
});
