/** The flag surface as users of cargo, gh and hyperfine expect it. */
import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { xbench } from "../support/xbench.ts";

const COMMANDS = ["", "compare ", "bisect ", "trace ", "bench ", "bench config ", "bench tracer ", "report ", "helpers ", "exec-stats "];

describe("command line surface", () => {
  test("a mistyped command gets one line with a suggestion, exit 2", () => {
    const compare = xbench(["compre", "--base", "main"]);
    expect(compare.code).toBe(2);
    expect(compare.stderr).toBe("xbench: Unknown command: compre (did you mean `compare`?)\n");
    expect(xbench(["bench", "confg"]).stderr).toBe("xbench: Unknown command: confg (did you mean `bench config`?)\n");
    expect(xbench(["exec-stat"]).stderr).not.toContain("did you mean"); // hidden commands are never suggested
  });

  test("a mistyped option gets a suggestion too", () => {
    const r = xbench(["compare", "--rouds", "4"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("xbench: Unknown option: --rouds (did you mean --rounds?)\n");
  });

  test.each(["-V", "--version"])("%s prints the version", (flag) => {
    const r = xbench([flag]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  test.each(COMMANDS)("xbench %s--help: examples, one spelling of defaults, no trailing whitespace", (command) => {
    const path = command.split(" ").filter(Boolean);
    const r = xbench([...path, "--help"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.filter((line) => /\s$/.test(line))).toEqual([]);
    const examples = lines.slice(lines.indexOf("EXAMPLES") + 1).filter((line) => line.trim() !== "");
    expect(lines).toContain("EXAMPLES");
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(`${example} `).toStartWith(`  xbench ${command}`);
    for (const mention of r.stdout.match(/.{0,1}default\W{0,2}/gi) ?? []) expect(mention).toMatch(/^\(default: $/);
    expect(r.stdout).toContain("-h, --help");
  });

  test("options show their value as <VALUE> and their default once", () => {
    const r = xbench(["compare", "--help"]);
    expect(r.stdout).toMatch(/^ {6}--timeout <S> +Seconds one bench process may run before it is killed \(default: 600\)$/m);
    expect(r.stdout).toMatch(/^ {6}--rounds <N> +Run exactly N rounds/m);
    expect(r.stdout).toMatch(/^ {6}--bench <PATH\|GLOB> +Bench file or glob, repeatable/m);
    expect(r.stdout).toMatch(/^ {6}--runtime <node\|bun\|deno> +Runtime for the bench processes \(default: node\)$/m);
    expect(r.stdout).toMatch(/^ {6}--install +Install dependencies/m);
    expect(xbench(["--help"]).stdout).toMatch(/^ {2}-V, --version +Print version$/m);
  });
});
