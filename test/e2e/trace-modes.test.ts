/**
 * Modes are about outcome, the same under every backend (docs/tracer.md): a listing
 * is readdir however the fd was opened, a call that failed wrote nothing, every call that
 * names a path is seen, PATH searches made inside libc count as missing probes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "pathe";
import { tempDir, xbench } from "../support/xbench.ts";
import { PYTHON, compile, fixture, have, traceRun } from "../support/trace.ts";

const tmp = tempDir("xbench-trace-modes-");
const dir = realpathSync(tmp.dir);
afterAll(tmp.cleanup);

const calls = join(dir, "calls");
const callsStatic = join(dir, "calls-static");
const secure = join(dir, "secure");
/** A program linked to a library whose constructor opens $CTOR_FILE (argv[1], via /proc/self/cmdline). */
const ctorProgram = join(dir, "ctor", "main");
/** A setuid-root program that prints its effective uid, where another user can run it. */
const euid = join(dir, "pub", "euid");
/** The same program setuid to nobody, so that root running it changes user. */
const euidNobody = join(dir, "pub", "euid-nobody");
beforeAll(() => {
  compile("gcc", ["-O2", "-o", calls, fixture("calls.c")]);
  if (have("musl-gcc")) compile("musl-gcc", ["-static", "-O2", "-o", callsStatic, fixture("calls.c")]);
  compile("gcc", ["-O2", "-o", secure, fixture("secure.c")]);
  mkdirSync(dirname(euid));
  writeFileSync(`${euid}.c`, '#include <stdio.h>\n#include <unistd.h>\nint main(void) { printf("%d\\n", (int)geteuid()); return 0; }\n');
  compile("gcc", ["-O2", "-o", euid, `${euid}.c`]);
  for (const d of [dir, dirname(euid)]) chmodSync(d, 0o755); // mkdtemp's 0700 would stop the other user
  chmodSync(euid, 0o4755);
  if (process.getuid?.() === 0) {
    copyFileSync(euid, euidNobody);
    chownSync(euidNobody, 65534, 65534);
    chmodSync(euidNobody, 0o4755);
  }
  const ctorDir = dirname(ctorProgram);
  mkdirSync(ctorDir);
  // The library's constructor reads the file named by the program's first argument.
  writeFileSync(
    join(ctorDir, "ctor.c"),
    `#include <fcntl.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void early(void) {
  char a[4096] = {0};
  int c = open("/proc/self/cmdline", O_RDONLY);
  if (c < 0) return;
  ssize_t n = read(c, a, sizeof a - 1);
  close(c);
  if (n <= 0) return;
  const char *file = a + strlen(a) + 1;
  int fd = open(file, O_RDONLY);
  if (fd >= 0) close(fd);
}
`,
  );
  writeFileSync(join(ctorDir, "main.c"), "int main(void) { return 0; }\n");
  compile("gcc", ["-shared", "-fPIC", "-O2", "-o", join(ctorDir, "libctor.so"), join(ctorDir, "ctor.c")]);
  compile("gcc", ["-O2", "-o", ctorProgram, join(ctorDir, "main.c"), "-Wl,--no-as-needed", `-L${ctorDir}`, "-lctor", "-Wl,-rpath,$ORIGIN"]);
});

/** A fresh folder per test and backend. */
function work(name: string): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  return d;
}

describe.each(["auto", "preload", "seccomp"])("backend %s", (backend) => {
  const flags = ["--backend", backend];

  test("1. a directory opened O_RDONLY and listed with getdents64 is readdir, not read", () => {
    const d = work(`list-${backend}`);
    writeFileSync(join(d, "x"), "");
    const r = traceRun([calls, "listdir", d], flags);
    expect(r.code).toBe(0);
    expect(r.modes.get(d)).toEqual(["readdir"]);
  });

  test("1. tar c (O_NOFOLLOW|O_NONBLOCK open, then fdopendir): the folder is readdir", () => {
    const d = work(`tar-${backend}`);
    mkdirSync(join(d, "src"), { recursive: true });
    writeFileSync(join(d, "src", "a"), "a");
    const r = traceRun(["tar", "cf", join(d, "out.tar"), "-C", d, "src"], flags);
    expect(r.code).toBe(0);
    const src = r.modes.get(join(d, "src"));
    expect(src).toContain("readdir");
    expect(src).not.toContain("read"); // tar also lstat()s it: stat is true
    expect(r.modes.get(join(d, "src", "a"))).toContain("read");
  });

  test("2. rm -f of a missing file wrote nothing: missing", () => {
    const d = work(`rm-${backend}`);
    const r = traceRun(["rm", "-f", join(d, "nope")], flags);
    expect(r.code).toBe(0);
    expect(r.modes.get(join(d, "nope"))).toEqual(["missing"]);
  });

  test("3. mkdir -p of an existing folder wrote nothing: stat", () => {
    const d = work(`mkdir-${backend}`);
    const r = traceRun(["mkdir", "-p", d], flags);
    expect(r.code).toBe(0);
    expect(r.modes.get(d)).toEqual(["stat"]);
    const fresh = join(d, "fresh");
    const s = traceRun(["mkdir", "-p", fresh], flags);
    expect(s.modes.get(fresh)).toContain("write");
  });

  test("4. ln and ln -s write their new names; openat2 through syscall(2) is seen", () => {
    const d = work(`ln-${backend}`);
    writeFileSync(join(d, "a"), "a");
    const r = traceRun(["sh", "-c", `ln ${d}/a ${d}/b && ln -s a ${d}/c && ${calls} openat2 ${d}/a`], flags);
    expect(r.code).toBe(0);
    expect(r.modes.get(join(d, "b"))).toEqual(["write"]);
    expect(r.modes.get(join(d, "c"))).toEqual(["write"]);
    expect(r.modes.get(join(d, "a"))).toContain("read");
  });

  test("5. a PATH search inside libc (execvp in env, posix_spawnp) records each miss", () => {
    const d = work(`path-${backend}`);
    const env = { ...process.env, PATH: `${d}/first:${d}/second:${process.env.PATH}` };
    const r = traceRun(["env", "gzip", "--version"], flags, { env });
    expect(r.code).toBe(0);
    expect(r.modes.get(`${d}/first/gzip`)).toEqual(["missing"]);
    expect(r.modes.get(`${d}/second/gzip`)).toEqual(["missing"]);
    const script = "import os; os.waitpid(os.posix_spawnp('true', ['true'], os.environ), 0)";
    const s = traceRun([PYTHON, "-c", script], flags, { env });
    expect(s.code).toBe(0);
    expect(s.modes.get(`${d}/first/true`)).toEqual(["missing"]);
  });

  test("6. statfs is a stat; a mkstemp file is read and written", () => {
    const d = work(`statfs-${backend}`);
    const r = traceRun(["stat", "-f", d], flags);
    expect(r.code).toBe(0);
    expect(r.modes.get(d)).toContain("stat");
    const t = traceRun([calls, "mkstemp", d], flags);
    expect(t.code).toBe(0);
    const name = t.stdout.trim();
    expect(t.modes.get(name)).toEqual(["read", "write"]);
  });

  test("6. an exclusive creation (O_EXCL) that succeeds is a write; one of a path that exists is a stat", () => {
    // Under seccomp the outcome is predicted by a look before the call: a creation must not
    // read as one that failed with EEXIST, nor a failed one as a write.
    const d = work(`excl-${backend}`);
    writeFileSync(join(d, "old"), "");
    const script = `import os\nopen(${JSON.stringify(join(d, "new"))}, "x").close()\ntry:\n  open(${JSON.stringify(join(d, "old"))}, "x")\nexcept FileExistsError:\n  print("exists")`;
    const r = traceRun([PYTHON, "-c", script], flags);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("exists");
    expect(r.modes.get(join(d, "new"))).toEqual(["write"]);
    expect(r.modes.get(join(d, "old"))).toEqual(["stat"]);
  });

  test("6. a failed exec of a directory is no exec: 126, stat", () => {
    const d = work(`execdir-${backend}`);
    const out = join(dir, `execdir-${backend}.json`);
    const run = xbench(["trace", "--format", "json", "-o", out, ...flags, "--", d]);
    expect(run.code).toBe(126);
    const trace = JSON.parse(readFileSync(out, "utf8")) as { accesses: { path: string; modes: string[] }[] };
    expect(trace.accesses.find((a) => a.path === d)?.modes).toEqual(["stat"]);
  });

  test("8. creations and metadata changes are writes: mkfifo, mknod, bind, chmod, chown, utimensat; link's source a stat", () => {
    expectNodes(calls, backend, flags);
  });

  test('9. fexecve (execveat(fd, "", AT_EMPTY_PATH)) records the program as exec', () => {
    const r = traceRun([calls, "fexecve", TRUE], flags);
    expect(r.code).toBe(0);
    expect(r.modes.get(TRUE)).toContain("exec");
  });

  test("10. io_uring: refused under auto and seccomp (ENOSYS, said on stderr), untraced under preload (incomplete)", () => {
    const r = traceRun([calls, "iouring", "x"], flags);
    expect(r.code).toBe(0);
    if (backend === "preload") {
      expect(r.trace.complete).toBe(false);
      expect(r.trace.incompleteReasons.join(" ")).toContain("io_uring");
    } else {
      expect(r.stdout).toBe("ENOSYS\n");
      expect(r.trace.complete).toBe(true); // what ran was traced
      expect(r.trace.changes.join(" ")).toContain("io_uring_setup was refused");
      expect(r.stderr.match(/ran differently under the tracer: io_uring/g)?.length).toBe(1);
    }
  });

  // A setuid program under auto and seccomp runs without its privileges (no_new_privs): the trace
  // says so, and no ld.so message reaches the command's stderr on any backend.
  test.skipIf(process.getuid?.() !== 0 || !have("setpriv"))(
    "11. a setuid program run by another user: said in the trace, no ld.so line",
    () => {
      const r = traceRun(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", euid], flags);
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain("ld.so");
      expect(r.trace.complete).toBe(false);
      expect(r.trace.incompleteReasons.join(" ")).toContain(backend === "preload" ? "another user" : "without its privileges");
    },
  );

  // The same, run as the traced command itself: under preload the loader leaves the shim out and
  // nothing records, so the trace says it; auto and seccomp run it without its privileges.
  test.skipIf(process.getuid?.() !== 0)("11b. a setuid program that changes user, run as the command itself: said in the trace", () => {
    const r = traceRun([euidNobody], flags);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(backend === "preload" ? "65534" : "0");
    expect(r.stderr).not.toContain("ld.so");
    expect(r.trace.complete).toBe(false);
    expect(r.trace.incompleteReasons.join(" ")).toContain(backend === "preload" ? "another user" : "without its privileges");
  });

  // pivot_root in a mount namespace of its own: what the program names from its new root, the
  // host cannot name (docs/tracer.md).
  test.skipIf(process.getuid?.() !== 0 || !have("pivot_root") || !have("unshare"))(
    "11c. pivot_root in a mount namespace of its own: the trace says its names are not the host's",
    () => {
      const d = work(`pivot-${backend}`);
      mkdirSync(join(d, "r", "old"), { recursive: true });
      const script = `mount --make-rprivate / && mount --bind ${d}/r ${d}/r && cd ${d}/r && pivot_root . old; true`;
      const r = traceRun(["unshare", "-m", "sh", "-c", script], flags);
      expect(r.code).toBe(0);
      expect(r.trace.complete).toBe(false);
      expect(r.trace.incompleteReasons.join(" ")).toContain("pivot_root");
    },
  );

  test("12. one rule per mode: a failed open of /dev/tty (ENXIO) and a symlink loop are stat; a failed lookup before a creation stays missing", () => {
    const d = work(`agree-${backend}`);
    symlinkSync("loop2", join(d, "loop1"));
    symlinkSync("loop1", join(d, "loop2"));
    // setsid: no controlling terminal, so /dev/tty cannot be opened (ENXIO) however the tests run.
    const script = `cd ${d}; test -e sym || ln -s target sym; cat loop1; true </dev/tty; exit 0`;
    const r = traceRun(["setsid", "-w", "sh", "-c", `${script} 2>/dev/null; exit 0`], flags);
    expect(r.code).toBe(0);
    expect(r.modes.get("/dev/tty")).toEqual(["stat"]);
    expect(r.modes.get(join(d, "loop1"))).toEqual(["stat"]);
    expect(r.modes.get(join(d, "sym"))).toEqual(["write", "missing"]);
  });

  // `seen`: what the shim decodes itself; the rest only auto and seccomp record.
  test.each<[string, string, Record<string, string[]>, string[]]>([
    ["statx (libuv's stat) is a stat, mkdirat a write", "rawcalls", { f: ["stat"], "f.d": ["write"] }, ["f"]],
    ["fchmodat2 (no glibc wrapper) is a write, which the shim decodes", "fchmodat2", { f: ["write"] }, ["f"]],
  ])("13. through syscall(2): %s; a call preload does not decode marks its trace incomplete", (_, what, modes, seen) => {
    const d = work(`${what}-${backend}`);
    writeFileSync(join(d, "f"), "f");
    const r = traceRun([calls, what, join(d, "f")], flags);
    expect(r.code).toBe(0);
    for (const [name, expected] of Object.entries(modes))
      if (backend !== "preload" || seen.includes(name)) expect(r.modes.get(join(d, name))).toEqual(expected);
    if (backend === "preload" && seen.length < Object.keys(modes).length) {
      expect(r.trace.complete).toBe(false);
      expect(r.trace.incompleteReasons.join(" ")).toContain("syscall(2)");
    } else {
      expect(r.trace.complete).toBe(true);
    }
  });

  test("14. a library's constructor, run before the shim's, is traced", () => {
    const d = work(`ctor-${backend}`);
    writeFileSync(join(d, "seen-by-ctor"), "x");
    const r = traceRun([ctorProgram, join(d, "seen-by-ctor")], flags);
    expect(r.code).toBe(0);
    expect(r.modes.get(join(d, "seen-by-ctor"))).toEqual(["read"]);
  });

  // A program that drops to another user (the shim and the log are closed to it), or whose exec
  // the loader runs securely (uid != euid): ld.so would print an error into the command's stderr.
  test.skipIf(process.getuid?.() !== 0).each([
    ["drops to nobody", "drop"],
    ["makes uid != euid", "secure"],
  ])("7. a program that %s: no ld.so message, and the trace says what it saw", (_, how) => {
    const probe = join(dir, `nope_after_setuid-${how}-${backend}`);
    const r = traceRun([secure, how, "sh", "-c", `test -e ${probe}; exit 0`], flags);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("ld.so");
    if (backend === "preload") {
      // The shim cannot go there and nothing else looks: the trace must say so.
      expect(r.trace.complete).toBe(false);
      expect(r.trace.incompleteReasons.join(" ")).toContain("another user");
    } else {
      expect(r.modes.get(probe)).toEqual(["missing"]);
      expect(r.trace.complete).toBe(true);
    }
  });
});

/** The real path of true(1): fexecve's fd names the file, not the link to it. */
const TRUE = realpathSync(existsSync("/usr/bin/true") ? "/usr/bin/true" : "/bin/true");

/** `calls nodes` in a fresh folder: each new node and metadata change is a write. */
function expectNodes(program: string, backend: string, flags: string[]): void {
  const d = work(`nodes-${backend}-${program === calls ? "dyn" : "static"}`);
  writeFileSync(join(d, "file"), "f");
  symlinkSync("file", join(d, "sym"));
  const r = traceRun([program, "nodes", d], flags);
  expect(r.code).toBe(0);
  for (const name of ["fifo", "node", "sock", "hard", "sym"]) expect([name, r.modes.get(join(d, name))]).toEqual([name, ["write"]]);
  expect(r.modes.get(join(d, "file"))).toEqual(["write", "stat"]); // chmod etc.; link's source
  expect(r.modes.get(join(d, "file2"))).toEqual(["missing"]); // utimes of a missing file
  expect(r.trace.complete).toBe(true);
}

describe.skipIf(!have("musl-gcc"))("a static program (no shim)", () => {
  test.each(["auto", "seccomp"])("8. its creations and metadata changes are writes (--backend %s)", (backend) => {
    expectNodes(callsStatic, backend, ["--backend", backend]);
  });

  test.each(["auto", "seccomp"])("9. its fexecve records an exec (--backend %s)", (backend) => {
    const r = traceRun([callsStatic, "fexecve", TRUE], ["--backend", backend]);
    expect(r.code).toBe(0);
    expect(r.modes.get(TRUE)).toContain("exec");
  });

  test.each(["auto", "seccomp"])("1. its getdents64 listing is readdir (--backend %s)", (backend) => {
    const d = work(`list-static-${backend}`);
    const r = traceRun([callsStatic, "listdir", d], ["--backend", backend]);
    expect(r.code).toBe(0);
    expect(r.modes.get(d)).toEqual(["readdir"]);
  });
});

test("each process writes its own records, even after a raw clone that skips pthread_atfork", () => {
  const d = work("rawfork");
  const r = traceRun([calls, "rawfork", d], ["--backend", "preload"]);
  expect(r.code).toBe(0);
  const pids = (who: string) => new Set(r.trace.accesses.filter((a) => a.path.startsWith(`${d}/p${who}-`)).map((a) => a.pid));
  const mine = r.trace.accesses.filter((a) => a.path.startsWith(`${d}/p`));
  expect(mine.length).toBe(400);
  expect(mine.every((a) => a.modes.join() === "missing")).toBe(true);
  const parent = pids("parent"),
    child = pids("child");
  expect(parent.size).toBe(1);
  expect(child.size).toBe(1);
  expect([...child][0]).not.toBe([...parent][0]);
});

test("the paths recorded in these tests exist as the program left them", () => {
  expect(existsSync(calls)).toBe(true);
  expect(spawnSync(calls, ["bogus", "x"]).status).toBe(2);
});
