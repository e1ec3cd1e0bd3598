/** xbench trace on everyday programs: modes, pass-through, formats, errors. */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { tempDir, xbench, requireBinary } from "../support/xbench.ts";
import { PYTHON, compile, fixture, traceRun } from "../support/trace.ts";

const tmp = tempDir("xbench-trace-basic-");
const dir = realpathSync(tmp.dir);
afterAll(tmp.cleanup);

const file = join(dir, "input.txt");
writeFileSync(file, "hello\n");
mkdirSync(join(dir, "listed"));
writeFileSync(join(dir, "listed", "x"), "");

describe.each(["auto", "preload", "seccomp"])("backend %s", (backend) => {
  test("cat FILE: FILE read", () => {
    const r = traceRun(["cat", file], ["--backend", backend]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("hello\n");
    expect(r.modes.get(file)).toContain("read");
    expect(r.trace.complete).toBe(true);
  });

  test("sh -c 'echo x > OUT': OUT written", () => {
    const out = join(dir, `out-${backend}.txt`);
    const r = traceRun(["sh", "-c", `echo x > ${out}`], ["--backend", backend]);
    expect(r.code).toBe(0);
    expect(r.modes.get(out)).toContain("write");
  });

  test("ls DIR: DIR listed", () => {
    const r = traceRun(["ls", join(dir, "listed")], ["--backend", backend]);
    expect(r.stdout).toBe("x\n");
    expect(r.modes.get(join(dir, "listed"))).toContain("readdir");
  });

  test("test -e MISSING: a missing probe", () => {
    const missing = join(dir, "no-such-file");
    const r = traceRun(["sh", "-c", `test -e ${missing}`], ["--backend", backend]);
    expect(r.code).toBe(1);
    expect(r.modes.get(missing)).toEqual(["missing"]);
  });

  test("python3 -c 'import json': the json package read", () => {
    const r = traceRun([PYTHON, "-c", "import json"], ["--backend", backend]);
    expect(r.code).toBe(0);
    const read = r.trace.accesses.filter((a) => a.path.includes("/json/") && a.modes.includes("read")).map((a) => a.path);
    expect(read.some((p) => /\/json\/(__pycache__\/)?__init__\./.test(p))).toBe(true);
    expect(read.some((p) => /\/json\/(__pycache__\/)?decoder\./.test(p))).toBe(true);
  });
});

test("fortified open (__open_2, _FORTIFY_SOURCE) is seen by the shim", () => {
  const bin = join(dir, "fortified");
  compile("gcc", ["-O2", "-D_FORTIFY_SOURCE=2", "-o", bin, fixture("fortified.c")]);
  const r = traceRun([bin, file, "0"], ["--backend", "preload"]);
  expect(r.code).toBe(0);
  expect(r.modes.get(file)).toEqual(["read"]);
});

describe("pass-through", () => {
  const script = `printf 'out\\0bin\\n'; printf 'err\\n' >&2; read line; echo "got $line"; exit 3`;

  test("exit code, stdout and stderr are byte-identical with and without tracing", () => {
    const plain = spawnSync("sh", ["-c", script], { input: "in\n" });
    for (const backend of ["auto", "preload", "seccomp"]) {
      const traced = spawnSync(requireBinary(), ["trace", "--backend", backend, "-o", join(dir, "pt.txt"), "--", "sh", "-c", script], {
        input: "in\n",
      });
      expect(traced.status).toBe(plain.status);
      expect(Buffer.compare(traced.stdout, plain.stdout)).toBe(0);
      // The summary line is xbench's own, last on stderr; everything before it is the command's.
      const err = traced.stderr.toString("latin1");
      expect(err.startsWith(plain.stderr.toString("latin1"))).toBe(true);
      expect(err.slice(plain.stderr.length)).toMatch(/^traced \d+ paths .*\n$/);
    }
  });

  test("a signal death is reported the shell's way (128+n)", () => {
    const r = xbench(["trace", "--", "sh", "-c", "kill -TERM $$"]);
    expect(r.code).toBe(143);
    const s = xbench(["trace", "--backend", "seccomp", "--", "sh", "-c", "kill -SEGV $$"]);
    expect(s.code).toBe(139);
  });

  test("command not found: 127, and a one-line message (no summary of nothing after it)", () => {
    const r = xbench(["trace", "--", "definitely-not-a-command-xyz"]);
    expect(r.code).toBe(127);
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringContaining("definitely-not-a-command-xyz: command not found")]);
    // A command that ran and exited 127 keeps its summary.
    const ran = xbench(["trace", "--", "sh", "-c", "exit 127"]);
    expect(ran.code).toBe(127);
    expect(ran.stderr).toMatch(/^traced \d+ paths/m);
  });

  test("a command path that does not exist: 127, and the path is missing, not executed", () => {
    const out = join(dir, "nx.ndjson");
    const missing = join(dir, "no-such-program");
    const r = xbench(["trace", "--format", "ndjson", "-o", out, "--", missing]);
    expect(r.code).toBe(127);
    expect(r.stderr).toContain(`${missing}: No such file or directory`);
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.find((a) => a.path === missing)).toMatchObject({ modes: ["missing"] });
  });
});

describe("formats and errors", () => {
  test("ndjson to -o FILE, summary on stderr, stdout untouched", () => {
    const out = join(dir, "t.ndjson");
    const r = xbench(["trace", "--format", "ndjson", "-o", out, "--", "cat", file]);
    expect(r.stdout).toBe("hello\n");
    expect(r.stderr).toMatch(/traced \d+ paths \(\d+ read, .*complete/);
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.find((a) => a.path === file)).toMatchObject({ modes: ["read"] });
  });

  test("json without -o goes to stderr", () => {
    const r = xbench(["trace", "--format", "json", "--", "cat", file]);
    expect(r.stdout).toBe("hello\n");
    const parsed = JSON.parse(r.stderr);
    expect(parsed.accesses.some((a: { path: string }) => a.path === file)).toBe(true);
  });

  test("summary listing with -o", () => {
    const out = join(dir, "t.txt");
    xbench(["trace", "-o", out, "--", "cat", file]);
    expect(readFileSync(out, "utf8")).toContain(`read  `);
    expect(readFileSync(out, "utf8")).toContain(file);
  });

  test("no command: usage error", () => {
    const r = xbench(["trace"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("needs a command");
  });
});
