import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "pathe";
import { findBun } from "../../src/runner/bun.ts";
import { isBunPlaceholder, packagedBun } from "../../src/runner/bun-package.ts";
import { tempDir } from "../support/xbench.ts";

const { dir: work, cleanup } = tempDir("xbench-bunpkg-");
afterAll(cleanup);

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]);

/** A node_modules with xbench, bun and (optionally) bun's platform package, as npm or pnpm lay it out. */
function layout(name: string, options: { platformBinary: boolean; bunExe: "stub" | "elf" }): string {
  const root = join(work, name, "node_modules");
  const write = (path: string, text: string | Buffer) => {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write("xbench/dist/npm/cli/index.mjs", "");
  write("bun/package.json", '{"name":"bun"}');
  write("bun/bin/bun.exe", options.bunExe === "elf" ? ELF : "#!/usr/bin/env node\nthrow new Error('postinstall did not run')\n");
  const platform = `@oven/bun-linux-${process.arch === "arm64" ? "aarch64" : process.arch}`;
  write(`${platform}/package.json`, "{}");
  if (options.platformBinary) write(`${platform}/bin/bun`, ELF);
  return pathToFileURL(join(root, "xbench/dist/npm/cli/index.mjs")).href;
}

describe.if(process.platform === "linux")("packagedBun", () => {
  test("finds the platform package's executable beside xbench, without bun's postinstall", () => {
    const from = layout("fresh", { platformBinary: true, bunExe: "stub" });
    expect(packagedBun(from)).toMatch(/node_modules\/@oven\/bun-linux-[a-z0-9]+\/bin\/bun$/);
  });

  test("after the postinstall moved it: bun/bin/bun.exe, but never the placeholder script", () => {
    expect(packagedBun(layout("moved", { platformBinary: false, bunExe: "elf" }))).toMatch(/node_modules\/bun\/bin\/bun\.exe$/);
    expect(packagedBun(layout("stub", { platformBinary: false, bunExe: "stub" }))).toBeUndefined();
  });

  test("no bun package: undefined", () => {
    const dir = join(work, "none");
    mkdirSync(dir);
    expect(packagedBun(pathToFileURL(join(dir, "x.mjs")).href)).toBeUndefined();
  });

  test("a project's node_modules/.bin/bun linked to the placeholder is passed over", () => {
    layout("skipped", { platformBinary: true, bunExe: "stub" });
    const root = join(work, "skipped");
    mkdirSync(join(root, "node_modules", ".bin"));
    symlinkSync("../bun/bin/bun.exe", join(root, "node_modules", ".bin", "bun"));
    expect(isBunPlaceholder(join(root, "node_modules", ".bin", "bun"))).toBe(true);
    const found = findBun(root, { PATH: "" });
    expect(found?.file).not.toBe(join(root, "node_modules", ".bin", "bun"));
  });
});
