/**
 * The C files of native/ and the units of build/native-units.ts form no cycle of
 * `#include "…"`: no file reaches itself through the headers it includes. A unit is a source
 * with its header (log.c and log.h are one node). The calls between the units, which need a
 * compiler to read, are checked in test/integration/native-calls.test.ts.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "pathe";
import { NATIVE_UNITS } from "../../build/native-units.ts";
import { addEdge, findCycle, nativeNode } from "../support/cycles.ts";
import { ROOT } from "../support/xbench.ts";

function cFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return cFiles(path);
    return /\.[ch]$/.test(e.name) ? [path] : [];
  });
}

test("no cycle of #include between the units", () => {
  const files = [...cFiles(join(ROOT, "native")), ...NATIVE_UNITS.flatMap((u) => u.sources.map((s) => join(ROOT, s)))];
  const edges = new Map<string, Set<string>>();
  for (const file of new Set(files)) {
    for (const m of readFileSync(file, "utf8").matchAll(/^#include "([^"]+)"/gm)) {
      const target = resolve(dirname(file), m[1]!);
      expect(existsSync(target)).toBe(true);
      addEdge(edges, nativeNode(file), nativeNode(target));
    }
  }
  expect(edges.size).toBeGreaterThan(5);
  expect(findCycle(edges)).toBeUndefined();
});
