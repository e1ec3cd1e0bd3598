/**
 * The README is for users, so what it tells them to type must work: every xbench command line in
 * its code blocks names a real command and only flags that command's --help lists, and the trace
 * examples run for real. The README stays short enough to read (300 lines).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { ROOT, xbench } from "../support/xbench.ts";

const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The bodies of the README's fenced code blocks. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Words of one shell command, quotes honoured, a trailing `# comment` dropped. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote = "";
  let inWord = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = "";
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === "#" && !inWord) break;
    else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Every xbench invocation in the code blocks (`xbench …`, `dist/xbench …`, `$ xbench …`, after `&&`). */
function xbenchInvocations(markdown: string): string[][] {
  const invocations: string[][] = [];
  for (const block of codeBlocks(markdown)) {
    for (const raw of block.split("\n")) {
      const line = raw.replace(/^\$ /, "");
      for (const part of line.split(/ && | \| /)) {
        const words = shellWords(part.trim());
        if (words[0] === "xbench" || words[0] === "dist/xbench" || (words[0] === "npx" && words[1] === "xbench")) {
          invocations.push(words.slice(words[0] === "npx" ? 2 : 1));
        }
      }
    }
  }
  return invocations;
}

const SUBCOMMANDS = new Set(["compare", "bisect", "report", "trace", "bench", "config", "tracer", "helpers", "version"]);

/** The command path (`bench config`) and the flags given before `--`. */
function commandAndFlags(args: string[]): { path: string[]; flags: string[] } {
  const path: string[] = [];
  for (const arg of args) {
    if (!SUBCOMMANDS.has(arg) || (path.length > 0 && path[0] !== "bench")) break;
    path.push(arg);
  }
  const end = args.indexOf("--");
  const flags = (end === -1 ? args : args.slice(0, end)).filter((a) => a.startsWith("-") && a !== "-").map((a) => a.split("=")[0]!);
  return { path, flags };
}

/** Whether a help text lists `flag` as a whole word: `--time` is not listed by `--timeout=<S>`, nor `--max` by `--max-time`. */
function listsFlag(help: string, flag: string): boolean {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`).test(help);
}

test("a flag counts as listed only as a whole word", () => {
  const help =
    "  --timeout=<S>    Seconds\n  --max-time=<S>    Measure for at most S seconds\n  -o, --output=<FILE>    Write\n  --no-color    Plain";
  expect(listsFlag(help, "--time")).toBe(false);
  expect(listsFlag(help, "--max")).toBe(false);
  expect(listsFlag(help, "--timeout")).toBe(true);
  expect(listsFlag(help, "--max-time")).toBe(true);
  expect(listsFlag(help, "-o")).toBe(true);
  expect(listsFlag(help, "--output")).toBe(true);
  expect(listsFlag(help, "--color")).toBe(false);
});

describe("the README", () => {
  test("is at most 300 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(300);
  });

  const invocations = xbenchInvocations(README);

  test("has command lines to check (the extraction works)", () => {
    const paths = invocations.map((args) => commandAndFlags(args).path.join(" "));
    for (const command of ["compare", "bisect", "report", "trace", "bench config", "bench tracer"]) expect(paths).toContain(command);
  });

  test("names only commands and flags that --help lists", () => {
    const missing: string[] = [];
    for (const args of invocations) {
      const { path, flags } = commandAndFlags(args);
      const help = xbench([...path, "--help"]);
      if (help.code !== 0) {
        missing.push(`xbench ${path.join(" ")}: --help exits ${help.code}`);
        continue;
      }
      for (const flag of flags) if (!listsFlag(help.stdout, flag)) missing.push(`xbench ${args.join(" ")}: ${flag} is not in the help`);
    }
    expect(missing).toEqual([]);
  });

  test("the trace examples run and print what the README shows", () => {
    const demo = mkdtempSync(join(tmpdir(), "xbench-readme-"));
    try {
      for (const args of invocations.filter((a) => a[0] === "trace")) {
        const run = xbench(args, { cwd: demo });
        expect({ args, code: run.code }).toEqual({ args, code: 0 });
        expect(run.stderr).toMatch(
          /^traced \d+ paths \(\d+ read, \d+ write, \d+ readdir, \d+ stat, \d+ exec, \d+ missing\); backend auto [^;]*; complete\n$/m,
        );
      }
      const records = readFileSync(join(demo, "accesses.ndjson"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(records).toContainEqual(expect.objectContaining({ path: join(demo, "out"), modes: ["write"] }));
      expect(records).toContainEqual(expect.objectContaining({ path: join(demo, "missing"), modes: ["missing"] }));
    } finally {
      rmSync(demo, { recursive: true, force: true });
    }
  });
});
