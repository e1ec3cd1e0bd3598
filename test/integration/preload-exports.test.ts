/**
 * The preload shim exports the libc entry points it interposes and nothing else: the symbols
 * of the built shared object are exactly those its sources define with default visibility
 * (EXPORT), each source compiled on its own as the build compiles it, and each is a function
 * the C library itself exports. Everything its role files share (native/linux/shim.h) stays
 * hidden, so a program's own symbols never bind to the shim's.
 */
import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "pathe";
import { C_FLAGS, includeFlags, unitNamed } from "../../build/native-units.ts";
import { HELPERS } from "../support/trace.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

const tmp = tempDir("xbench-preload-exports-");
afterAll(tmp.cleanup);
const SHIM = unitNamed("libxbench-preload.so");

/** The functions `obj` defines with default visibility (readelf: FUNC, GLOBAL or WEAK, DEFAULT, not UND). */
function defaultFunctions(obj: string): string[] {
  const out = spawnSync("readelf", ["-W", "--syms", obj], { encoding: "utf8" }).stdout;
  return out
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 8 && f[3] === "FUNC" && (f[4] === "GLOBAL" || f[4] === "WEAK") && f[5] === "DEFAULT" && f[6] !== "UND")
    .map((f) => f[7]!);
}

test("libxbench-preload.so exports exactly the entry points its sources mark EXPORT", () => {
  const expected = new Set<string>();
  for (const source of SHIM.sources) {
    const obj = join(tmp.dir, `${source.replaceAll("/", "_")}.o`);
    const c = spawnSync(
      "gcc",
      [...C_FLAGS, ...includeFlags("linux", ROOT), "-fPIC", "-fvisibility=hidden", "-c", "-o", obj, join(ROOT, source)],
      {
        encoding: "utf8",
      },
    );
    expect(c.stderr).toBe("");
    expect(c.status).toBe(0);
    for (const name of defaultFunctions(obj)) expected.add(name);
  }
  const nm = spawnSync("nm", ["-D", "--defined-only", join(HELPERS, SHIM.name)], { encoding: "utf8" });
  expect(nm.status).toBe(0);
  const exported = nm.stdout
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length === 3)
    .map((f) => f[2]!);
  // One wrapper of each role file, so the comparison is not of two empty lists.
  for (const name of ["open", "stat", "opendir", "unlink", "execve", "posix_spawn", "dlopen"]) expect(exported).toContain(name);
  expect(exported.sort()).toEqual([...expected].sort());
}, 120_000);
