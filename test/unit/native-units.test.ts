/**
 * build/native-units.ts names every C source of native/: a file no unit compiles is code that
 * silently left the build (a role file of the preload shim dropped from its unit leaves the
 * shared object without its wrappers, and nothing fails to link). And every source it names
 * exists.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "pathe";
import { NATIVE_UNITS } from "../../build/native-units.ts";
import { ROOT } from "../support/xbench.ts";

function cSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return cSources(path);
    return e.name.endsWith(".c") ? [relative(ROOT, path)] : [];
  });
}

test("every C source under native/ is compiled by a unit", () => {
  const built = new Set(NATIVE_UNITS.flatMap((u) => u.sources));
  const sources = cSources(join(ROOT, "native"));
  expect(sources.length).toBeGreaterThan(20);
  expect(sources.filter((s) => !built.has(s))).toEqual([]);
});

test("every source a unit names exists", () => {
  const missing = NATIVE_UNITS.flatMap((u) => u.sources.filter((s) => !existsSync(join(ROOT, s))).map((s) => `${u.name}: ${s}`));
  expect(missing).toEqual([]);
});
