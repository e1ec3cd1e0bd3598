/** Path resolution: relative paths, dirfds, chdir, overlong and non-UTF-8 names. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { tempDir } from "../support/xbench.ts";
import { compile, fixture, have, traceRun } from "../support/trace.ts";

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
