/**
 * A fourth held-out set for the strace oracle (rules in test/support/trace-oracle.ts): what the
 * first three sets have not met. Programs run with an audit module (ld.so's LD_AUDIT, a
 * program's DT_AUDIT), which takes the static TLS reserve; ld.so listing libraries (ldd,
 * `ld.so --list`), whose output must be what it is untraced; extended attributes; metadata
 * changed through an fd (fchmod, futimens, AT_EMPTY_PATH: touch, install, cp -p); calls newer
 * than this strace (test/fixtures/trace/meta.c). XBENCH_TRACE_DEBUG=1 prints every difference.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, symlinkSync } from "node:fs";
import { join } from "pathe";
import { PYTHON, compile, fixture, have, lacking } from "../support/trace.ts";
import { type OracleCase, oracleScratch, oracleTests } from "../support/trace-oracle.ts";

const { dir, fresh, withFiles, inC } = oracleScratch("xbench-trace-oracle-fourth-");

const meta = { glibc: join(dir, "meta"), musl: join(dir, "meta-static") };
const rare = { glibc: join(dir, "rare"), musl: join(dir, "rare-static") };
const readfile = join(dir, "readfile-static");
compile("gcc", ["-O2", "-o", meta.glibc, fixture("meta.c")]);
compile("gcc", ["-O2", "-o", rare.glibc, fixture("rare.c"), "-lpthread"]);
if (have("musl-gcc")) {
  compile("musl-gcc", ["-static", "-O2", "-o", meta.musl, fixture("meta.c")]);
  compile("musl-gcc", ["-static", "-O2", "-o", rare.musl, fixture("rare.c")]);
  compile("musl-gcc", ["-static", "-O2", "-o", readfile, fixture("readfile.c")]);
}

/** test/fixtures/trace/meta.c's `what` in a folder of `files` and a symlink lnk to a. */
const inMeta = (name: string, what: string, files: Record<string, string>, extra: Partial<OracleCase> = {}) =>
  inC(meta, name, what, files).map(
    (c): OracleCase => ({
      ...c,
      ...extra,
      setup: () => {
        const d = c.setup();
        symlinkSync("a", join(d, "lnk"));
        return d;
      },
    }),
  );

const audit = join(dir, "libaudit.so");
const threads = join(dir, "threads");
const threadsAudited = join(dir, "threads-audited");
compile("gcc", ["-O2", "-shared", "-fPIC", "-o", audit, fixture("audit.c")]);
compile("gcc", ["-O2", "-pthread", "-o", threads, fixture("threads.c")]);
compile("gcc", ["-O2", "-pthread", `-Wl,--audit=${audit}`, "-o", threadsAudited, fixture("threads.c")]);

/** ld.so's listing with its load addresses (which change with every run) taken out. */
const withoutAddresses = (out: string) => out.replace(/\(0x[0-9a-f]+\)/g, "(ADDR)");
const LOADER = "/lib64/ld-linux-x86-64.so.2";
/** An audit module's calls go through its own C library, which preload does not reach (docs/tracer.md). */
const AUDITED = "an audit module runs in a link-map namespace of its own";

const cases: OracleCase[] = [
  {
    name: "sotruss: a program run with ld.so's audit interface",
    skip: lacking("sotruss"),
    cmd: ["sotruss", "-o", "calls", "/bin/true"],
    preloadIncomplete: AUDITED,
    setup: () => fresh("sotruss"),
  },
  {
    name: "threads that open files, under an audit module with no optional static TLS left",
    cmd: [threads, "sub"],
    env: { ...process.env, LD_AUDIT: audit, GLIBC_TUNABLES: "glibc.rtld.optional_static_tls=0" },
    preloadIncomplete: AUDITED,
    setup: () => withFiles("audit-threads", { "sub/t0-f0": "", "sub/t7-f999": "" }),
  },
  {
    name: "a program whose own DT_AUDIT names an audit module",
    cmd: [threadsAudited, "sub"],
    preloadIncomplete: AUDITED,
    setup: () => withFiles("dt-audit", { "sub/t3-f5": "" }),
  },
  {
    name: "ldd of a program prints what it prints untraced",
    skip: lacking("ldd"),
    cmd: ["ldd", "/bin/true"],
    sameOutput: withoutAddresses,
    preloadIncomplete: "ldd runs the dynamic loader as a program, which is static",
    setup: () => fresh("ldd"),
  },
  {
    name: "the dynamic loader's --list, and LD_TRACE_LOADED_OBJECTS given to a program",
    cmd: ["sh", "-c", `${LOADER} --list /bin/cat && LD_TRACE_LOADED_OBJECTS=1 /bin/true`],
    sameOutput: withoutAddresses,
    // The loader runs as a static program: preload says so (trace-oracle-more.test.ts).
    preloadIncomplete: "the dynamic loader is static",
    setup: () => fresh("ldso-list"),
  },
  {
    name: "setfattr and getfattr: an attribute set, read, removed, and looked for on a missing file",
    skip: lacking("setfattr", "getfattr"),
    cmd: [
      "sh",
      "-c",
      "setfattr -n user.k -v 1 f && getfattr -n user.k f > /dev/null && setfattr -x user.k f && ! getfattr -n user.k nope 2>/dev/null",
    ],
    setup: () => withFiles("setfattr", { f: "f" }),
  },
  ...inMeta("extended attributes by path, through an fd, and of a symlink itself", "xattrs", { a: "a", b: "b" }),
  ...inMeta("metadata changed through read-only fds: fchmod, fchown, futimens, AT_EMPTY_PATH", "fdmeta", {
    a: "a",
    b: "b",
    c: "c",
    d: "d",
    e: "e",
  }),
  {
    name: "python3: a mode, times and an attribute set through fds opened read-only",
    cmd: [
      PYTHON,
      "-c",
      "import os; fd = os.open('a', os.O_RDONLY); os.chmod(fd, 0o600); os.utime(fd); os.setxattr(fd, 'user.k', b'1'); os.close(fd)",
    ],
    setup: () => withFiles("pyfd", { a: "a" }),
  },
  {
    name: "touch of an existing file, install -m, cp -p, touch -r",
    cmd: ["sh", "-c", "touch old && install -m 600 src inst && cp -p src kept && touch -r src old"],
    setup: () => withFiles("fdtimes", { old: "o", src: "s" }),
  },
  ...inMeta(
    "calls newer than this strace: open_tree, getxattrat, setxattrat, file_getattr, fchmodat2 on a link",
    "newcalls",
    { "sub/x": "", s: "", g: "", f: "", a: "" },
    { beyondStrace: { s: ["write"], g: ["stat"], f: ["stat"], nope: ["missing"], lnk: ["stat"] } },
  ),
  {
    name: "scripts whose #! names a missing interpreter, one missing two deep, and none at all",
    cmd: ["sh", "-c", "./gone.sh; ./deeper.sh; ./empty.sh; true"],
    setup: () => {
      const d = withFiles("interp", {
        "gone.sh": "#!/nonexistent/interpreter\necho 1 > one.txt\n",
        "deeper.sh": "#!./gone.sh\n",
        "empty.sh": "#!\necho 3 > three.txt\n",
      });
      for (const f of ["gone.sh", "deeper.sh", "empty.sh"]) chmodSync(join(d, f), 0o755);
      return d;
    },
  },
  ...inC(rare, "a symlink to a folder opened without following it (O_DIRECTORY: ENOTDIR)", "dirlinks", { "d/x": "" }).map(
    (c): OracleCase => ({
      ...c,
      setup: () => {
        const d = c.setup();
        for (const name of ["dl1", "dl2", "dl3"]) symlinkSync("d", join(d, name));
        return d;
      },
    }),
  ),
  {
    name: "files reached through another process's /proc/PID/cwd and /proc/PID/fd/N, /proc/self/fd, /dev/fd",
    cmd: [
      "sh",
      "-c",
      "(cd sub && exec 4< held && echo up > ../ready && exec sleep 30) & p=$!; read x < ready; cat /proc/$p/cwd/f1 /proc/$p/fd/4 > /dev/null; exec 5< own; cat /proc/self/fd/5 /dev/fd/5 > /dev/null; kill $p",
    ],
    never: /^\/(proc\/(\d+|self)|dev\/fd)\//,
    setup: () => {
      const d = withFiles("proclinks", { "sub/f1": "1", "sub/held": "h", own: "o" });
      spawnSync("mkfifo", [join(d, "ready")]);
      return d;
    },
  },
  {
    name: "unshare -m: a bind mount made in a mount namespace of its own, and files read through it",
    skip: process.getuid?.() === 0 ? lacking("unshare", "mount") : "mounts take root",
    cmd: ["unshare", "-m", "sh", "-c", "mount --bind src dst && cat dst/f1 > /dev/null && ls dst > /dev/null && test -e dst/f2"],
    setup: () => withFiles("bind", { "src/f1": "1", "src/f2": "2", "dst/.keep": "" }),
  },
  {
    name: "unshare -m: a static program reads through a bind mount of its namespace",
    skip: process.getuid?.() === 0 ? (lacking("unshare", "mount", "musl-gcc") ?? undefined) : "mounts take root",
    cmd: ["unshare", "-m", "sh", "-c", `mount --bind src dst && ${readfile} dst/f1 > /dev/null`],
    static: true,
    setup: () => withFiles("bind-static", { "src/f1": "1", "dst/.keep": "" }),
  },
];

// Programs of kinds the other sets have not met: a build system other than make, a key generator,
// a Haskell program (GHC's runtime), a typesetting pipeline, an editor with its swap file, and an
// object file rewritten in place.
const programs: OracleCase[] = [
  {
    name: "ninja: two edges, its log and deps files",
    skip: lacking("ninja"),
    cmd: ["ninja", "-C", "."],
    setup: () =>
      withFiles("ninja", {
        "build.ninja": "rule cp\n  command = cp $in $out\nbuild out/a.txt: cp a.txt\nbuild out/b.txt: cp out/a.txt\n",
        "a.txt": "a",
      }),
  },
  {
    name: "ssh-keygen: a key pair written, with its private key's mode",
    skip: lacking("ssh-keygen"),
    cmd: ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "t", "-f", "key"],
    setup: () => fresh("keygen"),
  },
  {
    name: "shellcheck (a program of GHC's runtime) on a script and its sourced file",
    skip: lacking("shellcheck"),
    cmd: ["shellcheck", "-x", "main.sh"],
    setup: () =>
      withFiles("shellcheck", { "main.sh": '#!/bin/sh\n# shellcheck source=lib.sh\n. ./lib.sh\necho "$X"\n', "lib.sh": "X=1\nexport X\n" }),
  },
  {
    name: "groff -man: a pipeline of troff and grotty reading fonts and macros",
    skip: lacking("groff"),
    cmd: ["sh", "-c", "groff -man -Tutf8 page.1 > page.txt"],
    setup: () => withFiles("groff", { "page.1": ".TH PAGE 1\n.SH NAME\npage \\- a page\n.SH DESCRIPTION\nText.\n" }),
  },
  {
    name: "vim -es: a file edited and written, with its swap file",
    skip: lacking("vim"),
    cmd: ["vim", "-es", "-u", "NONE", "-i", "NONE", "-n", "-c", "normal Gohello", "-c", "wq", "f.txt"],
    env: { ...process.env, HOME: join(dir, "home") },
    setup: () => withFiles("vim", { "f.txt": "one\n" }),
  },
  {
    name: "strip of an object file in place (a temporary copy, its mode, a rename)",
    skip: lacking("strip", "gcc"),
    cmd: ["sh", "-c", "gcc -g -c a.c -o a.o && strip --strip-debug a.o && objcopy --only-keep-debug a.o a.dbg"],
    setup: () => withFiles("strip", { "a.c": "int a(void) { return 1; }\n" }),
  },
];

oracleTests("strace -f oracle on a fourth held-out set", [...cases, ...programs], fresh("strace"));
