/**
 * Oracle: `strace -f` on real programs against each backend, per path and per mode class; the
 * rules are in test/support/trace-oracle.ts. XBENCH_TRACE_DEBUG=1 prints every difference.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { PYTHON, compile, fixture, have } from "../support/trace.ts";
import { type OracleCase, oracleScratch, oracleTests, tree } from "../support/trace-oracle.ts";

const { dir, fresh, withFiles, gitEnv: GIT_ENV, repo, inC: inProgram } = oracleScratch("xbench-trace-oracle-");

const GO_ENV = {
  ...process.env,
  GOCACHE: join(dir, "gocache"),
  GOPATH: join(dir, "gopath"),
  GOFLAGS: "-mod=mod",
  GOTOOLCHAIN: "local",
  CGO_ENABLED: "0",
};
function goProject(): string {
  const d = join(dir, "goproj");
  if (!existsSync(d)) {
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "go.mod"), "module example.com/hello\n\ngo 1.19\n");
    writeFileSync(join(d, "main.go"), 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hi") }\n');
    spawnSync("go", ["build", "-o", "hello", "."], { cwd: d, env: GO_ENV, stdio: "ignore" }); // warm the cache
  }
  return d;
}

const cases: OracleCase[] = [
  {
    name: "gcc compile+link",
    skip: have("gcc") ? undefined : "gcc not installed",
    cmd: ["gcc", "-O1", "-o", "hello", "hello.c"],
    setup: () => {
      const d = fresh("gcc");
      writeFileSync(
        join(d, "hello.c"),
        '#include <stdio.h>\n#include <string.h>\nint main(void) { puts("hi"); return (int)strlen(""); }\n',
      );
      return d;
    },
  },
  {
    name: "make",
    skip: have("make") ? undefined : "make not installed",
    cmd: ["make", "-s"],
    setup: () => {
      const d = fresh("make");
      writeFileSync(join(d, "Makefile"), "all: out.txt\nout.txt: in.txt\n\tcp in.txt out.txt\n\tcat out.txt > /dev/null\n");
      writeFileSync(join(d, "in.txt"), "x\n");
      return d;
    },
  },
  {
    name: "git status",
    skip: have("git") ? undefined : "git not installed",
    cmd: ["git", "status", "--porcelain"],
    setup: () => repo("gitstatus"),
    env: GIT_ENV,
  },
  {
    name: "git commit",
    skip: have("git") ? undefined : "git not installed",
    cmd: ["git", "commit", "-qam", "two"],
    setup: () => repo("gitcommit"),
    env: GIT_ENV,
  },
  {
    name: "tar c",
    cmd: ["tar", "cf", "out.tar", "src"],
    setup: () => {
      const d = fresh("tarc");
      tree(join(d, "src"), 30);
      return d;
    },
  },
  {
    name: "tar x",
    cmd: ["tar", "xf", "../in.tar"],
    setup: () => {
      const src = join(dir, "tarsrc");
      if (!existsSync(join(dir, "in.tar"))) {
        tree(join(src, "src"), 30);
        spawnSync("tar", ["cf", join(dir, "in.tar"), "-C", src, "src"]);
      }
      return fresh("tarx");
    },
  },
  {
    name: "python3 imports",
    cmd: [PYTHON, "-c", "import json, email.parser, locale; locale.setlocale(locale.LC_ALL, '')"],
    setup: () => fresh("py"),
  },
  {
    name: "node",
    skip: have("node") ? undefined : "node not installed",
    cmd: ["node", "-e", "const fs = require('fs'); fs.readdirSync('.'); fs.readFileSync('a.txt')"],
    // node opens its own binary right after reading /proc/meminfo, its cgroup's memory limits
    // and /proc/self/maps. On a busy machine some runs did not (once under all three backends
    // in the same test run, never in 30 runs of each alone): it looks like a decision on the
    // machine's memory state, so this one access is not held against the tracer.
    varies: [/\/node read$/],
    setup: () => {
      const d = fresh("node");
      writeFileSync(join(d, "a.txt"), "a");
      return d;
    },
  },
  {
    name: "go build",
    skip: have("go") ? undefined : "go not installed",
    cmd: ["go", "build", "-o", "hello", "."],
    setup: goProject,
    env: GO_ENV,
    static: true,
  },
  {
    name: "cp -r",
    cmd: ["cp", "-r", "src", "dst"],
    setup: () => {
      const d = fresh("cp");
      tree(join(d, "src"), 40);
      return d;
    },
  },
  {
    name: "rm -r",
    cmd: ["rm", "-r", "victim"],
    setup: () => {
      const d = fresh("rm");
      tree(join(d, "victim"), 40);
      return d;
    },
  },
  {
    name: "find",
    cmd: ["find", ".", "-name", "f1*"],
    setup: () => {
      const d = join(dir, "find");
      if (!existsSync(d)) tree(d, 60);
      return d;
    },
  },
  {
    name: "shell redirects and mv",
    cmd: ["sh", "-c", "echo a > a.txt && mv a.txt b.txt && cat b.txt >> c.txt && cp c.txt d.txt 2>/dev/null; test -e nope || true"],
    setup: () => fresh("sh"),
  },
];

/** The `calls` fixture (raw and odd system calls), dynamic and static. */
const calls = join(dir, "calls");
const callsStatic = join(dir, "calls-static");
compile("gcc", ["-O2", "-o", calls, fixture("calls.c")]);
if (have("musl-gcc")) compile("musl-gcc", ["-static", "-O2", "-o", callsStatic, fixture("calls.c")]);
const TRUE = realpathSync(existsSync("/usr/bin/true") ? "/usr/bin/true" : "/bin/true");

/** `calls WHAT .` in a fresh folder holding `files`, built with glibc and as a static musl program. */
const inC = (name: string, what: string, files: Record<string, string>, executable: string[] = []) =>
  inProgram({ glibc: calls, musl: callsStatic }, name, what, files, executable);

/**
 * Programs the tracer was not built around (a held-out set: the ones that run in a second or
 * two here): each creates, renames, removes or changes metadata in its own way.
 */
const heldOut: OracleCase[] = [
  {
    name: "python3 -m py_compile",
    cmd: [PYTHON, "-m", "py_compile", "m.py"],
    setup: () => withFiles("pycompile", { "m.py": "x = 1\n" }),
  },
  { name: "sed -i", cmd: ["sed", "-i", "s/a/b/", "f.txt"], setup: () => withFiles("sedi", { "f.txt": "a\n" }) },
  { name: "sort -o", cmd: ["sort", "-o", "out.txt", "in.txt"], setup: () => withFiles("sorto", { "in.txt": "b\na\n" }) },
  {
    name: "install -D -m",
    cmd: ["install", "-D", "-m", "0755", "tool.sh", "out/bin/tool"],
    setup: () => withFiles("install", { "tool.sh": "#!/bin/sh\n" }),
  },
  {
    name: "ln, ln -s, ln -sf",
    cmd: ["sh", "-c", "ln a b && ln -s a c && ln -sf b c && ln -s nowhere dangling"],
    setup: () => withFiles("ln", { a: "a" }),
  },
  {
    name: "touch, chmod, truncate, mkfifo",
    cmd: ["sh", "-c", "touch t && chmod 600 t && truncate -s 10 t && mkfifo p && touch -d @0 t && chmod 644 nope 2>/dev/null; true"],
    setup: () => fresh("touch"),
  },
  { name: "gzip -k", cmd: ["gzip", "-k", "big.txt"], setup: () => withFiles("gzip", { "big.txt": "xbench\n".repeat(2000) }) },
  {
    name: "xargs -P4",
    cmd: ["sh", "-c", "printf '%s\\n' f1 f2 f3 f4 f5 f6 | xargs -P4 -n1 cat > /dev/null"],
    setup: () => withFiles("xargs", Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [`f${i}`, `${i}\n`]))),
    // dash looks xargs up along PATH as its printf child exits: under seccomp the SIGCHLD can
    // interrupt a look still waiting for the supervisor, which dash takes as "not there" and
    // goes on (EINTR, docs/tracer.md, "Signals during a call"): a look the kernel never made.
    varies: [/\/xargs missing$/],
  },
  {
    name: "perl",
    skip: have("perl") ? undefined : "perl not installed",
    cmd: [
      "perl",
      "-e",
      "open(my $f, '<', 'a.txt') or die; -e 'nope'; opendir(my $d, '.'); my @e = readdir($d); mkdir 'd'; rename 'a.txt', 'b.txt'; chmod 0600, 'b.txt'; utime undef, undef, 'b.txt'; unlink 'c.txt'; rmdir 'd'",
    ],
    setup: () => withFiles("perl", { "a.txt": "a", "c.txt": "c" }),
  },
  {
    name: "node fs.promises",
    skip: have("node") ? undefined : "node not installed",
    cmd: [
      "node",
      "-e",
      "const fs = require('fs/promises'); (async () => { await fs.writeFile('a.txt', 'x'); await fs.readFile('a.txt'); await fs.readdir('.'); await fs.rename('a.txt', 'b.txt'); await fs.chmod('b.txt', 0o600); await fs.utimes('b.txt', 1, 1); await fs.mkdir('d'); await fs.rmdir('d'); await fs.unlink('b.txt'); })()",
    ],
    varies: [/\/node read$/],
    setup: () => fresh("nodepromises"),
  },
  { name: "openat2 through syscall(2)", cmd: [calls, "openat2", "a.txt"], setup: () => withFiles("openat2", { "a.txt": "a" }) },
  { name: "fexecve (execveat AT_EMPTY_PATH)", cmd: [calls, "fexecve", TRUE], setup: () => fresh("fexecve") },
  {
    name: "mkfifo, mknod, bind, chmod, chown, utimensat, link (C)",
    cmd: [calls, "nodes", "."],
    setup: () => {
      const d = withFiles("nodes", { file: "f" });
      symlinkSync("file", join(d, "sym"));
      return d;
    },
  },
  {
    name: "the same, static musl",
    skip: have("musl-gcc") ? undefined : "musl-gcc not installed",
    cmd: [callsStatic, "nodes", "."],
    static: true,
    setup: () => {
      const d = withFiles("nodes-static", { file: "f" });
      symlinkSync("file", join(d, "sym"));
      return d;
    },
  },
  {
    // Calls that work through libc's own hidden calls: remove, mkdtemp, nftw, ftw, fts, glob.
    name: "remove, mkdtemp, nftw, ftw, fts, glob (C)",
    cmd: [calls, "walks", "."],
    setup: () => {
      const d = withFiles("walks", { r1: "", "r2/.keep": "", "w/a/1": "", "w/b/2": "", "v/a/1": "", "f/a/1": "", "g/x1": "", "g/x2": "" });
      rmSync(join(d, "r2", ".keep"));
      return d;
    },
  },
  {
    name: "zstd --rm (remove())",
    skip: have("zstd") ? undefined : "zstd not installed",
    cmd: ["zstd", "-q", "--rm", "f.txt"],
    setup: () => withFiles("zstd", { "f.txt": "xbench\n".repeat(500) }),
  },
  {
    name: "mkdir d/, mv d/ e/, bash <(...)",
    skip: have("bash") ? undefined : "bash not installed",
    cmd: ["bash", "-c", "mkdir d/ && mkdir -p x/y/ && mv d/ e/ && cat <(echo hi) > /dev/null"],
    setup: () => fresh("slashes"),
  },
  ...inC("trailing slashes, /dev/fd/N", "names", { a: "a" }),
  // A folder is readdir once its entries are read; opened and not read, it was looked up.
  ...inC("opendir without readdir, readdir, fdopendir, scandir", "dirs", { "a/1": "", "b/1": "", "c/1": "", "d/1": "" }),
  ...inC("inotify_add_watch, fanotify_mark", "watch", { a: "a" }),
  // The files a spawn's file actions open, where its chdir and fchdir actions leave the child.
  ...inC(
    "posix_spawn file actions: open, chdir, fchdir",
    "spawn",
    { "in.txt": "in\n", "sub/rel.txt": "r", "sub/run.sh": "#!/bin/sh\ntrue\n", "other/o.txt": "o" },
    ["sub/run.sh"],
  ),
  // A file opened by handle is named by its fd; the handle's making is a lookup.
  ...inC("name_to_handle_at, open_by_handle_at", "handles", { a: "a", b: "b" }).map((c) =>
    process.getuid?.() === 0 ? c : { ...c, skip: "open_by_handle_at needs CAP_DAC_READ_SEARCH (the tests run as root in CI)" },
  ),
  // Inside a chroot, paths are named from the host (the oracle follows each process's root too).
  ...[calls, callsStatic].map(
    (program): OracleCase => ({
      name: program === calls ? "chroot (C)" : "chroot, static musl",
      skip:
        process.getuid?.() !== 0
          ? "chroot needs root (the tests run as root in CI)"
          : program === callsStatic && !have("musl-gcc")
            ? "musl-gcc not installed"
            : undefined,
      cmd: [program, "jail", "."],
      ...(program === calls ? { preloadIncomplete: "chroot" } : { static: true }),
      setup: () => {
        const d = withFiles(program === calls ? "jail" : "jail-static", { "in.txt": "in" });
        if (existsSync(callsStatic)) copyFileSync(callsStatic, join(d, "prog"));
        return d;
      },
    }),
  ),
  {
    name: "symlink loops",
    cmd: ["sh", "-c", "cat loop1 2>/dev/null; test -e loop2; ls -L . > /dev/null 2>&1; true"],
    setup: () => {
      const d = fresh("loops");
      symlinkSync("loop2", join(d, "loop1"));
      symlinkSync("loop1", join(d, "loop2"));
      return d;
    },
  },
  {
    name: "make -j4",
    skip: have("make") ? undefined : "make not installed",
    cmd: ["make", "-s", "-j4"],
    setup: () =>
      withFiles("makej4", {
        Makefile: "all: o1 o2 o3 o4\no%: i%\n\tcp $< $@ && chmod 600 $@\n",
        i1: "1",
        i2: "2",
        i3: "3",
        i4: "4",
      }),
  },
  {
    name: "zip, unzip",
    skip: have("zip") && have("unzip") ? undefined : "zip or unzip not installed",
    cmd: ["sh", "-c", "zip -q -r a.zip src && mkdir x && cd x && unzip -q ../a.zip"],
    setup: () => withFiles("zip", { "src/a.txt": "a", "src/sub/b.txt": "b" }),
  },
  {
    name: "python3 chdir, fchdir, posix_spawn",
    cmd: [
      PYTHON,
      "-c",
      "import os; os.mkdir('d'); os.chdir('d'); open('f', 'w').close(); fd = os.open('..', os.O_RDONLY); os.fchdir(fd); os.stat('d/f'); os.waitpid(os.posix_spawn('/bin/cat', ['cat', 'd/f'], os.environ), 0)",
    ],
    setup: () => fresh("pychdir"),
  },
  {
    // Python's posix_spawn takes file actions too (glibc's addopen underneath).
    name: "python3 os.posix_spawn with file_actions",
    cmd: [
      PYTHON,
      "-c",
      "import os; o = os.O_WRONLY | os.O_CREAT | os.O_TRUNC; os.waitpid(os.posix_spawn('/bin/cat', ['cat'], os.environ, file_actions=[(os.POSIX_SPAWN_OPEN, 0, 'in.txt', os.O_RDONLY, 0), (os.POSIX_SPAWN_OPEN, 1, 'out.txt', o, 0o644)]), 0)",
    ],
    setup: () => withFiles("pyspawn", { "in.txt": "in\n" }),
  },
  {
    name: "bun -e",
    skip: have("bun") ? undefined : "bun not installed",
    cmd: [
      "bun",
      "-e",
      "const fs = require('fs'); fs.writeFileSync('a.txt', 'x'); fs.readFileSync('a.txt'); fs.statSync('a.txt'); fs.renameSync('a.txt', 'b.txt'); fs.existsSync('nope')",
    ],
    inline: true,
    setup: () => fresh("bun"),
  },
  {
    // An executable file without #!: the C library's execvp (env, nice, timeout, xargs, find
    // -exec, a PATH search) hands it to /bin/sh; a traced command must run it too.
    name: "scripts without #! through execvp",
    cmd: [
      "sh",
      "-c",
      "env ./script a && nice ./script b && timeout 5 ./script c && xargs -a /dev/null ./script && find . -maxdepth 0 -exec ./script {} + && env pscript d && test \"$(tr '\\n' , < out)\" = a,b,c,,.,d,",
    ],
    // A PATH search goes on past a file it may not run (bin0's, not executable: EACCES).
    env: { ...process.env, PATH: `${join(dir, "noshebang", "bin0")}:${join(dir, "noshebang", "bin")}:${process.env.PATH}` },
    setup: () => {
      const d = withFiles("noshebang", { script: 'echo "$@" >> out\n', "bin/pscript": 'echo "$@" >> out\n', "bin0/pscript": "exit 1\n" });
      for (const f of ["script", "bin/pscript"]) chmodSync(join(d, f), 0o755);
      return d;
    },
  },
  {
    // `..` after a symlinked folder leaves the folder the link points to, not the link's.
    name: "`..` after a symlinked folder",
    cmd: ["sh", "-c", "cat lnkdir/../x && echo new > lnkdir/../y && ls lnkdir/../ > /dev/null && cat lnkdir/../../top"],
    setup: () => {
      const d = withFiles("dotdot", { "sub/x": "x", "sub/deep/z": "z", top: "t" });
      symlinkSync("sub/deep", join(d, "lnkdir"));
      return d;
    },
  },
  {
    // Not a backslash: pathe's normalize (the oracle's) reads it as a separator.
    name: "odd names",
    cmd: ["sh", "-c", "cat 'a b' \"q'uote\" ./-dash > /dev/null && cp 'a b' 'new\nline' && mv \"q'uote\" 'tab\there'"],
    setup: () => withFiles("oddnames", { "a b": "1", "q'uote": "2", "-dash": "3" }),
  },
];
cases.push(...heldOut);

oracleTests("strace -f oracle, per path and mode", cases, dir);
