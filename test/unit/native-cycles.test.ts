/**
 * The C files of native/ and the units of build/native-units.ts form no cycle of
 * `#include "…"`: no file reaches itself through the headers it includes. A unit is a source
 * with its header (logfile.c and logfile.h are one node). An include is found beside the file,
 * else in each platform folder the build puts on the include path (native/unix's `sys.h` is
 * Linux's and macOS's); native/common, which every platform builds, includes nothing of one
 * platform. The calls between the units, which need a
 * compiler to read, are checked in test/integration/native-calls.test.ts.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "pathe";
import { NATIVE_UNITS, PLATFORM_DIR } from "../../build/native-units.ts";
import { addEdge, findCycle, nativeNode } from "../support/cycles.ts";
import { ROOT } from "../support/xbench.ts";

function cFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return cFiles(path);
    return /\.[ch]$/.test(e.name) ? [path] : [];
  });
}

/** The files `#include "name"` in `file` may reach: the one beside it, else each platform's. */
function includeTargets(file: string, name: string): string[] {
  const beside = resolve(dirname(file), name);
  if (existsSync(beside)) return [beside];
  return Object.values(PLATFORM_DIR)
    .map((dir) => join(ROOT, dir, name))
    .filter(existsSync);
}

/** Every file's includes, by the file. */
function includes(): Map<string, string[]> {
  const files = [...cFiles(join(ROOT, "native")), ...NATIVE_UNITS.flatMap((u) => u.sources.map((s) => join(ROOT, s)))];
  return new Map(
    [...new Set(files)].map((file) => [
      file,
      [...readFileSync(file, "utf8").matchAll(/^#include "([^"]+)"/gm)].flatMap((m) => {
        const targets = includeTargets(file, m[1]!);
        expect(targets.length, `${file}: ${m[1]}`).toBeGreaterThan(0);
        return targets;
      }),
    ]),
  );
}

test("no cycle of #include between the units", () => {
  const edges = new Map<string, Set<string>>();
  for (const [file, targets] of includes()) for (const target of targets) addEdge(edges, nativeNode(file), nativeNode(target));
  expect(edges.size).toBeGreaterThan(5);
  expect(findCycle(edges)).toBeUndefined();
});

test("native/common includes no file of one platform, nor a system header of one", () => {
  const common = join(ROOT, "native", "common");
  const platformFile = [...includes()]
    .filter(([file]) => file.startsWith(`${common}/`))
    .flatMap(([file, targets]) => targets.filter((t) => !t.startsWith(`${common}/`)).map((t) => `${nativeNode(file)} -> ${nativeNode(t)}`));
  expect(platformFile).toEqual([]);
  // Only the C standard's headers: POSIX and the platforms' own live in native/unix and beside.
  const standard = new Set(["stddef.h", "stdint.h", "stdbool.h", "time.h", "string.h", "limits.h"]);
  const system = cFiles(common).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^#include <([^>]+)>/gm)]
      .map((m) => m[1]!)
      .filter((h) => !standard.has(h))
      .map((h) => `${nativeNode(file)}: <${h}>`),
  );
  expect(system).toEqual([]);
});
