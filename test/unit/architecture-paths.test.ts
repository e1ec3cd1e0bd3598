/**
 * ARCHITECTURE.md matches the tree: every path it names in backticks exists. A name with a
 * slash is taken from the repository's root or from src/ (the layers table names src/'s folders
 * without the prefix); a bare file name (`main.ts`) lives in the folder of the last path named
 * before it in the same table row, paragraph or list item, or else at the root or in src/.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "pathe";
import { ROOT } from "../support/xbench.ts";

/** What a backticked token must look like to count as a path: a folder (`cli/`) or a file with a source or config extension. */
const PATH_LIKE = /^[\w.@-]+(\/[\w.@-]+)*\/?$/;
const FILE_EXTENSION = /\.(ts|mts|js|mjs|c|h|go|md|json|ya?ml|toml|sh)$/;

function looksLikePath(token: string): boolean {
  if (!PATH_LIKE.test(token)) return false;
  return token.includes("/") || FILE_EXTENSION.test(token);
}

/** Table rows, list items and paragraphs: the places a bare name takes its folder from. */
function blocks(markdown: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length) out.push(current.join("\n"));
    current = [];
  };
  for (const line of markdown.split("\n")) {
    if (line.trim() === "" || line.startsWith("|") || /^(\d+\.|-) /.test(line) || line.startsWith("#")) flush();
    if (line.trim() !== "") current.push(line);
    if (line.startsWith("|")) flush();
  }
  flush();
  return out;
}

/** Where `token` is in the repository, or undefined. `folder`: the folder of the last path before it. */
function locate(token: string, folder: string | undefined): string | undefined {
  const bare = !token.includes("/");
  const candidates = [...(bare && folder ? [join(folder, token)] : []), token, join("src", token)];
  return candidates.find((c) => existsSync(join(ROOT, c)));
}

test("every path ARCHITECTURE.md names exists", () => {
  const markdown = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");
  const missing: string[] = [];
  let named = 0;
  for (const block of blocks(markdown)) {
    let folder: string | undefined;
    for (const [, token] of block.matchAll(/`([^`\n]+)`/g)) {
      if (!looksLikePath(token!)) continue;
      named++;
      const found = locate(token!, folder);
      if (!found) {
        missing.push(token!);
        continue;
      }
      if (!token!.includes("/")) continue;
      folder = found.endsWith("/") ? found.slice(0, -1) : dirname(found);
    }
  }
  expect(named).toBeGreaterThan(50);
  expect(missing).toEqual([]);
});

test("a bare name resolves only in its own folder, the root or src/", () => {
  expect(locate("main.ts", "src/cli")).toBe("src/cli/main.ts");
  expect(locate("sampling.ts", "src/runner/child")).toBeUndefined();
  expect(locate("native/seccomp.c", undefined)).toBeUndefined();
  expect(locate("cli/", undefined)).toBe("src/cli/");
});
