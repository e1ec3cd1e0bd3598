/**
 * The linux-arm64 helpers, cross-built from this checkout by build.ts and run on this x86-64
 * machine: (1) the preload shim under qemu-user (which has no seccomp), (2) seccomp and auto in
 * a qemu-system VM booting Debian's arm64 cloud kernel, with an initramfs made here whose /init
 * (test/fixtures/trace/arm64-init.c) runs the supervisor and prints its logs on the console.
 * Every log is read on the host with the product's reader (src/tracer).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { readAccessLog, type UsedBackend } from "../../src/tracer/index.ts";
import { readLogFile, SRC_PRELOAD, SRC_SECCOMP } from "../../src/tracer/log.ts";
import {
  ARM64_SYSROOT,
  arm64Kernel,
  bootVm,
  buildArm64Helpers,
  crossCompile,
  hostFile,
  QEMU_USER,
  qemuSystemMissing,
  qemuUserMissing,
  saveLog,
  privateBinfmtMissing,
  type CpioEntry,
  type VmResult,
  withPrivateBinfmt,
  writeNewc,
} from "../support/arm64.ts";
import { fixture } from "../support/trace.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

const tmp = tempDir("xbench-trace-arm64-");
const dir = realpathSync(tmp.dir);
afterAll(tmp.cleanup);

/** One build of the helpers and the test programs for both parts (skipped when a tool is missing). */
let built: { helpers: string; dynamic: string; static: string } | undefined;
function build(): NonNullable<typeof built> {
  built ??= {
    helpers: buildArm64Helpers(join(dir, "helpers")),
    dynamic: crossCompile(fixture("opens.c"), join(dir, "opens-dynamic"), "dynamic"),
    static: crossCompile(fixture("opens.c"), join(dir, "opens-static"), "static"),
  };
  return built;
}

/** The source (SRC_PRELOAD or SRC_SECCOMP) of every record of the absolute `path`. */
function sourcesOf(log: string, path: string): number[] {
  return readLogFile(log)
    .records.filter((r) => r.path.toString() === path)
    .map((r) => r.src);
}

describe("linux-arm64 preload shim under qemu-user", () => {
  const missing = qemuUserMissing();
  if (missing) {
    test.skip(`arm64 qemu-user tests skipped: ${missing}`, () => {});
    console.log(`arm64 qemu-user tests skipped: ${missing}`);
    return;
  }
  const data = join(dir, "data");
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, "exists.txt"), "arm64\n");
  // qemu-user cannot exec a foreign binary without binfmt_misc (a system-wide setting): the
  // traced command is the emulator itself, running the arm64 program, where the shim loads.
  const qemu = spawnSync("sh", ["-c", `command -v ${QEMU_USER}`], { encoding: "utf8" }).stdout.trim();

  function traced(backend: string) {
    const { helpers, dynamic } = build();
    const log = join(dir, `qemu-${backend}.log`);
    const r = spawnSync(
      QEMU_USER,
      [
        join(helpers, "xbench-supervisor"),
        ...["--backend", backend, "--preload", join(helpers, "libxbench-preload.so"), "--log", log, "--"],
        ...[qemu, dynamic, join(data, "exists.txt"), join(data, "missing.txt"), `${data}/`],
      ],
      { encoding: "utf8", env: { ...process.env, QEMU_LD_PREFIX: ARM64_SYSROOT }, timeout: 60_000 },
    );
    const trace = readAccessLog(log, { exclude: new Set([log]) });
    return { r, trace, modes: new Map(trace.accesses.map((a) => [a.path, a.modes])) };
  }

  test("--backend preload records an existing and a missing file and a directory lookup", () => {
    const { r, trace, modes } = traced("preload");
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${data}/exists.txt 1\n${data}/missing.txt 0\n${data}/ 1\n`);
    expect(r.status).toBe(1); // the program's exit code (one failed open) passes through
    expect(modes.get(join(data, "exists.txt"))).toEqual(["read"]);
    expect(modes.get(join(data, "missing.txt"))).toEqual(["missing"]);
    // O_DIRECTORY is 0x4000 on arm64, 0x10000 on x86-64: the log stores x86-64's numbering.
    expect(modes.get(data)).toEqual(["stat"]);
    expect(modes.get(build().dynamic)).toContain("exec");
    expect(trace.backendsUsed).toEqual(["preload"]);
    // The emulator itself (a static x86-64 program) is what preload cannot see, and it says so.
    expect(trace.incompleteReasons).toEqual([expect.stringContaining("other-architecture (emulated) program")]);
  }, 120_000);

  test("--backend auto: qemu-user has no seccomp (ENOSYS), so the shim alone records, and the trace says so", () => {
    const { r, trace, modes } = traced("auto");
    expect(r.status).toBe(1);
    expect(modes.get(join(data, "exists.txt"))).toEqual(["read"]);
    expect(modes.get(join(data, "missing.txt"))).toEqual(["missing"]);
    expect(trace.backendsUsed).toEqual(["preload"]);
    expect(trace.incompleteReasons).toEqual([expect.stringContaining("seccomp was refused (ENOSYS)")]);
  }, 120_000);
});

describe("linux-arm64 seccomp and auto in a qemu-system VM", () => {
  const missing = qemuSystemMissing();
  if (missing) {
    test.skip(`arm64 VM tests skipped: ${missing}`, () => {});
    console.log(`arm64 VM tests skipped: ${missing}`);
    return;
  }
  let kernel: string;
  try {
    kernel = arm64Kernel();
  } catch (error) {
    const why = `arm64 VM tests skipped: Debian's arm64 kernel could not be fetched: ${(error as Error).message.split("\n")[0]}`;
    test.skip(why, () => {});
    console.log(why);
    return;
  }

  const args = "/data/exists.txt /data/missing.txt /data/";
  const runs = [
    `static seccomp /bin/opens-static ${args}`,
    `dynamic auto /bin/opens-dynamic ${args}`,
    `static-auto auto /bin/opens-static ${args}`,
    `dynamic-seccomp seccomp /bin/opens-dynamic ${args}`,
  ];
  let vm: VmResult | Error | undefined; // one boot for every test, a failed one too
  function boot(): VmResult {
    if (vm instanceof Error) throw vm;
    if (vm) return vm;
    try {
      vm = bootOnce();
    } catch (error) {
      vm = error as Error;
      throw error;
    }
    return vm;
  }
  function bootOnce(): VmResult {
    const { helpers, dynamic, static: stat } = build();
    const libc = realpathSync(join(ARM64_SYSROOT, "lib", "libc.so.6"));
    const ld = realpathSync(join(ARM64_SYSROOT, "lib", "ld-linux-aarch64.so.1"));
    const entries: CpioEntry[] = [
      ...["xb", "bin", "lib", "lib/aarch64-linux-gnu", "data", "proc", "dev", "tmp"].map((d) => ({ path: d, dir: true as const })),
      hostFile("init", crossCompile(fixture("arm64-init.c"), join(dir, "init"), "static")),
      hostFile("xb/xbench-supervisor", join(helpers, "xbench-supervisor")),
      hostFile("xb/libxbench-preload.so", join(helpers, "libxbench-preload.so")),
      hostFile("bin/opens-static", stat),
      hostFile("bin/opens-dynamic", dynamic),
      hostFile("lib/ld-linux-aarch64.so.1", ld),
      hostFile("lib/aarch64-linux-gnu/libc.so.6", libc),
      { path: "data/exists.txt", data: Buffer.from("arm64\n"), mode: 0o644 },
      { path: "xb/runs", data: Buffer.from(`${runs.join("\n")}\n`), mode: 0o644 },
    ];
    const initrd = join(dir, "initrd.cpio");
    writeNewc(entries, initrd);
    const result = bootVm(kernel, initrd);
    const figures = [...result.runs].map(([name, r]) => `${name} ${r.ms ?? "?"} ms`).join(", ");
    console.log(`arm64 VM: boot, ${runs.length} traced runs and power-off in ${(result.ms / 1000).toFixed(1)} s (${figures})`);
    return result;
  }

  /** A run's log, read on the host with the product's reader. Paths are the VM's: no host probes. */
  function traced(name: string) {
    const v = boot();
    expect(v.failures).toEqual([]);
    const run = v.runs.get(name);
    if (!run?.log) throw new Error(`no log for ${name} on the VM console:\n${v.console.slice(-3000)}`);
    expect(run.timedOut).toBe(false); // the supervisor ended once its command had (no hang in NOTIF_RECV)
    const log = saveLog(dir, name, run.log);
    const trace = readAccessLog(log, { probeUnknown: false });
    return { run, log, trace, modes: new Map(trace.accesses.map((a) => [a.path, a.modes])) };
  }

  /** A run's log after the checks every run shares: the program's exit code (one failed open)
   * passed through, its three opens with their modes, a complete trace by `backends`. */
  function checked(name: string, backends: UsedBackend[]) {
    const { run, log, trace, modes } = traced(name);
    expect(run.exit).toBe(1);
    expect(modes.get("/data/exists.txt")).toEqual(["read"]);
    expect(modes.get("/data/missing.txt")).toEqual(["missing"]);
    expect(modes.get("/data")).toEqual(["stat"]); // O_DIRECTORY, in the log's (x86-64) numbering
    expect(trace.backendsUsed).toEqual(backends);
    expect(trace.complete).toBe(true);
    return { log, modes };
  }

  test("a static program's opens are recorded through seccomp", () => {
    const { modes } = checked("static", ["seccomp"]);
    expect(modes.get("/bin/opens-static")).toEqual(["exec"]);
  }, 300_000);

  test("auto: a dynamic program's opens come from the shim, the loader's from seccomp", () => {
    const { log, modes } = checked("dynamic", ["preload", "seccomp"]);
    expect(modes.get("/bin/opens-dynamic")).toEqual(["exec"]);
    // The shim's own calls come from its trampoline page, which the filter lets through: each
    // open is recorded once, by the shim. ld.so's search for libc only seccomp can see.
    expect(sourcesOf(log, "/data/exists.txt")).toEqual([SRC_PRELOAD]);
    expect(sourcesOf(log, "/data/missing.txt")).toEqual([SRC_PRELOAD]);
    expect(modes.get("/lib/aarch64-linux-gnu/libc.so.6")).toEqual(["read"]);
    expect(sourcesOf(log, "/lib/aarch64-linux-gnu/libc.so.6")).toEqual([SRC_SECCOMP]);
  }, 300_000);

  test("auto on a static program: the tree's filter covers it", () => {
    checked("static-auto", ["seccomp"]);
  }, 300_000);

  test("seccomp alone on a dynamic program sees its opens and the loader's", () => {
    const { log, modes } = checked("dynamic-seccomp", ["seccomp"]);
    expect(modes.get("/lib/aarch64-linux-gnu/libc.so.6")).toEqual(["read"]);
    expect(sourcesOf(log, "/data/exists.txt")).toEqual([SRC_SECCOMP]);
  }, 300_000);
});

describe("the linux-arm64 xbench binary runs `trace` under qemu-user", () => {
  const qemu = spawnSync("sh", ["-c", `command -v ${QEMU_USER}`], { encoding: "utf8" }).stdout.trim();
  const missing = qemuUserMissing() ?? privateBinfmtMissing(qemu);
  if (missing) {
    test.skip(`linux-arm64 binary test skipped: ${missing}`, () => {});
    console.log(`linux-arm64 binary test skipped: ${missing}`);
    return;
  }

  test("its embedded helpers trace an arm64 program; auto falls back to the shim, preload is complete", () => {
    const bun = join(ROOT, "node_modules", ".bin", "bun");
    const b = spawnSync(bun, ["build.ts", "--target", "linux-arm64"], { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
    expect(b.stderr).not.toMatch(/^build: /m);
    const xbench = join(ROOT, "dist", "linux-arm64", "xbench");
    const data = join(dir, "bin-data");
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "exists.txt"), "arm64\n");
    const cache = join(dir, "cache");
    const run = (backend: string) => {
      const out = join(dir, `bin-${backend}.json`);
      const cmd = [build().dynamic, join(data, "exists.txt"), join(data, "missing.txt"), `${data}/`];
      const argv = withPrivateBinfmt([xbench, "trace", "--backend", backend, "--format", "json", "-o", out, "--", ...cmd], qemu);
      const r = spawnSync(argv[0]!, argv.slice(1), {
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, QEMU_LD_PREFIX: ARM64_SYSROOT, XBENCH_CACHE_DIR: cache },
      });
      const trace = JSON.parse(readFileSync(out, "utf8")) as {
        complete: boolean;
        backendsUsed: string[];
        incompleteReasons: string[];
        accesses: { path: string; modes: string[] }[];
      };
      return { r, trace, modes: new Map(trace.accesses.map((a) => [a.path, a.modes])) };
    };
    for (const backend of ["auto", "preload"]) {
      const { r, trace, modes } = run(backend);
      expect(r.status).toBe(1); // the program's exit code
      expect(r.stdout).toBe(`${data}/exists.txt 1\n${data}/missing.txt 0\n${data}/ 1\n`);
      expect(modes.get(join(data, "exists.txt"))).toEqual(["read"]);
      expect(modes.get(join(data, "missing.txt"))).toEqual(["missing"]);
      expect(modes.get(data)).toEqual(["stat"]);
      expect(trace.backendsUsed).toEqual(["preload"]);
      if (backend === "auto") expect(trace.incompleteReasons).toEqual([expect.stringContaining("seccomp was refused (ENOSYS)")]);
      else expect(trace.complete).toBe(true);
    }
    // The helpers came out of the binary, into the cache under the linux-arm64 platform (and their content id).
    const extracted = spawnSync("sh", ["-c", `ls ${cache}/*/linux-arm64-*/xbench-supervisor`], { encoding: "utf8" });
    expect(existsSync(extracted.stdout.trim())).toBe(true);
  }, 300_000);
});
