/**
 * argv is walked once, by the command's table (src/args/typed.ts), on the full CLI and on the
 * fast path: what one reads, the other reads the same way; help asked anywhere before `--` wins
 * over a wrong token; a command that only groups others answers anything else with its usage.
 */
import { describe, expect, test } from "bun:test";
import { resolve } from "pathe";
import { defineCommand } from "../../src/args/define.ts";
import { readArgs } from "../../src/args/read.ts";
import { fastParse } from "../../src/args/read-fast.ts";
import { readTyped } from "../../src/args/typed.ts";
import { traceCommand } from "../../src/commands/trace.ts";
import { runCliCaptured } from "../support/cli.ts";

const demo = defineCommand({
  meta: { name: "demo", description: "demo" },
  args: {
    filter: { type: "positional", required: false, description: "a filter" },
    base: { type: "string", description: "a ref" },
    all: { type: "boolean", description: "a switch" },
  },
  run: () => 0,
});
const group = defineCommand({ meta: { name: "group", description: "a group" }, subCommands: { demo: async () => demo } });
const root = defineCommand({
  meta: { name: "xbench", description: "test root" },
  subCommands: { demo: async () => demo, group: async () => group },
});

const cli = (argv: string[]) => runCliCaptured(root, argv);

describe("one walk", () => {
  test("reads values, switches, the flags typed and positionals in order", () => {
    const typed = readTyped(demo, ["x", "--base", "a", "--all", "--base=b", "--no-all", "--", "-y"]);
    expect(typed).toEqual({
      help: false,
      given: ["--base", "--all", "--base", "--all"],
      values: new Map([["base", ["a", "b"]]]),
      switches: new Map([["all", false]]),
      positionals: ["x", "-y"],
      passthrough: undefined,
    });
    expect(readArgs(demo, ["--base", "a", "--base=b"]).flags.base).toBe("b");
  });

  test("says help only where help is answered; a wrong token before it does not stop it", () => {
    expect(readTyped(demo, ["--bogus", "--help"], { help: true }).help).toBe(true);
    expect(readTyped(demo, ["--base", "-h"], { help: true }).help).toBe(true);
    expect(() => readTyped(demo, ["--bogus", "--", "--help"], { help: true })).toThrow("Unknown option: --bogus");
    expect(() => readArgs(demo, ["--help"])).toThrow("Unknown option: --help");
  });

  test("the fast path reads trace's argv as the full CLI does, a negative number and camelCase included", () => {
    for (const argv of [
      ["-1", "x", "--", "true"],
      ["--frob", "--", "true"],
    ]) {
      expect(fastParse(traceCommand, argv)).toBeUndefined();
      expect(() => readArgs(traceCommand, argv)).toThrow();
    }
    const camel = ["--detachOk", "-o=t.json", "--", "true"];
    expect(fastParse(traceCommand, camel)?.flags).toMatchObject({ "detach-ok": true, output: resolve("t.json") });
    expect(readArgs(traceCommand, camel)).toEqual(fastParse(traceCommand, camel)!);
  });
});

describe("the full CLI", () => {
  test("help wins over a wrong token typed before it, not after --", async () => {
    expect(await cli(["demo", "--bogus", "--help"])).toMatchObject({ code: 0, stderr: "" });
    const after = await cli(["demo", "--bogus", "--", "--help"]);
    expect(after.code).toBe(2);
    expect(after.stderr.split("\n")[0]).toBe("xbench: Unknown option: --bogus");
  });

  test("a command that only groups others answers a flag with its usage, exit 2", async () => {
    const r = await cli(["group", "--bogus"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("USAGE xbench group");
    expect((await cli(["group", "--bogus", "-h"])).code).toBe(0);
  });

  test("runs the command with its flags and returns its status", async () => {
    expect(await cli(["demo", "x", "--all"])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await cli(["group", "demo", "--base"])).stderr.split("\n")[0]).toBe("xbench: Option --base needs a value: --base <BASE>");
  });
});
