/**
 * The C units of native/ (build/native-units.ts) form no cycle: no file reaches itself through
 * `#include "…"`, and no source calls (or reads) a symbol of a source that, directly or
 * through others, calls back into it. A unit is a source with its header (log.c and log.h are
 * one node). The calls are what the compiler leaves undefined in each object file (`nm`),
 * matched to the object that defines them; each toolchain installed here is checked
 * (gcc for the Linux units, mingw-w64 for the Windows ones).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "pathe";
import { C_FLAGS, NATIVE_UNITS, type NativeOs } from "../../build/native-units.ts";
import { findCycle } from "../support/cycles.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

const tmp = tempDir("xbench-native-cycles-");
afterAll(tmp.cleanup);

/** The node of a file: its path without the extension, relative to the repository. */
const nodeOf = (file: string) => relative(ROOT, file).replace(/\.[ch]$/, "");

function cFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return cFiles(path);
    return /\.[ch]$/.test(e.name) ? [path] : [];
  });
}

function addEdge(edges: Map<string, Set<string>>, from: string, to: string): void {
  if (from === to) return;
  if (!edges.has(from)) edges.set(from, new Set());
  edges.get(from)!.add(to);
}

test("no cycle of #include between the units", () => {
  const files = [...cFiles(join(ROOT, "native")), ...NATIVE_UNITS.flatMap((u) => u.sources.map((s) => join(ROOT, s)))];
  const edges = new Map<string, Set<string>>();
  for (const file of new Set(files)) {
    for (const m of readFileSync(file, "utf8").matchAll(/^#include "([^"]+)"/gm)) {
      const target = resolve(dirname(file), m[1]!);
      expect(existsSync(target)).toBe(true);
      addEdge(edges, nodeOf(file), nodeOf(target));
    }
  }
  expect(edges.size).toBeGreaterThan(5);
  expect(findCycle(edges)).toBeUndefined();
});

/** The compiler and nm of each OS whose units this machine can compile. */
const TOOLS: Array<{ os: NativeOs; cc: string; nm: string; flags: string[] }> = [
  { os: "linux", cc: "gcc", nm: "nm", flags: ["-fPIC"] },
  { os: "windows", cc: "x86_64-w64-mingw32-gcc", nm: "x86_64-w64-mingw32-nm", flags: [] },
];
const have = (cmd: string) => spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0;

describe.each(TOOLS)("calls between the $os units", ({ os, cc, nm, flags }) => {
  test.skipIf(!have(cc) || !have(nm))(
    "form no cycle",
    () => {
      const sources = [...new Set(NATIVE_UNITS.filter((u) => u.os === os).flatMap((u) => u.sources))];
      const defined = new Map<string, string>();
      const uses = new Map<string, string[]>();
      for (const source of sources) {
        const obj = join(tmp.dir, `${os}-${source.replaceAll("/", "_")}.o`);
        const c = spawnSync(cc, [...C_FLAGS, ...flags, "-c", "-o", obj, join(ROOT, source)], { encoding: "utf8" });
        expect(c.stderr).toBe("");
        expect(c.status).toBe(0);
        const symbols = spawnSync(nm, ["-g", obj], { encoding: "utf8" }).stdout;
        const node = nodeOf(join(ROOT, source));
        const undefinedHere: string[] = [];
        for (const line of symbols.split("\n")) {
          const m = /^\s*\S*\s+([A-Za-z])\s+(\S+)$/.exec(line);
          if (!m) continue;
          if (m[1] === "U") undefinedHere.push(m[2]!);
          else defined.set(m[2]!, node);
        }
        uses.set(node, undefinedHere);
      }
      const edges = new Map<string, Set<string>>();
      for (const [node, symbols] of uses) {
        for (const symbol of symbols) {
          const owner = defined.get(symbol);
          if (owner) addEdge(edges, node, owner);
        }
      }
      expect(findCycle(edges)).toBeUndefined();
    },
    120_000,
  );
});
