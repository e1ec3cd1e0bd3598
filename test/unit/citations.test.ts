/**
 * Code and tests are read by people who have only the repository: a comment that points at an
 * issue number or at a file outside the repository sends them nowhere. Facts live in docs/.
 * Comments and docs say what the code does and why, not where it came from: words that tell
 * the tree's history ("the seed", "the issue", "this session", "the final code of") explain
 * nothing to a reader who was not there, so they are refused too; history stays in git.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "pathe";

const ROOT = join(import.meta.dir, "..", "..");
const SOURCES = /\.(ts|mjs|js|c|h)$/;
/** Files whose history words are being rewritten by the work that owns them; each must still have one (else drop it here). */
const PENDING_HISTORY = new Set<string>();

/** The repository's files under `paths`, as git lists them. */
function tracked(...paths: string[]): string[] {
  return spawnSync("git", ["ls-files", ...paths], { cwd: ROOT, encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean);
}

/** The code and tests whose comments are checked (this file's examples left out). */
const sourceFiles = () =>
  tracked("src", "test", "bench", "native", "build", "build.ts").filter(
    (f) => SOURCES.test(f) && !f.startsWith("test/fixtures/") && f !== "test/unit/citations.test.ts",
  );

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

/** What in a comment or a doc's line tells where the code came from instead of what it does. */
function historyWord(text: string): string | undefined {
  const patterns = [
    /\bthe seed\b/i,
    /\bseed's\b/i,
    /\bthe issue\b/i,
    /\b(this|that|last|previous|first|second|third) session\b/i,
    /\bsession's\b/i,
    /\bgrew from\b/i,
    /\bfinal code\b/i,
  ];
  for (const pattern of patterns) {
    const found = pattern.exec(text);
    if (found) return found[0];
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
    const files = sourceFiles();
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

  test("the history check recognises history words and leaves seeds and other sessions' load alone", () => {
    expect(historyWord(commentOf(" * The terminal table, shaped like the seed's: header lines"))).toBe("the seed");
    expect(historyWord("The first seed's workload, carried as a real suite")).toBe("seed's");
    expect(historyWord(commentOf("/** The issue's 5% budget, measured in one run */"))).toBe("The issue");
    expect(historyWord("## Overhead on the final code of the third 2026-12-01 session")).toBe("final code");
    expect(historyWord("Both come from the pull requests xbench grew from")).toBe("grew from");
    expect(historyWord("tried last session: with SYNC_WAKE_UP")).toBe("last session");
    expect(historyWord(commentOf("/** The random seed the orders were drawn with. */"))).toBeUndefined();
    expect(historyWord("the seeded generator (19 projects)")).toBeUndefined();
    expect(historyWord("load 15.2 (other sessions building and testing)")).toBeUndefined();
  });

  test("no comment, test name or doc tells the tree's history", () => {
    const sources = sourceFiles();
    const docs = tracked("docs", "src", "README.md", "CONTRIBUTING.md", "ARCHITECTURE.md").filter((f) => f.endsWith(".md"));
    expect(docs.length).toBeGreaterThan(15);
    const found: string[] = [];
    const pendingHit = new Set<string>();
    for (const file of [...sources, ...docs]) {
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          const word = historyWord(file.endsWith(".md") ? line : commentOf(line));
          if (!word) return;
          if (PENDING_HISTORY.has(file)) pendingHit.add(file);
          else found.push(`${file}:${i + 1}: ${word}`);
        });
    }
    expect(found).toEqual([]);
    expect([...PENDING_HISTORY].filter((file) => !pendingHit.has(file))).toEqual([]);
  });
});

/** `docs/compare.md, "Layout"`: a doc and the part of it a comment sends the reader to. */
const SECTION_CITATION = /(docs\/[\w-]+\.md),\s*(?:(?:\*|\/\/)\s*)?"([^"]+)"/g;

/** Whether `doc` has a part named `name`: a heading that begins with it, or a paragraph led by it in bold. */
function hasSection(doc: string, name: string): boolean {
  const headings = doc.split("\n").flatMap((line) => /^#+ (.*)$/.exec(line)?.[1] ?? []);
  return headings.some((heading) => heading.startsWith(name)) || doc.replace(/\s+/g, " ").includes(`**${name}`);
}

/** A name as a comment wraps it over lines (` * ` or `// ` at each line's start), on one line. */
const unwrapped = (name: string) => name.replace(/\s*\n\s*(\*|\/\/)?\s*/g, " ");

describe("citations of a part of a doc", () => {
  test("the check finds headings and bold leads, and not a name the doc lacks", () => {
    const doc = "# Title\n## A chain of steps (history)\n- **Runtimes.** Without a flag\n";
    expect(hasSection(doc, "A chain of steps")).toBe(true);
    expect(hasSection(doc, "Runtimes")).toBe(true);
    expect(hasSection(doc, "Layout")).toBe(false);
  });

  test('every `docs/X.md, "Part"` in the code names a part that doc has', () => {
    const found: string[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const [, doc, name] of text.matchAll(SECTION_CITATION)) {
        let body = "";
        try {
          body = readFileSync(join(ROOT, doc!), "utf8");
        } catch {
          found.push(`${file}: ${doc} does not exist`);
          continue;
        }
        if (!hasSection(body, unwrapped(name!))) found.push(`${file}: ${doc} has no part "${unwrapped(name!)}"`);
      }
    }
    expect(found).toEqual([]);
  });
});
