/** The flag surface as users of cargo, gh and hyperfine expect it. */
import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { createRepo } from "../support/repo.ts";
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

  test("a bad value gets one line with a guess, not the help page; units and % are accepted", () => {
    const repo = createRepo();
    try {
      repo.write({ "test/bench/index.ts": 'import { bench } from "mitata";\nbench("x", () => 1);\n' });
      repo.commit("base");
      repo.git("tag", "v1.0.0");
      const cases: Array<[string[], string]> = [
        [["--runtime", "nod"], "xbench: --runtime must be one of node, bun, deno (got nod; did you mean node?)\n"],
        [["--runtime=denno"], "xbench: --runtime must be one of node, bun, deno (got denno; did you mean deno?)\n"],
        [["--base", "mian"], "xbench: --base ref not found: mian (did you mean main?)\n"],
        [["--base", "v1.0"], "xbench: --base ref not found: v1.0 (did you mean v1.0.0?)\n"],
        [
          ["--base", "HEAD", "--bench", "test/bench/idx.ts"],
          'xbench: --bench "test/bench/idx.ts" matches no file in the working tree (did you mean test/bench/index.ts?)\n',
        ],
        [
          ["--base", "HEAD", "--max-time", "2 min"],
          "xbench: --max-time must be a positive number of seconds, or with a unit: 500ms, 90s, 2m, 1h (got 2 min)\n",
        ],
        // Accepted: the run goes on to the next check, the ref.
        [["--target", "0.5%", "--max-time", "2m", "--base", "nope"], "xbench: --base ref not found: nope\n"],
        [["--max-time", "90s", "--timeout", "1m", "--time", "0.1s", "--base", "nope"], "xbench: --base ref not found: nope\n"],
      ];
      for (const [args, message] of cases) {
        const r = xbench(["compare", ...args], { cwd: repo.dir });
        expect(r.stderr).toBe(message);
        expect(r.code).toBe(2);
      }
      const bisect = xbench(["bisect", "--good", "HEAD", "--above", "10%", "--runtime", "nde"], { cwd: repo.dir });
      expect(bisect.stderr).toBe("xbench: --runtime must be one of node, bun, deno (got nde; did you mean node?)\n");
    } finally {
      repo.cleanup();
    }
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
    expect(r.stdout).toMatch(
      /^ +--timeout=<S> +Seconds one bench process may run before it is killed, per bench file it measures \(default: 600\)$/m,
    );
    expect(r.stdout).toMatch(/^ +--rounds=<N> +Run exactly N rounds/m);
    expect(r.stdout).toMatch(/^ +--bench=<PATH\|GLOB> +Bench file or glob, repeatable/m);
    expect(r.stdout).toMatch(
      /^ +--runtime=<node\|bun\|deno> +Runtime for the bench processes \(default: the one the project's own tool runs its bench files with, else node\)$/m,
    );
    expect(r.stdout).toMatch(/^ +--install +Install dependencies/m);
    expect(r.stdout).toMatch(/^ +--time=<MS> +Sampling time per benchmark and side in each bench process, in ms \(default: \d+\)$/m);
    expect(xbench(["--help"]).stdout).toMatch(/^ +-V, --version +Print version$/m);
  });
});
