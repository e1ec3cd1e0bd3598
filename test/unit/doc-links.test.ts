/**
 * The docs are read on GitHub: every relative link in a tracked markdown file names a file
 * that exists and, with `#anchor`, a heading of that file (GitHub's slug: lower case,
 * punctuation dropped, spaces to hyphens). Sections are replaced when re-measured, so a link
 * to a dropped section must fail here, not on a reader.
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "pathe";
import { ROOT } from "../support/xbench.ts";

/** GitHub's anchor of a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replaceAll(" ", "-");

/** A markdown text without its fenced code blocks (a `#` line in one is no heading). */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```$/gm, "");

test("slugs as GitHub makes them", () => {
  expect(slug("The filter's install, and what a seccomp open is made of (2026-12-02)")).toBe(
    "the-filters-install-and-what-a-seccomp-open-is-made-of-2026-12-02",
  );
  expect(slug("A base a year older with `--install`")).toBe("a-base-a-year-older-with---install");
});

test("every relative link in the docs reaches a file, and a heading when it names one", () => {
  const files = spawnSync("git", ["ls-files", "*.md"], { cwd: ROOT, encoding: "utf8" })
    .stdout.split("\n")
    .filter((f) => f && !f.startsWith("test/fixtures/"));
  const headings = new Map<string, Set<string>>();
  const headingsOf = (file: string) => {
    if (!headings.has(file)) {
      const text = prose(readFileSync(join(ROOT, file), "utf8"));
      headings.set(file, new Set([...text.matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1]!))));
    }
    return headings.get(file)!;
  };
  const broken: string[] = [];
  let links = 0;
  for (const file of files) {
    for (const m of prose(readFileSync(join(ROOT, file), "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      links++;
      const [path, anchor] = target.split("#");
      const resolved = path ? normalize(join(dirname(file), path)) : file;
      if (!existsSync(join(ROOT, resolved))) broken.push(`${file}: ${target} (no such file)`);
      else if (anchor && resolved.endsWith(".md") && !headingsOf(resolved).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  expect(links).toBeGreaterThan(30);
  expect(broken).toEqual([]);
});
