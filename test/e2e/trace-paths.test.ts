/** Path resolution: relative paths, dirfds, chdir, overlong and non-UTF-8 names. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { tempDir } from "../support/xbench.ts";
import { PYTHON, compile, fixture, have, traceRun } from "../support/trace.ts";

const tmp = tempDir("xbench-trace-paths-");
const dir = realpathSync(tmp.dir);
afterAll(tmp.cleanup);

const dynamic = join(dir, "paths");
compile("gcc", ["-O2", "-o", dynamic, fixture("paths.c")]);
const variants: [string, string, string][] = [
  ["dynamic", "auto", dynamic],
  ["dynamic", "seccomp", dynamic],
];
if (have("musl-gcc")) {
  const stat = join(dir, "paths-static");
  compile("musl-gcc", ["-static", "-O2", "-o", stat, fixture("paths.c")]);
  variants.push(["musl-static", "auto", stat]);
}

describe.each(variants)("%s program, backend %s", (_kind, backend, bin) => {
  const work = join(dir, `work-${backend}-${_kind}`);
  mkdirSync(join(work, "sub"), { recursive: true });
  for (const f of ["a", "b", "c", "d"]) writeFileSync(join(work, "sub", f), f);

  const r = traceRun([bin, work], ["--backend", backend]);

  test("runs unharmed", () => {
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("paths ok\n");
  });

  test("relative path after chdir, ./ after a second chdir", () => {
    expect(r.modes.get(join(work, "sub", "a"))).toEqual(["read"]);
    expect(r.modes.get(join(work, "sub", "b"))).toEqual(["read"]);
  });

  test("openat with a directory fd, including ..", () => {
    expect(r.modes.get(join(work, "sub", "c"))).toEqual(["read"]);
    expect(r.modes.get(join(work, "sub", "d"))).toEqual(["read"]);
    // Opened with O_DIRECTORY to serve as a dirfd, never listed: looked up, not a listing.
    expect(r.modes.get(work)).toEqual(["stat"]);
  });

  test("a path longer than 4096 bytes does not crash or corrupt the output", () => {
    const long = r.trace.accesses.filter((a) => a.path.startsWith("/xxxx"));
    expect(long.length).toBe(1);
    expect(long[0]!.path.length).toBeGreaterThanOrEqual(4096);
    expect(long[0]!.path).toMatch(/^\/x+$/);
    expect(r.trace.accesses.every((a) => a.path.startsWith("/"))).toBe(true);
  });

  test("a non-UTF-8 name keeps its exact bytes", () => {
    const bad = r.trace.accesses.find((a) => a.pathHex !== undefined);
    expect(bad).toBeDefined();
    expect(
      Buffer.from(bad!.pathHex!, "hex").equals(
        Buffer.concat([Buffer.from(`${work}/sub/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from("-name")]),
      ),
    ).toBe(true);
    expect(bad!.modes).toEqual(["write"]);
  });
});

describe("repeated accesses (the shim skips repeats of a successful access)", () => {
  const bin = join(dir, "repeat");
  compile("gcc", ["-O2", "-o", bin, fixture("repeat.c")]);
  test.each(["preload", "seccomp"])("a repeat that fails is still recorded (--backend %s)", (backend) => {
    const target = join(dir, `repeat-${backend}.txt`);
    writeFileSync(target, "x");
    const r = traceRun([bin, target], ["--backend", backend]);
    expect(r.code).toBe(0);
    expect(r.modes.get(target)).toEqual(["read", "write", "missing"]);
  });
});

/**
 * A tree deeper than 4,096 bytes, walked with openat from each folder's fd: the
 * kernel names no folder that long, so a path under it is either recorded whole or the trace
 * says it is incomplete; never a bare relative name in a complete trace. Folders created just
 * past the limit, whose parent can still be named, keep their true modes (not "missing").
 */
const DEEP = `
import os
fd = os.open(".", os.O_RDONLY)
for i in range(45):
    os.mkdir("d" * 100, dir_fd=fd)
    nfd = os.open("d" * 100, os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = nfd
os.close(os.open("leaf", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd))
os.mkdir("sub", dir_fd=fd)
os.listdir(fd)
`;
describe.each(["auto", "seccomp", "preload"])("a tree deeper than 4,096 bytes (--backend %s)", (backend) => {
  test("every path is absolute, and what cannot be named makes the trace incomplete", () => {
    const work = join(dir, `deep-${backend}`);
    mkdirSync(work);
    const r = traceRun([PYTHON, "-c", DEEP], ["--backend", backend], { cwd: work });
    expect(r.code).toBe(0);
    expect(r.trace.accesses.filter((a) => !a.path.startsWith("/")).map((a) => a.path)).toEqual([]);
    const leaf = r.trace.accesses.find((a) => a.path.endsWith("/leaf"));
    if (!leaf) {
      expect(r.trace.complete).toBe(false);
      expect(r.trace.incompleteReasons.join(" ")).toContain("4,096 bytes");
    }
    const mine = r.trace.accesses.filter((a) => a.path.startsWith(`${work}/`));
    expect(mine.length).toBeGreaterThan(35);
    expect(mine.filter((a) => a.modes.includes("missing")).map((a) => a.path.length)).toEqual([]);
  });
});
