/**
 * The tracer per OS: where no helper exists (Windows on arm64) it says so in one line (exit 2);
 * Linux arm64 and Windows x64 have helpers; macOS runs xbench-mac-launch with the interposing dylib (experimental: a fake
 * launcher stands in for the Mach-O one, which cannot run here); Linux keeps its supervisor argv.
 */
import { afterEach, expect, spyOn, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { type CommandDef, runCommand } from "citty";
import { traceCommand } from "../../src/commands/trace.ts";
import { XbenchError } from "../../src/errors.ts";
import * as direct from "../../src/output/direct.ts";
import { TRACED_PLATFORMS } from "../../src/helpers/index.ts";
import { runTracerBench } from "../../src/suites/tracer/index.ts";
import { supervisorArgs, trace } from "../../src/tracer/index.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

const realPlatform = process.platform;
const realArch = process.arch;
const realHelperDir = process.env.XBENCH_HELPER_DIR;

function fakePlatform(platform: string, arch: string): void {
  Object.defineProperty(process, "platform", { value: platform });
  Object.defineProperty(process, "arch", { value: arch });
}

afterEach(() => {
  fakePlatform(realPlatform, realArch);
  if (realHelperDir === undefined) delete process.env.XBENCH_HELPER_DIR;
  else process.env.XBENCH_HELPER_DIR = realHelperDir;
});

test.each([["win32", "arm64"]])("trace() on %s-%s: one clear line, exit code 2", async (platform, arch) => {
  delete process.env.XBENCH_HELPER_DIR;
  fakePlatform(platform, arch);
  const error = await trace("true", []).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(XbenchError);
  expect((error as XbenchError).message).toBe(`tracing is not available on ${platform}-${arch} yet`);
  expect((error as XbenchError).exitCode).toBe(2);
});

/** A log as native/common/log.h lays it out: the header, then one committed OPEN (read) of `path`. */
function logWithOneRead(path: string): Buffer {
  const header = Buffer.alloc(4096);
  header.writeBigUInt64LE(0x00314f4c4e525458n, 0);
  header.writeUInt32LE(2, 8); // version
  header.writeUInt32LE(4096, 12);
  const rec = Buffer.alloc(32);
  rec[0] = 1; // XB_OP_OPEN
  rec[1] = 1; // XB_SRC_PRELOAD
  rec.writeUInt32LE(4242, 4); // pid
  rec.writeUInt32LE(0, 8); // O_RDONLY
  rec.writeInt32LE(0, 12); // succeeded
  rec.writeUInt32LE(path.length, 16);
  const payload = Buffer.concat([rec, Buffer.from(path)]);
  const frame = Buffer.alloc((8 + payload.length + 7) & ~7);
  frame.writeUInt32LE(0x31434258, 0);
  frame.writeUInt32LE(payload.length, 4);
  payload.copy(frame, 8);
  header.writeBigUInt64LE(BigInt(4096 + frame.length + 4096), 16); // capacity
  header.writeBigUInt64LE(BigInt(4096 + frame.length), 24); // tail
  header.writeBigUInt64LE(0x1n, 40); // XB_FLAG_USED_PRELOAD
  return Buffer.concat([header, frame, Buffer.alloc(4096)]);
}

test.each(["arm64", "x64"])(
  "on darwin-%s, trace runs xbench-mac-launch with the dylib and reads its log (experimental notice on stderr)",
  async (arch) => {
    const tmp = tempDir("xbench-mac-seam-");
    try {
      const premade = join(tmp.dir, "premade.log");
      writeFileSync(premade, logWithOneRead("/m/read-by-child"));
      // Stands in for the Mach-O launcher: keeps its argv, writes the log where --log says, exits 3.
      const launcher = join(tmp.dir, "xbench-mac-launch");
      writeFileSync(
        launcher,
        `#!/bin/sh\nprintf '%s\\n' "$@" > "${tmp.dir}/argv"\nwhile [ "$1" != --log ]; do shift; done\ncp "${premade}" "$2"\nexit 3\n`,
      );
      chmodSync(launcher, 0o755);
      writeFileSync(join(tmp.dir, "libxbench-interpose.dylib"), "");
      process.env.XBENCH_HELPER_DIR = tmp.dir;
      fakePlatform("darwin", arch);
      const stderr: string[] = [];
      // trace writes its lines straight to the descriptor (output/direct.ts), not through process.stderr.
      const spy = spyOn(direct, "writeDirect").mockImplementation((fd: number, text: string) => {
        if (fd === 2) stderr.push(text);
      });
      let code: unknown;
      try {
        code = (await runCommand(traceCommand as CommandDef, { rawArgs: ["--format", "json", "--", "make", "-j4"] })).result;
      } finally {
        spy.mockRestore();
      }
      expect(code).toBe(3);
      const argv = readFileSync(join(tmp.dir, "argv"), "utf8").trimEnd().split("\n");
      expect(argv.slice(0, 3)).toEqual(["--dylib", join(tmp.dir, "libxbench-interpose.dylib"), "--log"]);
      expect(argv[3]).toMatch(/xbench-trace-.*\/trace\.log$/);
      expect(argv.slice(4)).toEqual(["--die-with-parent", "--", "make", "-j4"]);
      expect(stderr[0]).toStartWith("xbench: note: tracing on macOS is experimental (built and checked, not yet run on a Mac)");
      const json = JSON.parse(stderr.find((s) => s.startsWith("{"))!) as { accesses: unknown[]; backendsUsed: string[] };
      expect(json.accesses).toEqual([{ path: "/m/read-by-child", modes: ["read"], pid: 4242 }]);
      expect(json.backendsUsed).toEqual(["preload"]);
    } finally {
      tmp.cleanup();
    }
  },
);

test("on macOS --backend seccomp is refused in one line, exit code 2", async () => {
  process.env.XBENCH_HELPER_DIR = "/nonexistent";
  fakePlatform("darwin", "arm64");
  const error = await trace("true", [], { backend: "seccomp" }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(XbenchError);
  expect((error as XbenchError).message).toBe("--backend seccomp is Linux only; on macOS use auto or preload (interposition)");
  expect((error as XbenchError).exitCode).toBe(2);
});

test("Linux keeps the supervisor's argv", () => {
  expect(supervisorArgs({ backend: "auto", preload: "/h/libxbench-preload.so", log: "/t/trace.log" }, "make", ["-j4"])).toEqual([
    "--backend",
    "auto",
    "--preload",
    "/h/libxbench-preload.so",
    "--log",
    "/t/trace.log",
    "--die-with-parent",
    "--",
    "make",
    "-j4",
  ]);
});

test("xbench trace --help says macOS tracing is experimental", () => {
  const r = spawnSync(process.execPath, [join(ROOT, "src", "cli", "index.ts"), "trace", "--help"], { encoding: "utf8" });
  expect(r.stdout.split("\n")[0]).toContain("(macOS: experimental, not yet run on a Mac)");
  expect(r.stdout).toContain("seccomp is Linux only");
});

test("linux-arm64 has helpers (cross-built, test/e2e/trace-arm64.test.ts runs them): no such line there", async () => {
  expect(TRACED_PLATFORMS.has("linux-arm64")).toBe(true);
  process.env.XBENCH_HELPER_DIR = "/nonexistent-xbench-helpers";
  fakePlatform("linux", "arm64");
  const error = await trace("true", []).catch((e: unknown) => e);
  expect(String((error as Error).message)).not.toContain("not available");
});

test.each([
  ["darwin", "arm64"],
  ["win32", "x64"],
])("the tracer suite on %s-%s: one clear line, exit code 2 (it times the Linux backends)", async (platform, arch) => {
  fakePlatform(platform, arch);
  const error = await runTracerBench().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(XbenchError);
  expect((error as XbenchError).message).toBe(
    `the tracer suite times the Linux backends (preload, seccomp); not available on ${platform}-${arch}`,
  );
  expect((error as XbenchError).exitCode).toBe(2);
});
