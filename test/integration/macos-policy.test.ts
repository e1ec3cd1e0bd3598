/**
 * The macOS helpers' platform-neutral C (native/mac/policy.c, search.c) and the log writer they
 * share with Linux, built for this machine with gcc through test/fixtures/trace/mac-policy.c:
 * Darwin flags become the Linux values the reader decodes, SIP-protected programs are known,
 * PATH searches report the folders that lacked the program, a child's environment gets the
 * dylib and the log back, and records written the dylib's way read back with the right modes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { includeFlags } from "../../build/native-units.ts";
import { readAccessLog } from "../../src/tracer/index.ts";
import { FIXTURES, compile, have } from "../support/trace.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

const tmp = tempDir("xbench-mac-policy-");
const driver = join(tmp.dir, "mac-policy");
const haveGcc = have("gcc");
if (!haveGcc) console.log("skip: gcc not found; the macOS policy code is not tested (apt-get install gcc)");

beforeAll(() => {
  if (!haveGcc) return;
  const native = join(ROOT, "native");
  compile("gcc", [
    "-O1",
    "-Wall",
    "-Werror",
    "-o",
    driver,
    join(FIXTURES, "mac-policy.c"),
    join(native, "mac", "policy.c"),
    join(native, "mac", "search.c"),
    join(native, "unix", "logfile.c"),
    // The log writer with macOS's sys.h (libc), as the dylib and launcher build it.
    ...includeFlags("darwin", ROOT),
  ]);
});
afterAll(() => tmp.cleanup());

/** Runs the driver on `lines`, one answer per line. */
function ask(lines: string[]): string[] {
  const r = spawnSync(driver, [], { input: `${lines.join("\n")}\n`, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`mac-policy exited ${r.status}: ${r.stderr}`);
  return r.stdout.trimEnd().split("\n");
}

// Darwin's <fcntl.h> values (policy.c checks them against the real header on macOS).
const D = { WRONLY: 1, RDWR: 2, APPEND: 0x8, NOFOLLOW: 0x100, CREAT: 0x200, TRUNC: 0x400, EXCL: 0x800 } as const;
const D2 = { EVTONLY: 0x8000, DIRECTORY: 0x100000, SYMLINK: 0x200000, CLOEXEC: 0x1000000 } as const;
// Linux's, as src/tracer/accesses.ts decodes them.
const L = { CREAT: 0x40, EXCL: 0x80, TRUNC: 0x200, APPEND: 0x400, DIRECTORY: 0x10000, NOFOLLOW: 0x20000, CLOEXEC: 0x80000, PATH: 0x200000 };

describe.skipIf(!haveGcc)("native/mac/policy.c", () => {
  test("Darwin open flags, fopen modes and *at flags become Linux's", () => {
    const cases: Array<[string, number]> = [
      ["open 0", 0],
      [`open ${D.WRONLY | D.CREAT | D.TRUNC}`, 1 | L.CREAT | L.TRUNC],
      [`open ${D.RDWR | D.APPEND}`, 2 | L.APPEND],
      [`open ${D2.DIRECTORY}`, L.DIRECTORY],
      [`open ${D2.SYMLINK}`, L.PATH],
      [`open ${D2.EVTONLY}`, L.PATH],
      [`open ${D2.CLOEXEC | D.NOFOLLOW | D.EXCL}`, L.CLOEXEC | L.NOFOLLOW | L.EXCL],
      ["fopen r", 0],
      ["fopen rb", 0],
      ["fopen r+", 2],
      ["fopen w", 1 | L.CREAT | L.TRUNC],
      ["fopen w+", 2 | L.CREAT | L.TRUNC],
      ["fopen wx", 1 | L.CREAT | L.TRUNC | L.EXCL],
      ["fopen a", 1 | L.CREAT | L.APPEND],
      ["fopen a+", 2 | L.CREAT | L.APPEND],
      ["at 32", 0x100],
      ["at 16", 0],
    ];
    expect(ask(cases.map(([q]) => q))).toEqual(cases.map(([, a]) => String(a)));
  });

  test("SIP-protected programs: /System, /bin, /sbin, /usr but /usr/local", () => {
    const cases: Array<[string, number]> = [
      ["/usr/bin/make", 1],
      ["/bin/sh", 1],
      ["/sbin/mount", 1],
      ["/usr", 1],
      ["/usr/libexec/path_helper", 1],
      ["/System/Library/Frameworks/x", 1],
      ["/Library/Apple/usr/bin/x", 1],
      ["/usr/local/bin/node", 0],
      ["/usr/local", 0],
      ["/usrlocal/bin/x", 0],
      ["/binaries/x", 0],
      ["/opt/homebrew/bin/git", 0],
      ["/Users/me/bin/tool", 0],
      ["/Library/Frameworks/x", 0],
      ["bin/sh", 0],
    ];
    expect(ask(cases.map(([p]) => `sip ${p}`))).toEqual(cases.map(([, a]) => String(a)));
  });

  test("a script's interpreter is read from its #! line", () => {
    const files: Array<[string, string]> = [
      ["#!/bin/sh\necho hi\n", "/bin/sh"],
      ["#! /usr/bin/env node\n", "/usr/bin/env"],
      ["#!/usr/local/bin/python3 -u\n", "/usr/local/bin/python3"],
      ["\x7fELF\x02\x01", "-"],
      ["#!\n", "-"],
    ];
    const paths = files.map(([text], i) => {
      const p = join(tmp.dir, `script${i}`);
      writeFileSync(p, text);
      return p;
    });
    expect(ask(paths.map((p) => `shebang ${p}`))).toEqual(files.map(([, interp]) => interp));
  });

  test("#!/usr/bin/env scripts: the program env would run, found on PATH unless SIP would strip it too", () => {
    const bin = join(tmp.dir, "envbin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "node"), "\x7fELF");
    chmodSync(join(bin, "node"), 0o755);
    writeFileSync(join(bin, "wrapped"), "#!/bin/sh\n"); // a program that SIP would strip through its interpreter
    chmodSync(join(bin, "wrapped"), 0o755);
    const scripts: Record<string, string> = {
      node: "#!/usr/bin/env node\nconsole.log(1)\n",
      spaced: "#!  /usr/bin/env   node  \r\n",
      options: "#!/usr/bin/env -S node --flag\n",
      assign: "#!/usr/bin/env FOO=1 node\n",
      twoWords: "#!/usr/bin/env node --flag\n",
      plain: "#!/bin/sh\n",
      missing: "#!/usr/bin/env nosuchprog\n",
      wrapped: "#!/usr/bin/env wrapped\n",
      notExecutable: "#!/usr/bin/env node\n",
    };
    const paths = Object.fromEntries(
      Object.entries(scripts).map(([k, text]) => {
        const p = join(tmp.dir, `env-${k}`);
        writeFileSync(p, text);
        chmodSync(p, k === "notExecutable" ? 0o644 : 0o755);
        return [k, p];
      }),
    );
    expect(ask(Object.values(paths).map((p) => `envprog ${p}`))).toEqual([
      "node",
      "node",
      "-",
      "-",
      "-",
      "-",
      "nosuchprog",
      "wrapped",
      "node",
    ]);
    expect(ask(["node", "spaced", "plain", "missing", "wrapped", "notExecutable"].map((k) => `envscript ${bin} ${paths[k]}`))).toEqual([
      `${bin}/node node`,
      `${bin}/node node`,
      "-",
      "-",
      "-",
      "-",
    ]);
    expect(ask(["scriptargv node /s/tool.js a b", "scriptargv node /s/tool.js", "scriptargv node /s/tool.js a b c d e"])).toEqual([
      "node|/s/tool.js|a|b",
      "node|/s/tool.js",
      "node|/s/tool.js|a|b|c|d|e",
    ]);
    expect(ask([`sipstrips ${paths.plain}`, `sipstrips ${paths.node}`, "sipstrips /usr/bin/env", `sipstrips ${bin}/node`])).toEqual([
      "1",
      "1",
      "1",
      "0",
    ]);
  });

  test("a PATH search finds the first executable file and lists the folders that lacked it", () => {
    const [a, b, c] = ["a", "b", "c"].map((d) => join(tmp.dir, "path", d));
    for (const d of [a!, b!, c!]) mkdirSync(d, { recursive: true });
    writeFileSync(join(b!, "prog"), "not executable");
    writeFileSync(join(c!, "prog"), "#!/bin/sh\n");
    chmodSync(join(c!, "prog"), 0o755);
    const gone = join(tmp.dir, "path", "gone");
    expect(ask([`search ${a}:${gone}:${b}:${c} prog`, `search ${a}:${b} prog`])).toEqual([
      `${c}/prog ${a}/prog,${gone}/prog`, // b's copy exists (not executable): not a missing candidate
      `- ${a}/prog`,
    ]);
  });

  test("a child's environment gets the dylib (first) and the log back, nothing twice", () => {
    const dylib = "/x/libxbench-interpose.dylib";
    const log = "XBENCH_TRACE_LOG=/t/trace.log";
    const ins = "DYLD_INSERT_LIBRARIES";
    expect(
      ask([
        `env ${dylib} ${log} A=1 B=2`,
        `env ${dylib} ${log}`,
        `env ${dylib} ${log} ${ins}=/other.dylib A=1`,
        `env ${dylib} ${log} ${ins}=/a.dylib:${dylib} ${log}`,
        `env ${dylib} ${log} ${ins}=`,
        `env ${dylib} ${log} XBENCH_TRACE_LOG=/nested.log`,
      ]),
    ).toEqual([
      `A=1|B=2|${ins}=${dylib}|${log}`,
      `${ins}=${dylib}|${log}`,
      `${ins}=${dylib}:/other.dylib|A=1|${log}`,
      `${ins}=/a.dylib:${dylib}|${log}`,
      `${ins}=${dylib}|${log}`,
      `XBENCH_TRACE_LOG=/nested.log|${ins}=${dylib}`,
    ]);
  });

  test("records written the dylib's way read back with the right modes", () => {
    const file = join(tmp.dir, "trace.log");
    const recs: Array<[string, string[]]> = [
      ["open 0 0 /m/read", ["read"]],
      [`open ${D.WRONLY | D.CREAT | D.TRUNC} 0 /m/written`, ["write"]],
      [`open ${D.RDWR} 0 /m/both`, ["read", "write"]],
      [`open ${D2.DIRECTORY} 0 /m/dir`, ["stat"]],
      [`open ${D2.SYMLINK} 0 /m/link`, ["stat"]],
      ["open 0 2 /m/missing", ["missing"]],
      ["fopen a 0 /m/appended", ["write"]],
      ["fopen r 20 /m/file/under", ["missing"]],
      ["2 0 0 /m/stat", ["stat"]],
      ["5 0 0 /m/listed", ["readdir", "stat"]],
      ["16 0 0 /m/fd-listed", ["readdir"]],
      ["6 0 0 /m/exe", ["exec"]],
      ["10 0 17 /m/exists", ["stat"]],
      ["9 0 0 /m/removed", ["write"]],
    ];
    const answers = ask([`log ${file}`, ...recs.map(([r]) => `rec ${r}`), "flag sip"]);
    expect(answers).toEqual(["0", ...recs.map(() => "1"), "1"]);
    const parsed = readAccessLog(file, { probeUnknown: false });
    const modes: Record<string, string[]> = Object.fromEntries(parsed.accesses.map((a) => [a.path, a.modes]));
    expect(modes).toEqual(Object.fromEntries(recs.map(([r, m]) => [r.split(" ").pop()!, m])));
    expect(parsed.complete).toBe(false);
    expect(parsed.incompleteReasons.join("\n")).toContain("System Integrity Protection");
  });
});
