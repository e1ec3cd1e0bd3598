/**
 * The launchers' command line (native/common/args.c, the scanner xbench-supervisor and
 * xbench-mac-launch share), through the built supervisor: options, then `--` and the command;
 * anything else is the usage line and exit 125, and the options before a mistake are read in
 * order (`--version` first wins).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "pathe";
import { SUPERVISOR } from "../support/trace.ts";
import { tempDir } from "../support/xbench.ts";

const tmp = tempDir("xbench-launcher-args-");
afterAll(tmp.cleanup);
const log = join(tmp.dir, "trace.log");

function supervisor(args: string[]) {
  const r = spawnSync(SUPERVISOR, args, { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("xbench-supervisor's options", () => {
  test("--version prints the log version and exits 0, before any later mistake", () => {
    for (const args of [["--version"], ["--version", "--no-such-flag"], ["--backend", "seccomp", "--version"]]) {
      const r = supervisor(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^xbench-supervisor log v\d+\n$/);
    }
  });

  test.each([
    ["an unknown option", ["--no-such-flag", "--log", log, "--", "true"]],
    ["a mistake before --version", ["--no-such-flag", "--version"]],
    ["an option without its value", ["--log"]],
    ["a value option last before --", ["--backend", "auto", "--log"]],
    ["no -- before the command", ["--log", log, "true"]],
    ["-- with no command after it", ["--log", log, "--"]],
    ["no --log", ["--backend", "auto", "--", "true"]],
    ["a backend it does not know", ["--backend", "strace", "--log", log, "--", "true"]],
    ["a bad signal list", ["--ignore-signals", "1,x", "--log", log, "--", "true"]],
  ])("%s: the usage line, exit 125", (_what, args) => {
    const r = supervisor(args);
    expect(r.code).toBe(125);
    expect(r.stderr).toStartWith("usage: xbench-supervisor ");
    expect(r.stdout).toBe("");
  });

  test("the arguments after -- are the command's own, options or not", () => {
    const r = supervisor(["--backend", "preload", "--log", log, "--", "sh", "-c", 'printf "%s|" "$@"', "sh", "--version", "--log", "--"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("--version|--log|--|");
    expect(existsSync(log)).toBe(true);
  });

  test("a value may look like an option: --log takes the next argument whatever it is", () => {
    const dashed = join(tmp.dir, "--version");
    const r = supervisor(["--log", dashed, "--backend", "preload", "--", "true"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(existsSync(dashed)).toBe(true);
  });
});
