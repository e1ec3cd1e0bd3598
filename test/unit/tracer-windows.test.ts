/** The Windows side of the tracer that runs anywhere: paths, the launcher's argv, the seam. */
import { afterEach, describe, expect, test } from "bun:test";
import { normalizeWindows, windowsKey } from "../../src/tracer/paths-windows.ts";
import { collectAccesses } from "../../src/tracer/accesses.ts";
import { supervisorArgs } from "../../src/tracer/launch.ts";
import { incompleteReasons, launcherArgs, trace, tracerKind } from "../../src/tracer/index.ts";
import { FLAG, OP, RESULT_PENDING, type LogHeader, type RawRecord } from "../../src/tracer/log.ts";
import { traceScratchRoot } from "../../src/tracer/scratch.ts";
import { XbenchError } from "../../src/errors.ts";
import { tmpdir } from "node:os";

describe("normalizeWindows", () => {
  test.each([
    ["C:\\a\\b\\..\\c\\.\\d", "", "C:\\a\\c\\d"],
    ["c:\\dir\\", "", "C:\\dir"],
    ["C:\\", "", "C:\\"],
    ["C:\\..\\..", "", "C:\\"],
    ["file.txt", "C:\\work\\", "C:\\work\\file.txt"],
    ["..\\x", "Z:\\tmp\\d", "Z:\\tmp\\x"],
    ["sub/leaf", "C:/base", "C:\\base\\sub\\leaf"],
    ["\\\\srv\\share\\a\\..\\..\\b", "", "\\\\srv\\share\\b"],
    ["\\\\.\\pipe\\name", "", "\\\\.\\pipe\\name"],
    ["\\Device\\ConDrv\\\\x", "", "\\Device\\ConDrv\\x"],
    ["C:\\abs", "D:\\ignored", "C:\\abs"],
  ])("%s on %s is %s", (path, base, out) => {
    expect(normalizeWindows(path, base)).toBe(out);
  });
});

const rec = (op: number, path: string, extra: Partial<RawRecord> = {}): RawRecord => ({
  op,
  src: 3,
  pid: 5,
  arg: 0,
  result: 0,
  rflags: 0,
  tsc: 1n,
  base: Buffer.alloc(0),
  path: Buffer.from(path),
  ...extra,
});

describe("collecting Windows records", () => {
  test("one access per file whatever the case and separators; relative names join their base", () => {
    const accesses = collectAccesses(
      [
        rec(OP.OPEN, "C:\\Work\\a.txt", { tsc: 2n, pid: 9 }),
        rec(OP.STAT, "c:\\work\\A.TXT\\", { tsc: 1n, pid: 4 }),
        rec(OP.OPEN, "b.txt", { base: Buffer.from("C:\\Work"), arg: 0o1101 }),
        rec(OP.OPEN, "C:\\Work\\gone.txt", { result: 2 }),
        rec(OP.READDIR, "C:\\Work\\dir\\"),
        rec(OP.OPEN, "C:\\xbench\\xbench-hook.dll"),
        rec(OP.EXEC, "C:\\Windows\\System32\\cmd.exe", { result: RESULT_PENDING }),
      ],
      { windows: true, exclude: new Set([windowsKey("C:\\XBENCH\\xbench-hook.dll")]) },
    );
    const byPath = Object.fromEntries(accesses.map((a) => [a.path, [a.modes, a.pid]]));
    expect(Object.keys(byPath)).toHaveLength(5);
    expect(byPath["C:\\Work\\a.txt"] ?? byPath["C:\\work\\A.TXT"]).toEqual([["read", "stat"], 4]);
    expect(byPath["C:\\Work\\b.txt"]).toEqual([["write"], 5]);
    expect(byPath["C:\\Work\\gone.txt"]).toEqual([["missing"], 5]);
    expect(byPath["C:\\Work\\dir"]).toEqual([["readdir"], 5]);
  });
});

test("the Windows flags say in words why a trace is incomplete", () => {
  const header = (flags: number): LogHeader => ({
    capacity: 0,
    tail: 0,
    dropped: 0,
    flags,
    seccompErrno: 0,
    supervisorMaxRssKb: 0,
    notifications: 0,
  });
  expect(incompleteReasons(header(FLAG.USED_DLL | FLAG.CHILD_UNTRACED))).toEqual([
    "a child process could not be traced (a 32-bit program, or the hook DLL did not load into it)",
  ]);
  expect(incompleteReasons(header(FLAG.USED_DLL | FLAG.LAUNCHER_ERROR))[0]).toContain("hook DLL");
  expect(incompleteReasons(header(FLAG.USED_DLL))).toEqual([]);
  expect(FLAG.INCOMPLETE & FLAG.CHILD_UNTRACED).toBe(FLAG.CHILD_UNTRACED);
});

describe("the platform seam", () => {
  const realPlatform = process.platform;
  afterEach(() => Object.defineProperty(process, "platform", { value: realPlatform }));

  test("Windows runs xbench-launch.exe with the hook DLL, backslashed; Linux keeps the supervisor's argv", () => {
    const o = { backend: "auto" as const, library: "C:/cache/xbench-hook.dll", log: "C:/Temp/t/trace.log" };
    const windows = tracerKind("win32", "auto");
    expect([windows.launcher, windows.library]).toEqual(["xbench-launch.exe", "xbench-hook.dll"]);
    expect(launcherArgs(windows, o, "cmd", ["/c", "type x"])).toEqual([
      "--log",
      "C:\\Temp\\t\\trace.log",
      "--hook",
      "C:\\cache\\xbench-hook.dll",
      "--",
      "cmd",
      "/c",
      "type x",
    ]);
    const linux = tracerKind("linux", "auto");
    expect([linux.launcher, linux.library]).toEqual(["xbench-supervisor", "libxbench-preload.so"]);
    expect(launcherArgs(linux, o, "make", ["-j2"])).toEqual(supervisorArgs({ ...o, preload: o.library }, "make", ["-j2"]));
  });

  test("the log stays out of /dev/shm on Windows", () => {
    expect(traceScratchRoot("/dev/shm", 0, "win32")).toBe(tmpdir());
  });

  test("on Windows only --backend auto exists: a Linux backend is a usage error before anything runs", async () => {
    Object.defineProperty(process, "platform", { value: "win32" });
    const error = await trace("cmd", [], { backend: "seccomp" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(XbenchError);
    expect((error as XbenchError).message).toBe("--backend seccomp is for Linux; on Windows trace has one backend (auto)");
    expect((error as XbenchError).exitCode).toBe(2);
  });
});
