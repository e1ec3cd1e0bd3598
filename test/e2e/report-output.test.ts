/**
 * The output formats and colour of `compare` and `report` through the compiled binary
 * (docs/report.md): `report FILE --format F` prints the golden file of test/fixtures/golden for
 * every format and spelling, and one colour decision (NO_COLOR, FORCE_COLOR, a terminal or not)
 * for reports, help and usage errors, checked under a real pseudo-terminal (`script`).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV, repoPerTest } from "../support/compare.ts";
import { workFiles } from "../support/repo.ts";
import { ROOT, requireBinary, xbench } from "../support/xbench.ts";
import { spawnSync } from "node:child_process";

const FIXTURES = join(ROOT, "test", "fixtures");
const golden = (name: string) => readFileSync(join(FIXTURES, "golden", name), "utf8");
/** Select Graphic Rendition: the escape sequences that colour text. */
const SGR = /\u001b\[[0-9;]*m/;
/** The environment without either colour variable, so that only what a test sets counts. */
const PLAIN_ENV: Record<string, string | undefined> = { ...COMPARE_ENV, NO_COLOR: undefined, FORCE_COLOR: undefined };

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * Runs xbench under a pseudo-terminal (util-linux `script`): its stdout is a TTY; stderr is
 * dropped, or with `stderr` a TTY too (what `stdout` then holds is both).
 */
function xbenchOnTerminal(args: string[], options: { cwd?: string; env?: Record<string, string | undefined>; stderr?: boolean } = {}) {
  const command = `${[requireBinary(), ...args].map(quote).join(" ")}${options.stderr ? "" : " 2>/dev/null"}`;
  const r = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8", timeout: 300_000, ...options });
  return { code: r.status, stdout: String(r.stdout ?? "") };
}

describe("report: every format and spelling prints the golden output", () => {
  for (const name of ["aa", "mixed", "slower"]) {
    const file = join(FIXTURES, `${name}-result.json`);
    test.each([
      ["term", "term.txt"],
      ["md", "md"],
      ["markdown", "md"],
      ["json", "json"],
      ["html", "html"],
    ])(`${name}-result.json --format %s`, (format, ext) => {
      const r = xbench(["report", file, "--format", format], { env: PLAIN_ENV });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(golden(`${name}.${ext}`));
    });
  }

  test("--json - takes stdout; the format asked for goes to stderr, as compare's table does", () => {
    const r = xbench(["report", join(FIXTURES, "slower-result.json"), "--format", "md", "--json", "-"], { env: PLAIN_ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(golden("slower.json"));
    expect(r.stderr).toBe(golden("slower.md"));
  });
});

describe("one colour decision", () => {
  const slower = join(FIXTURES, "slower-result.json");

  test("report: a terminal gets colour, NO_COLOR takes it away, FORCE_COLOR gives it to a pipe", () => {
    const onTerminal = xbenchOnTerminal(["report", slower], { env: PLAIN_ENV });
    expect(onTerminal.stdout).toContain("benchmark");
    expect(onTerminal.stdout).toMatch(SGR);
    const noColor = xbenchOnTerminal(["report", slower], { env: { ...PLAIN_ENV, NO_COLOR: "1" } });
    expect(noColor.stdout).toContain("benchmark");
    expect(noColor.stdout).not.toMatch(SGR);
    expect(xbench(["report", slower], { env: { ...PLAIN_ENV, FORCE_COLOR: "1" } }).stdout).toBe(golden("slower.color.txt"));
    expect(xbench(["report", slower], { env: { ...PLAIN_ENV, FORCE_COLOR: "1", NO_COLOR: "1" } }).stdout).toBe(golden("slower.term.txt"));
  });

  // Help, a usage error (stderr) and a report, each on a terminal and on a pipe, under CI and
  // TEST too (citty alone would not colour its help under either, whatever FORCE_COLOR says).
  const env = { ...PLAIN_ENV, CI: "true", TEST: "1" };
  const outputs = [
    { what: "compare --help", args: ["compare", "--help"], code: 0, text: /USAGE/, stream: "stdout" },
    { what: "a usage error", args: ["compare", "--nope"], code: 2, text: /Unknown option: --nope/, stream: "stderr" },
    {
      what: "a report",
      args: ["report", join(FIXTURES, "aa-result.json"), "--format", "term"],
      code: 0,
      text: /benchmark/,
      stream: "stdout",
    },
  ] as const;

  test.each(outputs)("$what: NO_COLOR=1 on a terminal has no colour, FORCE_COLOR=1 on a pipe has, neither: the terminal only", (o) => {
    const onTerminal = (extra: Record<string, string>) => xbenchOnTerminal([...o.args], { env: { ...env, ...extra }, stderr: true });
    const noColor = onTerminal({ NO_COLOR: "1" });
    expect(noColor.code).toBe(o.code);
    expect(noColor.stdout).toMatch(o.text);
    expect(noColor.stdout).not.toMatch(SGR);
    const plainTerminal = onTerminal({});
    expect(plainTerminal.stdout).toMatch(o.text);
    expect(plainTerminal.stdout).toMatch(SGR);

    const forced = xbench([...o.args], { env: { ...env, FORCE_COLOR: "1" } });
    expect(forced.code).toBe(o.code);
    expect(forced[o.stream]).toMatch(o.text);
    expect(forced[o.stream]).toMatch(SGR);
    const plainPipe = xbench([...o.args], { env });
    expect(plainPipe[o.stream]).toMatch(o.text);
    expect(plainPipe.stdout + plainPipe.stderr).not.toMatch(SGR);
  });

  test("a usage error on a terminal is coloured when stdout is a pipe: stderr is asked about, not stdout", () => {
    const command = `${[requireBinary(), "compare", "--nope"].map(quote).join(" ")} | cat >/dev/null`;
    const r = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8", timeout: 300_000, env });
    expect(String(r.stdout)).toMatch(/USAGE/);
    expect(String(r.stdout)).toMatch(SGR);
  });

  const repoWith = repoPerTest();

  test("compare: NO_COLOR on a terminal prints no escape code; FORCE_COLOR colours the table in a pipe", () => {
    const repo = repoWith(workFiles("c.bench.ts", [{ label: "spin", work: 2000 }]));
    const args = ["compare", "--base", "HEAD", "--rounds", "6", "--time", "20"];
    const noColor = xbenchOnTerminal(args, { cwd: repo.dir, env: { ...PLAIN_ENV, NO_COLOR: "1" } });
    expect(noColor.code).toBe(0);
    expect(noColor.stdout).toMatch(/benchmark +base +head +delta/);
    expect(noColor.stdout).not.toContain("\u001b");
    const forced = xbench(args, { cwd: repo.dir, env: { ...PLAIN_ENV, FORCE_COLOR: "1" }, timeout: 300_000 });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/benchmark +base +head +delta/);
    expect(forced.stdout).toMatch(SGR);
  });
});
