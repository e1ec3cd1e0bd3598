import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "pathe";
import pkg from "../../package.json" with { type: "json" };
import { ROOT } from "../support/xbench.ts";

const EXPECTED: Record<string, RegExp> = {
  "linux-x64/xbench": /^ELF 64-bit LSB executable, x86-64/,
  "linux-x64-musl/xbench": /^ELF 64-bit LSB executable, x86-64/,
  "linux-arm64/xbench": /^ELF 64-bit LSB executable, ARM aarch64/,
  "darwin-x64/xbench": /^Mach-O 64-bit x86_64 executable/,
  "darwin-arm64/xbench": /^Mach-O 64-bit arm64 executable/,
  "windows-x64/xbench.exe": /^PE32\+ executable \(console\) x86-64/,
};

describe("bun build.ts --target all", () => {
  test("cross-compiles six binaries of the right file types", () => {
    const build = spawnSync(join(ROOT, "node_modules", ".bin", "bun"), ["build.ts", "--target", "all"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 600_000,
    });
    expect(build.stderr).not.toMatch(/^build: /m);
    expect(build.status).toBe(0);
    for (const [file, type] of Object.entries(EXPECTED)) {
      const r = spawnSync("file", ["-b", join(ROOT, "dist", file)], { encoding: "utf8" });
      expect(`${file}: ${r.stdout}`).toMatch(new RegExp(`^${file.replace(/[.+]/g, "\\$&")}: ${type.source.slice(1)}`));
    }
    const host = spawnSync(join(ROOT, "dist", "linux-x64", "xbench"), ["--version"], { encoding: "utf8" });
    expect(host.stdout).toBe(`${pkg.version}\n`);
    // Built under `bun test` (NODE_ENV=test): the binary must not have that inlined, which
    // would silence its progress messages for good.
    expect(process.env.NODE_ENV).toBe("test");
    const chatty = spawnSync(join(ROOT, "dist", "xbench"), ["bench", "tracer", "--iterations", "1", "--backends", "preload"], {
      encoding: "utf8",
      env: { ...process.env, NODE_ENV: "production" },
    });
    expect(chatty.stderr).toContain("validating the head tracer");
  }, 600_000);
});
