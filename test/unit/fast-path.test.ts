/**
 * The CLI's fast path (src/cli/fast.ts): `--version` and `trace -- CMD` run without the full
 * CLI. Two promises: it reads trace's argv by trace's own table with the walk and the checks
 * every command's argv passes, leaving help and refused argv to the full CLI (which reads them
 * the same way and reports them with the usage); and its module graph stays free of what made start-up
 * slow (citty, which loads node:util; consola, node:tty, node:crypto, the other commands), with
 * the log reader loaded while the command runs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "pathe";
import { fastParse } from "../../src/args/read-fast.ts";
import { readArgs } from "../../src/args/read.ts";
import { versionRequest } from "../../src/cli/fast.ts";
import { traceCommand } from "../../src/commands/trace.ts";

const SRC = resolve(import.meta.dir, "../../src");

describe("trace on the fast path", () => {
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
    // The last of a repeated flag wins, as on the full CLI (the same parser).
    [["--backend", "auto", "--backend", "seccomp", "--", "true"], { backend: "seccomp", format: "summary" }, ["true"]],
    [["-o=x", "--", "true"], { backend: "auto", format: "summary", output: resolve("x") }, ["true"]],
    [["--", "--help"], { backend: "auto", format: "summary" }, ["--help"]],
    [["--detach-ok", "--", "true"], { backend: "auto", format: "summary", "detach-ok": true }, ["true"]],
  ])("takes %j, as the full CLI does", (args, flags, command) => {
    const fast = fastParse(traceCommand, args);
    const expected = { "detach-ok": false, ...flags };
    expect(fast).toEqual({ flags: expected as never, positionals: [], command, given: expect.any(Array) });
    expect(readArgs(traceCommand, args)).toEqual(fast!);
  });

  test.each([
    [[]],
    [["--"]],
    [["true"]],
    [["--help", "--", "true"]],
    [["-h", "--", "true"]],
    [["--backend", "bogus", "--", "true"]],
    [["--format", "xml", "--", "true"]],
    [["--output", "--", "true"]],
    [["-o", "--format", "json", "--", "true"]],
    [["--verbose", "--", "true"]],
    [["extra", "--", "true"]],
  ])("leaves %j to the full CLI", (args) => {
    expect(fastParse(traceCommand, args)).toBeUndefined();
  });

  test("leaves help and every argv the full CLI refuses to it", () => {
    expect(() => readArgs(traceCommand, ["--backend", "bogus", "--", "true"])).toThrow("--backend must be one of");
    expect(() => readArgs(traceCommand, ["-o", "--format", "json", "--", "true"])).toThrow("Option -o needs a value");
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
  // module fast.ts imports for trace (its table, which imports the mri reader).
  const closure = staticClosure(["cli/index.ts", "cli/fast.ts", "commands/trace.ts"]);
  const files = [...closure].filter((m) => m.startsWith("/")).map((m) => relative(SRC, m));

  test("the scan sees the imports", () => {
    expect(files).toContain("args/read-fast.ts");
    expect(closure.has("pathe")).toBe(true);
    expect(files).toContain("tracer/run.ts");
    expect(files).toContain("helpers/cache.ts");
  });

  test.each(["citty", "consola", "node:util", "node:tty", "node:crypto", "node:child_process"])("does not load %s", (mod) => {
    expect(closure.has(mod)).toBe(false);
  });

  test("loads neither the full CLI nor the log reader before the command starts", () => {
    const late = [
      "cli/main.ts",
      "args/help.ts",
      "args/read.ts",
      "commands/root.ts",
      "commands/compare.ts",
      "tracer/read.ts",
      "tracer/accesses.ts",
    ];
    expect(files.filter((f) => late.includes(f))).toEqual([]);
  });
});
