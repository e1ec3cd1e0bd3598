/**
 * No source of native/ calls (or reads) a symbol of a source that, directly or through
 * others, calls back into it. The calls are what the compiler leaves undefined in each
 * object file (`nm`), matched to the object that defines them; each toolchain installed here
 * is checked (gcc for the Linux units, mingw-w64 for the Windows ones), and a missing one
 * shows as a skipped test. The includes are checked without a compiler in
 * test/unit/native-cycles.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "pathe";
import { C_FLAGS, NATIVE_UNITS, type NativeOs, unitIncludeFlags } from "../../build/native-units.ts";
import { addEdge, findCycle, nativeNode } from "../support/cycles.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

const tmp = tempDir("xbench-native-calls-");
afterAll(tmp.cleanup);

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
      // A source shared by several units is compiled once, with the first unit's include path.
      const unitOf = new Map(
        NATIVE_UNITS.filter((u) => u.os === os)
          .flatMap((u) => u.sources.map((s) => [s, u] as const))
          .reverse(),
      );
      const sources = [...unitOf.keys()];
      const defined = new Map<string, string>();
      const uses = new Map<string, string[]>();
      for (const source of sources) {
        const obj = join(tmp.dir, `${os}-${source.replaceAll("/", "_")}.o`);
        const c = spawnSync(
          cc,
          [...C_FLAGS, ...unitIncludeFlags(unitOf.get(source)!, ROOT), ...flags, "-c", "-o", obj, join(ROOT, source)],
          {
            encoding: "utf8",
          },
        );
        expect(c.stderr).toBe("");
        expect(c.status).toBe(0);
        const symbols = spawnSync(nm, ["-g", obj], { encoding: "utf8" }).stdout;
        const node = nativeNode(join(ROOT, source));
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
      expect(edges.size).toBeGreaterThan(0);
      expect(findCycle(edges)).toBeUndefined();
    },
    120_000,
  );
});
