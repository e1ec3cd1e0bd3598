import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { archiveName, writeRelease } from "../../build/release.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

const { dir: work, cleanup } = tempDir("xbench-archive-");
afterAll(cleanup);

describe("release archives", () => {
  test("names: .tar.gz, and .zip for Windows", () => {
    expect(archiveName("1.2.3", "linux-x64-musl")).toBe("xbench-1.2.3-linux-x64-musl.tar.gz");
    expect(archiveName("1.2.3", "windows-x64")).toBe("xbench-1.2.3-windows-x64.zip");
  });

  test("a Windows zip and a tarball, each a folder with the binary, README and LICENSE, both in SHA256SUMS", () => {
    for (const target of ["windows-x64", "darwin-arm64"]) mkdirSync(join(work, target));
    writeFileSync(join(work, "windows-x64", "xbench.exe"), "MZ fake");
    writeFileSync(join(work, "darwin-arm64", "xbench"), "fake");
    const out = join(work, "release");
    writeRelease({
      root: ROOT,
      outDir: out,
      version: "9.9.9",
      binaries: { "windows-x64": join(work, "windows-x64", "xbench.exe"), "darwin-arm64": join(work, "darwin-arm64", "xbench") },
    });
    const zip = spawnSync("unzip", ["-Z1", join(out, "xbench-9.9.9-windows-x64.zip")], { encoding: "utf8" });
    expect(zip.stdout.split("\n").filter(Boolean).sort()).toEqual([
      "xbench-9.9.9-windows-x64/",
      "xbench-9.9.9-windows-x64/LICENSE",
      "xbench-9.9.9-windows-x64/README.md",
      "xbench-9.9.9-windows-x64/xbench.exe",
    ]);
    const tar = spawnSync("tar", ["-tzf", join(out, "xbench-9.9.9-darwin-arm64.tar.gz")], { encoding: "utf8" });
    expect(tar.stdout).toContain("xbench-9.9.9-darwin-arm64/xbench\n");
    const sums = readFileSync(join(out, "SHA256SUMS"), "utf8");
    expect(sums).toMatch(/^[0-9a-f]{64} {2}xbench-9\.9\.9-darwin-arm64\.tar\.gz\n[0-9a-f]{64} {2}xbench-9\.9\.9-windows-x64\.zip\n$/);
    expect(spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: out }).status).toBe(0);
  });
});
