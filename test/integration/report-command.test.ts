/**
 * `xbench report` end to end: from source with bun (always), and through dist/xbench when a
 * build of it is present (other engineers rebuild dist concurrently, so that part is best effort).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { BIN, ROOT, tempDir } from "../support/xbench.ts";

const FIXTURES = join(ROOT, "test", "fixtures");
const ENTRY = join(ROOT, "src", "cli", "index.ts");

type Runner = (args: string[], env?: Record<string, string>) => { code: number | null; stdout: string; stderr: string };

const fromSource: Runner = (args, env = {}) => {
  const r = spawnSync(process.execPath, [ENTRY, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

const fromBinary: Runner = (args, env = {}) => {
  const r = spawnSync(BIN, args, { encoding: "utf8", env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

/** The binary, if built from a tree that has the report command (not the "not built yet" stub). */
function binaryHasReport(): boolean {
  if (!existsSync(BIN)) return false;
  return !fromBinary(["report", join(FIXTURES, "aa-result.json")]).stderr.includes("not built yet");
}

const runners: Array<[string, Runner, boolean]> = [
  ["source", fromSource, false],
  ["dist/xbench", fromBinary, !binaryHasReport()],
];

for (const [name, run, skip] of runners) {
  describe.skipIf(skip)(`xbench report (${name})`, () => {
    test("--format md reproduces the hand-checked markdown", () => {
      const r = run(["report", join(FIXTURES, "aa-result.json"), "--format", "md"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(FIXTURES, "aa.md"), "utf8"));
    });

    test("term is the default, with no colour when stdout is not a TTY", () => {
      const r = run(["report", join(FIXTURES, "aa-result.json")]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(FIXTURES, "aa.term.txt"), "utf8"));
      expect(r.stdout).not.toContain("\u001b[");
    });

    test("--format json writes the model back unchanged", () => {
      const r = run(["report", join(FIXTURES, "mixed-result.json"), "--format", "json"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(FIXTURES, "mixed-result.json"), "utf8"));
    });

    test("--format html writes the page; --html FILE beside another format writes the same page", () => {
      const r = run(["report", join(FIXTURES, "slower-result.json"), "--format", "html"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toStartWith("<!doctype html>\n");
      expect(r.stdout.match(/<g class="mark /g)).toHaveLength(2);
      expect(r.stdout).toContain('class="threshold"');
      const { dir, cleanup } = tempDir();
      try {
        const file = join(dir, "report.html");
        const md = run(["report", join(FIXTURES, "slower-result.json"), "--format", "md", "--html", file]);
        expect(md.code).toBe(0);
        expect(readFileSync(file, "utf8")).toBe(r.stdout);
      } finally {
        cleanup();
      }
    });

    test("--min-effect reads the verdicts again: 0 turns the A/A table's same row into ~", () => {
      const saved = run(["report", join(FIXTURES, "aa-result.json"), "--format", "json"]);
      expect(JSON.parse(saved.stdout).rows.filter((r: { stats?: { verdict: string } }) => r.stats?.verdict === "same")).toHaveLength(1);
      const r = run(["report", join(FIXTURES, "aa-result.json"), "--format", "json", "--min-effect", "0"]);
      expect(r.code).toBe(0);
      const result = JSON.parse(r.stdout);
      expect(result.minEffect).toBe(0);
      expect(result.rows.filter((row: { stats?: { verdict: string } }) => row.stats?.verdict === "same")).toHaveLength(0);
      const bad = run(["report", join(FIXTURES, "aa-result.json"), "--min-effect", "-1"]);
      expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("--min-effect must be a percentage")]);
    });

    test("bad files give one line and exit 2", () => {
      const { dir, cleanup } = tempDir();
      try {
        const newer = JSON.parse(readFileSync(join(FIXTURES, "mixed-result.json"), "utf8"));
        newer.schemaVersion = 99;
        writeFileSync(join(dir, "newer.json"), JSON.stringify(newer));
        writeFileSync(join(dir, "broken.json"), '{"schema": ');
        const cases: Array<[string, string]> = [
          [join(dir, "missing.json"), "no such file"],
          [join(dir, "broken.json"), "not valid JSON"],
          [join(dir, "newer.json"), "schema version 99, newer than this xbench reads"],
          [join(FIXTURES, "seed-aa-rows.json"), "not an xbench compare result"],
        ];
        for (const [file, message] of cases) {
          const r = run(["report", file]);
          expect([file, r.code]).toEqual([file, 2]);
          expect(r.stdout).toBe("");
          expect(r.stderr).toContain(message);
          expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
        }
      } finally {
        cleanup();
      }
    });
  });
}
