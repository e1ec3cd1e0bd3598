/**
 * Code and tests are read by people who have only the repository: a comment that points at an
 * issue number or at a file outside the repository sends them nowhere. Facts live in docs/.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "pathe";

const ROOT = join(import.meta.dir, "..", "..");
const SOURCES = /\.(ts|mjs|js|c|h)$/;

/** The comment text of one line of TypeScript or C (`// …`, `/* …`, ` * …`), or a test's name; "" when none. */
function commentOf(line: string): string {
  const trimmed = line.trim();
  if (/^(describe|test|it)(\.\w+)*\(/.test(trimmed)) return trimmed;
  if (trimmed.startsWith("*") || trimmed.startsWith("/*")) return trimmed;
  const slashes = line.search(/(^|[^:"'`])\/\//);
  return slashes === -1 ? "" : line.slice(slashes);
}

/** What in a comment cites something a reader of the repository cannot open. */
function outsideCitation(comment: string): string | undefined {
  const patterns = [/\bdesign\.md\b/, /\.\.\/shared\//, /\bissues?\s+#?\d+/i, /(?<!svc)(^|[\s(,])#\d{1,3}\b(?!;)/];
  for (const pattern of patterns) {
    const found = pattern.exec(comment);
    if (found) return found[0].trim();
  }
  return undefined;
}

describe("citations", () => {
  test("the checks recognise a citation and leave ordinary comments alone", () => {
    expect(outsideCitation(commentOf("  // see design.md section 3"))).toBe("design.md");
    expect(outsideCitation(commentOf(" * Rough edges (#25): a run folder"))).toBe("(#25");
    expect(outsideCitation(commentOf("/** issue 29's held-out set */"))).toBe("issue 29");
    expect(outsideCitation(commentOf('  expect(escape("@team #1")).toBe("&#64;&#8288;team") // entities'))).toBeUndefined();
    expect(outsideCitation(commentOf('describe("signals sent to xbench trace alone (issue 29)", () => {'))).toBe("issue 29");
    expect(outsideCitation(commentOf("const url = `https://x/y`; // docs/statistics.md"))).toBeUndefined();
  });

  test("no comment under src/, test/, bench/, native/ or build/ cites an issue number or a file outside the repository", () => {
    const files = spawnSync("git", ["ls-files", "src", "test", "bench", "native", "build", "build.ts"], { cwd: ROOT, encoding: "utf8" })
      .stdout.split("\n")
      .filter((f) => SOURCES.test(f) && !f.startsWith("test/fixtures/") && f !== "test/unit/citations.test.ts"); // its own examples
    const found: string[] = [];
    for (const file of files) {
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          const citation = outsideCitation(commentOf(line));
          if (citation) found.push(`${file}:${i + 1}: ${citation}`);
        });
    }
    expect(found).toEqual([]);
  });
});
