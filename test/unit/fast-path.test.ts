/**
 * The CLI's fast path (src/cli/fast.ts): `--version` and a plain `trace -- CMD` run without the
 * full CLI. Two promises: it takes only argv it parses exactly as citty would (anything else is
 * left to the full CLI and its usage errors), and its module graph stays free of what made
 * start-up slow (citty with node:util, consola, node:tty, node:crypto), with the log reader
 * loaded while the command runs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "pathe";
import { parsePlainTrace } from "../../src/commands/trace-run.ts";
import { versionRequest } from "../../src/cli/fast.ts";

const SRC = resolve(import.meta.dir, "../../src");

describe("parsePlainTrace", () => {
  test.each([
    [["--", "make", "-j4"], { backend: "auto", format: "summary" }, ["make", "-j4"]],
    [["--backend", "seccomp", "--", "true"], { backend: "seccomp", format: "summary" }, ["true"]],
    [
      ["--backend=preload", "--format=json", "-o", "t.json", "--", "ls", "--", "x"],
      { backend: "preload", format: "json", output: resolve("t.json") },
      ["ls", "--", "x"],
    ],
    [
      ["--output=a b.ndjson", "--format", "ndjson", "--", "sh", "-c", "exit 3"],
      { backend: "auto", format: "ndjson", output: resolve("a b.ndjson") },
      ["sh", "-c", "exit 3"],
    ],
  ])("takes %j", (args, flags, command) => {
    expect(parsePlainTrace(args)).toEqual({ flags: flags as never, command });
  });

  test.each([
    [[]],
    [["--"]],
    [["true"]],
    [["--help", "--", "true"]],
    [["-h", "--", "true"]],
    [["--backend", "bogus", "--", "true"]],
    [["--format", "xml", "--", "true"]],
    [["--backend", "auto", "--backend", "seccomp", "--", "true"]],
    [["--output", "--", "true"]],
    [["-o", "--format", "json", "--", "true"]],
    [["--output=", "--", "true"]],
    [["--verbose", "--", "true"]],
    [["extra", "--", "true"]],
    [["-o=x", "--", "true"]],
  ])("leaves %j to the full CLI", (args) => {
    expect(parsePlainTrace(args)).toBeUndefined();
  });
});

test("versionRequest", () => {
  expect(versionRequest(["--version"])).toBe("plain");
  expect(versionRequest(["-V"])).toBe("plain");
  expect(versionRequest(["--verbose", "-v"])).toBe("verbose");
  expect(versionRequest(["trace", "--version"])).toBeUndefined();
  expect(versionRequest(["compare"])).toBeUndefined();
});

/** Static imports of a file (type-only ones left out: they are erased), as specifiers. */
function staticImports(file: string): string[] {
  const source = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of source.matchAll(/^\s*(import|export)\s+([^;]*?)\s*from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm)) {
    if (m[4]) {
      out.push(m[4]);
      continue;
    }
    const clause = m[2]!;
    if (/^type\b/.test(clause)) continue;
    const names = clause.match(/^\{([^}]*)\}$/)?.[1];
    if (names?.split(",").every((n) => !n.trim() || /^type\s/.test(n.trim()))) continue;
    out.push(m[3]!);
  }
  return out;
}

/** Every module a set of entry files loads statically: relative files resolved, packages as named. */
function staticClosure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (!spec.startsWith(".")) {
        seen.add(spec);
        continue;
      }
      const path = resolve(dirname(file), spec);
      if (existsSync(path) && path.endsWith(".ts")) visit(path);
    }
  };
  for (const entry of entries) visit(resolve(SRC, entry));
  return seen;
}

describe("the fast path's module graph", () => {
  // What trace's fast path loads before the command starts: the CLI entry, fast.ts, and the
  // module fast.ts imports for trace.
  const closure = staticClosure(["cli/index.ts", "cli/fast.ts", "commands/trace-run.ts"]);
  const files = [...closure].filter((m) => m.startsWith("/")).map((m) => relative(SRC, m));

  test("the scan sees the imports", () => {
    expect(files).toContain("tracer/run.ts");
    expect(files).toContain("helpers/cache.ts");
  });

  test.each(["citty", "consola", "node:util", "node:tty", "node:crypto", "node:child_process"])("does not load %s", (mod) => {
    expect(closure.has(mod)).toBe(false);
  });

  test("loads neither the full CLI nor the log reader before the command starts", () => {
    expect(files.filter((f) => ["cli/main.ts", "commands/root.ts", "tracer/read.ts", "tracer/accesses.ts"].includes(f))).toEqual([]);
  });
});
