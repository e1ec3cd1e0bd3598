/**
 * `xbench.exe trace` end to end under wine64: the windows-x64 binary with its embedded
 * launcher and hook DLL traces a mingw-built program, its `cmd /c type` and a grandchild, in a
 * fresh wine prefix (one per file: `wineboot -i` costs seconds). Wine 8.0 lacks
 * bcryptprimitives.dll, which Bun's exe imports: a stand-in built here sits beside xbench.exe
 * in the temp folder, never in the product. Skips with one line when wine or mingw is missing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { MINGW_CC, MINGW_FLAGS } from "../../build/native-windows.ts";
import { VERSION } from "../../src/version.ts";
import { ROOT, tempDir } from "../support/xbench.ts";
import { fixture, have, type TraceJson } from "../support/trace.ts";

const missing = [
  ...(have("wine") ? [] : ["wine (apt-get install wine64)"]),
  ...(have(MINGW_CC) ? [] : [`${MINGW_CC} (apt-get install gcc-mingw-w64-x86-64)`]),
];
if (missing.length) console.log(`trace-windows: skipped, not installed: ${missing.join(", ")}`);

/** The path a Windows program under wine sees for a Linux one. */
const z = (p: string) => `Z:${p.replaceAll("/", "\\")}`;

describe.skipIf(missing.length > 0)("xbench.exe trace under wine64", () => {
  const tmp = tempDir("xbench-trace-win-");
  const dir = realpathSync(tmp.dir);
  const prefix = join(dir, "prefix");
  const env = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: "-all", WINEDLLOVERRIDES: "mscoree,mshtml=" };
  afterAll(() => {
    spawnSync("wineserver", ["-k"], { env, stdio: "ignore" });
    tmp.cleanup();
  });

  const sh = (cmd: string, args: string[], what: string, timeout = 300_000) => {
    const r = spawnSync(cmd, args, { cwd: ROOT, env, encoding: "utf8", timeout });
    if (r.status !== 0) throw new Error(`${what} failed (${r.status ?? r.signal}): ${r.stderr}`);
  };
  // The windows-x64 binary with its helpers embedded, as a release would ship it.
  sh(join(ROOT, "node_modules", ".bin", "bun"), ["build.ts", "--target", "windows-x64"], "bun build.ts --target windows-x64");
  const bin = join(dir, "bin");
  mkdirSync(bin);
  copyFileSync(join(ROOT, "dist", "windows-x64", "xbench.exe"), join(bin, "xbench.exe"));
  const cc = (out: string, args: string[]) => sh(MINGW_CC, [...MINGW_FLAGS, "-o", out, ...args], `${MINGW_CC} ${out}`);
  cc(join(bin, "bcryptprimitives.dll"), ["-shared", fixture("win/bcryptprimitives.c"), "-lbcrypt"]);
  cc(join(bin, "child.exe"), ["-municode", fixture("win/child.c")]);
  cc(join(bin, "grandchild.exe"), [fixture("win/grandchild.c")]);
  sh("wineboot", ["-i"], "wineboot -i");
  // A namesake of the command beside the extracted launcher, which CreateProcess's own search
  // would take first: the launcher must run the one from the current directory, as spawn does.
  const helpers = join(dir, "cache", VERSION, "win32-x64");
  mkdirSync(helpers, { recursive: true });
  copyFileSync(join(bin, "grandchild.exe"), join(helpers, "child.exe"));

  const files = join(dir, "files");
  mkdirSync(join(files, "listed"), { recursive: true });
  writeFileSync(join(bin, "rel-cwd.txt"), "rel-cwd\n"); // bin is the child's current directory
  for (const name of ["read", "stat", "typed", "grand", "rel-dir", "old", "gone", "üñí-文"])
    writeFileSync(join(files, `${name}.txt`), `${name}\n`);
  for (const name of ["a", "b"]) writeFileSync(join(files, "listed", name), "");

  /** `wine xbench.exe trace --format json -o FILE -- cmd...` from `bin`, parsed. */
  const traceUnderWine = (cmd: string[], input = "") => {
    const out = join(dir, "trace.json");
    writeFileSync(out, "");
    const r = spawnSync("wine", [join(bin, "xbench.exe"), "trace", "--format", "json", "-o", z(out), "--", ...cmd], {
      cwd: bin,
      env: { ...env, XBENCH_CACHE_DIR: z(join(dir, "cache")) },
      encoding: "utf8",
      timeout: 120_000,
      input,
    });
    const text = readFileSync(out, "utf8");
    const trace = text ? (JSON.parse(text) as TraceJson) : undefined;
    return { code: r.status, stdout: r.stdout.replaceAll("\r\n", "\n"), stderr: r.stderr, trace };
  };

  test("the child's, cmd's and the grandchild's accesses, with their modes; exit code and stdout pass through", () => {
    const r = traceUnderWine(["child.exe", z(files), z(join(bin, "grandchild.exe"))]);
    // The child checks each call's outcome itself (a hook that changed one makes it exit 3..10).
    expect(r.code).toBe(7);
    expect(r.stdout).toBe("typed\ngrand\nchild done\n");
    const trace = r.trace!;
    expect(trace.exitCode).toBe(7);
    expect(trace.complete).toBe(true);
    expect(trace.backendsUsed).toEqual(["dll"]);
    const at = (p: string) => trace.accesses.find((a) => a.path === p);
    const f = (name: string) => z(join(files, name));
    const child = at(z(join(bin, "child.exe")));
    expect(child?.modes).toEqual(["exec"]);
    const pid = child!.pid;
    expect(at(f("read.txt"))).toEqual({ path: f("read.txt"), modes: ["read"], pid });
    expect(at(f("üñí-文.txt"))).toEqual({ path: f("üñí-文.txt"), modes: ["read"], pid }); // UTF-16 names as UTF-8
    expect(at(f("missing.txt"))).toEqual({ path: f("missing.txt"), modes: ["missing"], pid });
    expect(at(f("stat.txt"))).toEqual({ path: f("stat.txt"), modes: ["stat"], pid });
    expect(at(f("listed"))).toEqual({ path: f("listed"), modes: ["readdir", "stat"], pid });
    expect(at(f("written.txt"))).toEqual({ path: f("written.txt"), modes: ["write"], pid });
    // MoveFile (a rename on the handle), DeleteFile, CreateDirectory: writes.
    expect(at(f("old.txt"))?.modes).toContain("write");
    for (const name of ["new.txt", "gone.txt", "made"]) expect(at(f(name))).toEqual({ path: f(name), modes: ["write"], pid });
    // Names relative to a directory handle: one the program opened, and the current directory's
    // (inherited, opened before the DLL came in: known from the PEB).
    expect(at(f("rel-dir.txt"))).toEqual({ path: f("rel-dir.txt"), modes: ["read"], pid });
    const cwdFile = z(join(bin, "rel-cwd.txt"));
    expect(at(cwdFile)).toEqual({ path: cwdFile, modes: ["read"], pid });
    // 4 threads x 100 probes, each thread appending to its own chunk of the log: none lost.
    const probes = trace.accesses.filter((a) => a.path.startsWith(f("probe-")));
    expect(probes.length).toBe(400);
    expect(probes.every((a) => a.modes.join() === "missing" && a.pid === pid)).toBe(true);
    // cmd.exe, started through CreateProcessW, is injected: its `type` is its own.
    expect(at("C:\\windows\\system32\\cmd.exe")?.modes).toContain("exec");
    const typed = at(f("typed.txt"));
    expect(typed?.modes).toEqual(["read"]);
    expect(typed?.pid).not.toBe(pid);
    expect(at(z(join(bin, "grandchild.exe")))?.modes).toContain("exec");
    const grand = at(f("grand.txt"));
    expect(grand?.modes).toEqual(["read"]);
    expect([pid, typed?.pid]).not.toContain(grand?.pid);
    // The tracer's own files stay out of the trace.
    expect(trace.accesses.filter((a) => /xbench-(hook|launch)|trace\.log/i.test(a.path))).toEqual([]);
  }, 120_000);

  test("stdin passes through to the command", () => {
    const r = traceUnderWine(["grandchild.exe", "-"], "piped in\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("piped in\n");
    expect(r.trace?.accesses.find((a) => a.path === z(join(bin, "grandchild.exe")))?.modes).toEqual(["exec"]);
  }, 120_000);

  test("a command that cannot be found: exit 127, nothing traced", () => {
    const r = traceUnderWine(["no-such-program.exe"]);
    expect(r.code).toBe(127);
    expect(r.stderr).toContain("xbench-launch: cannot start the command");
    expect(r.trace?.accesses).toEqual([]);
  }, 120_000);
});
