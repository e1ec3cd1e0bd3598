/**
 * The extracted-helper cache (src/helpers/cache.ts): one folder per content, so two builds of
 * one version never swap each other's helpers; every file is hashed before a process first
 * uses it, `verify` hashes again, and a damaged file is replaced.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { extractEmbedded, sha256, type EmbeddedHelpers } from "../../src/helpers/cache.ts";
import { VERSION } from "../../src/version.ts";

const work = mkdtempSync(join(tmpdir(), "xbench-helper-cache-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** An embedded set as build.ts registers it, from files written into the test folder. */
function embedded(id: string, contents: Record<string, string>): EmbeddedHelpers & { platform: string } {
  const files = Object.fromEntries(
    Object.entries(contents).map(([name, text]) => {
      const path = join(work, `${id}-${name}.src`);
      writeFileSync(path, text);
      return [name, { path, sha256: sha256(Buffer.from(text)), size: Buffer.byteLength(text) }];
    }),
  );
  return { platform: "linux-x64", id, files };
}

test("two contents of one version extract into two folders", () => {
  const root = join(work, "two");
  const a = extractEmbedded(embedded("aaaaaaaaaaaa", { "xbench-supervisor": "build A" }), root);
  const b = extractEmbedded(embedded("bbbbbbbbbbbb", { "xbench-supervisor": "build B" }), root);
  expect(a).not.toBe(b);
  expect(readFileSync(join(a, "xbench-supervisor"), "utf8")).toBe("build A");
  expect(readFileSync(join(b, "xbench-supervisor"), "utf8")).toBe("build B");
  expect(readdirSync(a)).toEqual(["xbench-supervisor"]); // no temp file left behind
});

test("a same-size fake is replaced before its first use; within a process a checked file is hashed again only by verify", () => {
  const root = join(work, "damage");
  const set = embedded("cccccccccccc", { "xbench-supervisor": "the real one", "libxbench-preload.so": "shim" });
  // Planted before this process first looks: same size, other bytes.
  const dir = join(root, VERSION, "linux-x64-cccccccccccc");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const victim = join(dir, "xbench-supervisor");
  writeFileSync(victim, "the fake one");
  expect(extractEmbedded(set, root)).toBe(dir);
  expect(readFileSync(victim, "utf8")).toBe("the real one");
  writeFileSync(victim, "short");
  extractEmbedded(set, root); // checked already in this process
  expect(readFileSync(victim, "utf8")).toBe("short");
  extractEmbedded(set, root, true);
  expect(readFileSync(victim, "utf8")).toBe("the real one");
});

test("an embedded file that does not match its hash is refused", () => {
  const set = embedded("dddddddddddd", { "xbench-supervisor": "good" });
  writeFileSync(set.files["xbench-supervisor"]!.path, "evil");
  expect(() => extractEmbedded(set, join(work, "corrupt"))).toThrow(/corrupt; rebuild xbench/);
});
