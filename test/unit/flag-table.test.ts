/**
 * One flag table per command, citty's own `args` (src/args/types.ts): a flag added to a table is
 * shown by --help (citty's rendering), read and checked by the one walk over argv, on the full
 * CLI and the fast path alike, with nothing else to edit.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { defineCommand } from "../../src/args/define.ts";
import { renderHelp } from "../../src/args/help.ts";
import { readArgs as parseArgs } from "../../src/args/read.ts";
import { fastParse } from "../../src/args/read-fast.ts";
import type { AnyCommand, Args, ParsedArgs } from "../../src/args/types.ts";
import { positiveInt } from "../../src/args/values.ts";
import { forStream } from "../../src/output/color.ts";
import { rootCommand } from "../../src/commands/root.ts";
import { traceCommand } from "../../src/commands/trace.ts";
import { runCliCaptured } from "../support/cli.ts";

// biome-ignore lint/suspicious/noExplicitAny: what run was given, whatever its table
let seen: ParsedArgs<any> | undefined;

/** trace's table with one flag more, and a run that records what it was given. */
const extended = defineCommand({
  ...traceCommand,
  args: {
    ...traceCommand.args,
    "sample-rate": { type: "string", valueHint: "HZ", description: "Samples per second", default: "100", parse: positiveInt(1) },
    color: { type: "enum", options: ["auto", "always", "never"], description: "Colour the summary" },
    detail: { type: "enum", options: ["some", "all"], bare: "some", description: "Detail, typed alone or with a level" },
  },
  run(args) {
    seen = args;
    return 0;
  },
});

const root = defineCommand({ meta: { name: "xbench", description: "test root" }, subCommands: { trace: async () => extended } });

/** Runs the full CLI on `argv` with `extended` as its trace; stdout, stderr and the exit status. */
const cli = (argv: string[]) => runCliCaptured(root, argv);

afterEach(() => {
  seen = undefined;
});

describe("a flag added to trace's table", () => {
  test("appears in its help, with its value hint and default", async () => {
    const help = forStream(await renderHelp(extended, ["trace"]), false);
    expect(help).toMatch(/^ +--sample-rate=<HZ> {4}Samples per second \(default: 100\)$/m);
    expect(help).toMatch(/^ +--color=<auto\|always\|never> {4}Colour the summary$/m);
    expect(await renderHelp(traceCommand, ["trace"])).not.toContain("--sample-rate");
    expect((await cli(["trace", "--help"])).stdout).toContain("--sample-rate=<HZ>");
  });

  test("is accepted and parsed, its default when not typed", () => {
    const typed = parseArgs(extended, ["--sample-rate=50", "--color", "never", "--", "true"]);
    expect(typed.flags).toMatchObject({ "sample-rate": 50, color: "never", backend: "auto" });
    expect(typed.given).toEqual(["--sample-rate", "--color"]);
    const defaults = parseArgs(extended, ["--", "true"]).flags;
    expect(defaults["sample-rate"]).toBe(100);
    expect(defaults.color).toBeUndefined();
    expect(() => parseArgs(traceCommand, ["--sample-rate", "50", "--", "true"])).toThrow("Unknown option: --sample-rate");
  });

  test("has its bad values and misspellings refused in one line", async () => {
    expect(() => parseArgs(extended, ["--sample-rate", "0", "--", "true"])).toThrow(
      "--sample-rate must be an integer of at least 1 (got 0)",
    );
    const bad = await cli(["trace", "--color", "nevr", "--", "true"]);
    expect(bad).toEqual({
      code: 2,
      stdout: "",
      stderr: "xbench: --color must be one of auto, always, never (got nevr; did you mean never?)\n",
    });
    const typo = await cli(["trace", "--sample-rat", "5", "--", "true"]);
    expect(typo.stderr).toBe("xbench: Unknown option: --sample-rat (did you mean --sample-rate?)\n");
    expect(typo.code).toBe(2);
    expect(seen).toBeUndefined();
  });

  test("reaches run through the full CLI", async () => {
    expect((await cli(["trace", "--sample-rate", "7", "--", "make", "-j4"])).code).toBe(0);
    expect(seen?.flags).toMatchObject({ "sample-rate": 7 });
    expect(seen?.command).toEqual(["make", "-j4"]);
    expect((await cli(["trace", "--detail", "--", "true"])).code).toBe(0);
    expect(seen?.flags).toMatchObject({ detail: "some" });
    expect((await cli(["trace", "--detail", "all", "--", "true"])).code).toBe(0);
    expect(seen?.flags).toMatchObject({ detail: "all" });
  });

  test("is parsed on the fast path too, which leaves a bad value to the full CLI", () => {
    expect(fastParse(extended, ["--sample-rate", "7", "--", "true"])?.flags).toMatchObject({ "sample-rate": 7 });
    expect(fastParse(extended, ["--sample-rate", "x", "--", "true"])).toBeUndefined();
    expect(fastParse(traceCommand, ["--sample-rate", "7", "--", "true"])).toBeUndefined();
  });
});

describe("the parser", () => {
  const spec = defineCommand({
    meta: { name: "demo", description: "demo" },
    args: {
      filter: { type: "positional", required: false, description: "a filter" },
      bench: { type: "string", description: "repeatable", repeatable: true },
      all: { type: "boolean", description: "a switch" },
      out: { type: "string", path: "file", alias: "o", description: "a file" },
      profile: { type: "enum", options: ["verdict", "all"], bare: "verdict", description: "an enum typed alone" },
    },
  });

  test("keeps every value of a repeatable flag, in order", () => {
    expect(parseArgs(spec, ["--bench", "a", "--bench=b"]).flags.bench).toEqual(["a", "b"]);
    expect(parseArgs(spec, []).flags.bench).toEqual([]);
  });

  test("reads booleans as typed, --no-NAME included; a boolean takes no other value", () => {
    expect(parseArgs(spec, ["--all"]).flags.all).toBe(true);
    expect(parseArgs(spec, ["--all", "--no-all"]).flags.all).toBe(false);
    expect(parseArgs(spec, ["--no-all", "--all"]).flags.all).toBe(true);
    expect(parseArgs(spec, ["--no-all", "--all", "--all=false"]).flags.all).toBe(false);
    expect(parseArgs(spec, ["--all=false"]).flags.all).toBe(false);
    expect(() => parseArgs(spec, ["--all=yes"])).toThrow("Option --all takes no value (got yes)");
  });

  test("gives an enum typed alone its bare value, and takes the next argument only when it is an option", () => {
    expect(parseArgs(spec, ["--profile"]).flags.profile).toBe("verdict");
    expect(parseArgs(spec, ["--profile", "all"]).flags.profile).toBe("all");
    expect(parseArgs(spec, ["--profile", "x"])).toMatchObject({ flags: { profile: "verdict" }, positionals: ["x"] });
    expect(parseArgs(spec, ["--profile", "--all"]).flags).toMatchObject({ profile: "verdict", all: true });
    expect(parseArgs(spec, []).flags.profile).toBeUndefined();
  });

  test("lists the flags typed, in order, by their long names; a default is not among them", () => {
    expect(parseArgs(spec, ["-o", "x", "--all", "--bench", "a"]).given).toEqual(["--out", "--all", "--bench"]);
    expect(parseArgs(spec, []).given).toEqual([]);
  });

  test("makes paths absolute where they were typed; - stays stdout", () => {
    expect(parseArgs(spec, ["-o", "r.json"], "/w").flags.out).toBe("/w/r.json");
    expect(parseArgs(spec, ["-o=-"], "/w").flags.out).toBe("-");
  });

  test("refuses surplus arguments, missing values and long names spelled short", () => {
    expect(parseArgs(spec, ["x"]).positionals).toEqual(["x"]);
    expect(parseArgs(spec, ["--", "-x"]).positionals).toEqual(["-x"]);
    expect(() => parseArgs(spec, ["x", "y"])).toThrow("Unexpected argument: y");
    expect(() => parseArgs(spec, ["--out"])).toThrow("Option --out needs a value");
    expect(() => parseArgs(spec, ["--out", "--all"])).toThrow("Option --out needs a value");
    expect(() => parseArgs(spec, ["-all"])).toThrow("Unknown option: -all (did you mean --all?)");
    expect(() => parseArgs(spec, ["--constructor", "x"])).toThrow("Unknown option: --constructor");
  });

  test("tells a command that takes one after -- where it goes", () => {
    expect(() => parseArgs(traceCommand, ["make"])).toThrow("Unexpected argument: make (the command goes after --: xbench trace -- make)");
    expect(() => parseArgs(traceCommand, [])).toThrow("trace needs a command after --, e.g. xbench trace -- make");
  });
});

test("every command's help (citty's rendering) lists each flag of its table with its description", async () => {
  const missing: string[] = [];
  const visit = async (command: AnyCommand, path: string[]) => {
    const help = forStream(await renderHelp(command, path), false);
    for (const [name, arg] of Object.entries((command.args ?? {}) as Args)) {
      const spelled = arg.type === "positional" ? name.toUpperCase() : `--${name}`;
      const line = help.split("\n").find((l) => new RegExp(`^\\s*(-\\w, )?${spelled}(=|\\s|$)`).test(l));
      if (!line?.includes(arg.description)) missing.push(`xbench ${path.join(" ")}: ${spelled}`);
    }
    for (const [name, load] of Object.entries(command.subCommands ?? {})) await visit(await load(), [...path, name]);
  };
  await visit(rootCommand, []);
  expect(missing).toEqual([]);
});
