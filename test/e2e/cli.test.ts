import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import pkg from "../../package.json" with { type: "json" };
import { ROOT, tempDir, xbench, xbenchAsync, requireBinary } from "../support/xbench.ts";
import { sha256 } from "../../src/helpers/cache.ts";

describe("dist/xbench CLI", () => {
  test("--version prints the package version", () => {
    const r = xbench(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  test("runs with an empty environment (self-contained, no node on PATH)", () => {
    const r = spawnSync("env", ["-i", requireBinary(), "--version"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  test("--help lists every command", () => {
    const r = xbench(["--help"]);
    expect(r.code).toBe(0);
    for (const name of ["compare", "trace", "bench", "report"]) expect(r.stdout).toContain(name);
    expect(r.stdout).not.toContain("\u001b["); // no colour when not a TTY
  });

  test.each(["compare", "trace", "bench", "bench config", "bench tracer", "report"])("%s --help", (command) => {
    const r = xbench([...command.split(" "), "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`USAGE xbench ${command}`);
  });

  test("unknown command: one line of error, usage, exit 2", () => {
    const r = xbench(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe("xbench: Unknown command: frobnicate");
    expect(r.stderr).toContain("USAGE xbench");
    expect(r.stdout).toBe("");
  });

  test("unknown flag: one line of error, usage, exit 2", () => {
    const r = xbench(["compare", "--frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe("xbench: Unknown option: --frobnicate");
    expect(r.stderr).toContain("USAGE xbench compare");
  });

  test("a flag missing its value is a usage error: the line, the usage line, where the options are", () => {
    const r = xbench(["compare", "--rounds"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "xbench: Option --rounds needs a value: --rounds <N>\n\nUSAGE xbench compare [OPTIONS] [FILTER]\n\nRun xbench compare --help for its options.\n",
    );
  });

  test("an invalid enum value is one plain line (no colour escapes on a pipe)", () => {
    const r = xbench(["report", "--format", "bogus", "x.json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("xbench: --format must be one of term, json, md, markdown, html (got bogus)\n");
  });

  test("bench without a suite prints usage and exits 2", () => {
    const r = xbench(["bench"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("config");
    expect(r.stderr).toContain("tracer");
  });
});

describe("helper cache", () => {
  test("two first runs at once leave a valid cache; a corrupted helper is re-extracted", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const env = { ...process.env, XBENCH_CACHE_DIR: dir };
      const runs = await Promise.all([1, 2, 3, 4].map(() => xbenchAsync(["helpers"], { env })));
      for (const r of runs) expect(r.code).toBe(0);
      const folder = runs[0]!.stdout.trim();
      expect(folder.startsWith(dir)).toBe(true);
      for (const r of runs) expect(r.stdout.trim()).toBe(folder);
      const built = join(ROOT, "dist", "helpers", "linux-x64");
      const names = readdirSync(built).sort();
      expect(readdirSync(folder).sort()).toEqual(names); // no temp files left behind
      for (const name of names) {
        expect(sha256(readFileSync(join(folder, name)))).toBe(sha256(readFileSync(join(built, name))));
      }
      const victim = join(folder, names[0]!);
      writeFileSync(victim, "garbage");
      expect(xbench(["helpers"], { env }).code).toBe(0);
      expect(sha256(readFileSync(victim))).toBe(sha256(readFileSync(join(built, names[0]!))));
    } finally {
      cleanup();
    }
  });
});
