/**
 * A second held-out set for the strace oracle (rules in test/support/trace-oracle.ts): programs
 * of kinds the first set (trace-oracle.test.ts) has not met: copies that keep links and times,
 * archives with exclusions, deletions by find and xargs, git worktrees and stashes, sqlite's
 * journals, Python's and Node's tree walks and copies, make's included makefiles, awk's
 * redirections, odd and long names, refusals (mv -n, rmdir -p, noclobber), git checkouts, and
 * rarer kernel calls from C (test/fixtures/trace/rare.c), each built with glibc and static musl.
 * XBENCH_TRACE_DEBUG=1 prints every difference.
 */
import { chmodSync, existsSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { PYTHON, compile, fixture, have } from "../support/trace.ts";
import { type OracleCase, PAST, oracleScratch, oracleTests, tree } from "../support/trace-oracle.ts";

const { dir, fresh, withFiles, gitEnv, git, repo, inC } = oracleScratch("xbench-trace-oracle-more-");

const rare = { glibc: join(dir, "rare"), musl: join(dir, "rare-static") };
compile("gcc", ["-O2", "-o", rare.glibc, fixture("rare.c"), "-lpthread"]);
if (have("musl-gcc")) compile("musl-gcc", ["-static", "-O2", "-o", rare.musl, fixture("rare.c")]);

/** A folder of files and links of each kind: relative, to a folder, dangling, absolute. */
function linkedTree(name: string): string {
  const d = withFiles(name, { "src/a.txt": "a", "src/sub/b.txt": "b", "src/.hidden": "h" });
  symlinkSync("a.txt", join(d, "src", "rel"));
  symlinkSync("sub", join(d, "src", "dirlink"));
  symlinkSync("nowhere", join(d, "src", "dangling"));
  symlinkSync(join(d, "src", "sub", "b.txt"), join(d, "src", "abs"));
  return d;
}

const tools: OracleCase[] = [
  {
    name: "cp -a of a tree with symlinks, cp --reflink=auto",
    cmd: ["sh", "-c", "cp -a src dst && cp --reflink=auto src/a.txt copy.txt"],
    setup: () => linkedTree("cpa"),
  },
  {
    name: "tar c with --exclude and -C",
    cmd: ["tar", "cf", "out.tar", "--exclude=*.log", "--exclude=d1", "-C", "src", ".", "-C", "../extra", "e.txt"],
    setup: () => {
      const d = withFiles("tarexcl", { "src/x.log": "l", "extra/e.txt": "e" });
      tree(join(d, "src"), 15);
      return d;
    },
  },
  {
    name: "find -delete, find -empty -delete",
    cmd: ["sh", "-c", "find . -name '*.tmp' -delete && find . -type d -empty -delete"],
    setup: () => withFiles("finddel", { "a.tmp": "", "keep.txt": "", "sub/b.tmp": "", "sub/deeper/c.tmp": "", "other/d.txt": "" }),
  },
  {
    name: "find -print0 | xargs -0 rm",
    cmd: ["sh", "-c", "find . -name '*.o' -print0 | xargs -0 rm -f"],
    setup: () => withFiles("xargs0", { "a.o": "", "with space.o": "", "sub/b.o": "", "c.c": "" }),
  },
  {
    name: "git worktree add, git stash",
    skip: have("git") ? undefined : "git not installed",
    cmd: ["sh", "-c", "git worktree add -q ../wt-side HEAD 2>/dev/null && git stash -q && git stash pop -q"],
    env: gitEnv,
    setup: () => {
      fresh("wt-side");
      const d = repo("worktree");
      git(join(d, ".."), "worktree", "prune");
      return d;
    },
  },
  {
    name: "sqlite3 journal_mode delete and wal",
    skip: have("sqlite3") ? undefined : "sqlite3 not installed",
    cmd: [
      "sh",
      "-c",
      "sqlite3 d.db 'create table t(x); insert into t values (1);' && sqlite3 w.db 'pragma journal_mode=wal; create table t(x); insert into t values (2);' >/dev/null && sqlite3 w.db 'select * from t;' >/dev/null",
    ],
    setup: () => fresh("sqlite"),
  },
  {
    name: "python3 scandir, copytree, NamedTemporaryFile, replace, rglob, walk(followlinks)",
    cmd: [
      PYTHON,
      "-c",
      [
        "import os, shutil, tempfile, pathlib",
        "[e.is_dir() for e in os.scandir('src')]",
        "shutil.copytree('src', 'copy', symlinks=True)",
        "t = tempfile.NamedTemporaryFile(dir='.', prefix='pytmp', delete=True); t.write(b'x'); t.flush(); t.close()",
        "open('new.txt', 'w').close(); os.replace('new.txt', 'src/a.txt')",
        "list(pathlib.Path('copy').rglob('*.txt'))",
        "list(os.walk('src', followlinks=True))",
      ].join("; "),
    ],
    setup: () => linkedTree("pywalk"),
  },
  {
    name: "perl File::Find, File::Copy, File::Path, glob, symlink",
    skip: have("perl") ? undefined : "perl not installed",
    cmd: [
      "perl",
      "-MFile::Find",
      "-MFile::Copy",
      "-MFile::Path=make_path,remove_tree",
      "-e",
      "find(sub {}, 'src'); make_path('out/x/y'); copy('src/a.txt', 'out/x/a.txt') or die; move('out/x/a.txt', 'out/b.txt') or die; my @g = glob('src/*.txt'); symlink('b.txt', 'out/l') or die; readlink('out/l'); remove_tree('out/x')",
    ],
    setup: () => linkedTree("perlmods"),
  },
  {
    name: "awk > and >> to two files, getline < file",
    cmd: ["awk", 'BEGIN { while ((getline l < "in.txt") > 0) { print l > "out1.txt"; print l >> "out2.txt" }; close("in.txt") }'],
    setup: () => withFiles("awk", { "in.txt": "a\nb\n", "out2.txt": "old\n" }),
  },
  {
    name: "dd conv=notrunc, split, csplit",
    cmd: [
      "sh",
      "-c",
      "dd if=in.txt of=out.txt conv=notrunc bs=1 seek=2 status=none && split -l 2 in.txt part. && csplit -s -f cs in.txt 3",
    ],
    setup: () => withFiles("ddsplit", { "in.txt": "1\n2\n3\n4\n5\n", "out.txt": "xxxxxxxxxxxx\n" }),
  },
  {
    name: "mktemp -d, rm -rf",
    cmd: ["sh", "-c", 'd=$(mktemp -d -p . xbtmpXXXXXX) && mkdir "$d/sub" && touch "$d/sub/f" && rm -rf "$d"'],
    setup: () => fresh("mktemp"),
  },
  {
    name: "ln -sr, readlink -f through a chain, realpath -e of missing, stat -L",
    cmd: [
      "sh",
      "-c",
      "ln -sr sub/deep/file l1 && ln -s l1 l2 && ln -s l2 l3 && readlink -f l3 && stat -L l3 && ! realpath -e nope/x 2>/dev/null",
    ],
    setup: () => withFiles("lnsr", { "sub/deep/file": "f" }),
  },
  {
    name: "make with include, -include of a made file, pattern rule, order-only folder",
    skip: have("make") ? undefined : "make not installed",
    cmd: ["make", "-s"],
    setup: () =>
      withFiles("makeinc", {
        Makefile:
          "include vars.mk\n-include deps.d\nall: out/a.o out/b.o\nout/%.o: %.c | out\n\tcp $< $@\nout:\n\tmkdir -p $@\ndeps.d:\n\techo '# made' > $@\n",
        "vars.mk": "X = 1\n",
        "a.c": "a",
        "b.c": "b",
      }),
  },
  {
    name: "node fs.cpSync, mkdtempSync, opendirSync, realpathSync, rmSync",
    skip: have("node") ? undefined : "node not installed",
    cmd: [
      "node",
      "-e",
      "const fs = require('fs'); fs.cpSync('src', 'copy', { recursive: true, verbatimSymlinks: true }); const t = fs.mkdtempSync('xbtmp'); fs.writeFileSync(t + '/f', 'x'); const d = fs.opendirSync('copy'); while (d.readSync()); d.closeSync(); fs.realpathSync('src/rel'); fs.rmSync(t, { recursive: true }); fs.rmSync('copy/sub', { recursive: true, force: true })",
    ],
    // node reads its own binary in some runs (see trace-oracle.test.ts).
    varies: [/\/node read$/],
    setup: () => linkedTree("nodecp"),
  },
  {
    name: "env -C, nohup, flock",
    cmd: ["sh", "-c", "env -C sub cat x > /dev/null && nohup cat y > out 2>/dev/null && flock lockf cat z > /dev/null"],
    setup: () => withFiles("envc", { "sub/x": "x", y: "y", z: "z" }),
  },
  {
    name: "a script run through a relative symlink",
    cmd: ["./bin/run"],
    setup: () => {
      const d = withFiles("scriptlink", { "scripts/run.sh": '#!/bin/sh\ncat "$(dirname "$0")/data" > out.txt\n', "bin/data": "d" });
      chmodSync(join(d, "scripts", "run.sh"), 0o755);
      symlinkSync("../scripts/run.sh", join(d, "bin", "run"));
      return d;
    },
  },
  {
    name: "names with spaces, newlines, UTF-8 and non-UTF-8 bytes",
    skip: have("bash") ? undefined : "bash not installed",
    cmd: [
      "bash",
      "-c",
      "touch $'bad\\xff' 'caf\u00e9 au lait' && mv $'bad\\xff' $'two\\nlines\\xfe' && cat 'caf\u00e9 au lait' > /dev/null && ls > /dev/null",
    ],
    setup: () => fresh("bytes"),
  },
  {
    name: "bash here-document through a temporary file",
    skip: have("bash") ? undefined : "bash not installed",
    cmd: ["bash", "-c", "cat > out.txt <<EOF\n$(seq 1 20000)\nEOF"],
    setup: () => fresh("heredoc"),
    env: { ...process.env, TMPDIR: join(dir, "heredoc") },
  },
  {
    name: "mv -n onto an existing file, rmdir -p up to a folder that is not empty",
    cmd: ["sh", "-c", "mv -n a b && ! rmdir -p x/y/z 2>/dev/null && test -e a"],
    setup: withoutFile(() => withFiles("refusals", { a: "a", b: "b", "x/keep": "", "x/y/z/.gone": "" }), "x/y/z/.gone"),
  },
  {
    name: "the dynamic loader run as a program",
    cmd: ["/lib64/ld-linux-x86-64.so.2", "/bin/cat", "f.txt"],
    skip: existsSync("/lib64/ld-linux-x86-64.so.2") ? undefined : "no x86-64 glibc loader",
    // The loader is a static program: preload says so, though the shim is loaded into what it runs.
    preloadIncomplete: "the dynamic loader is static",
    setup: () => withFiles("ldso", { "f.txt": "f" }),
  },
  {
    name: "file (libmagic's database)",
    skip: have("file") ? undefined : "file not installed",
    cmd: ["file", "-b", "a.txt", "b.sh", "sub", "nope"],
    setup: () => withFiles("file", { "a.txt": "text\n", "b.sh": "#!/bin/sh\n", "sub/x": "" }),
  },
  {
    name: "python3 -m compileall",
    cmd: [PYTHON, "-m", "compileall", "-q", "pkg"],
    setup: () => withFiles("compileall", { "pkg/__init__.py": "", "pkg/m.py": "x = 1\n", "pkg/sub/n.py": "y = 2\n" }),
  },
  {
    name: "gcc -MMD with -I folders searched in turn",
    skip: have("gcc") ? undefined : "gcc not installed",
    cmd: ["gcc", "-MMD", "-Ione", "-Itwo", "-c", "m.c", "-o", "m.o"],
    setup: () => withFiles("gccmd", { "m.c": '#include "h.h"\nint f(void) { return H; }\n', "two/h.h": "#define H 1\n", "one/.keep": "" }),
  },
  {
    name: "chmod -R, touch -h, cp -l, cp -s, ln -f, cp --backup=numbered",
    cmd: [
      "sh",
      "-c",
      "chmod -R go-w tree && touch -h tree/link && cp -l tree/a hard && cp -s $PWD/tree/a soft && ln -f tree/a hard && cp --backup=numbered tree/a copy && cp --backup=numbered tree/a copy",
    ],
    setup: () => {
      const d = withFiles("coreutils", { "tree/a": "a", "tree/sub/b": "b", copy: "old" });
      symlinkSync("a", join(d, "tree", "link"));
      return d;
    },
  },
  {
    name: "ls -lR, du -a",
    cmd: ["sh", "-c", "ls -lR > /dev/null && du -a > /dev/null"],
    setup: () => linkedTree("lsdu"),
  },
  {
    name: "sh noclobber refusal, <> redirection",
    cmd: ["sh", "-c", "set -C; (echo x > exists) 2>/dev/null; exec 3<> rw.txt; echo y >&3; echo z >| exists"],
    setup: () => withFiles("noclobber", { exists: "e", "rw.txt": "" }),
  },
  {
    name: "git checkout of a branch without a folder, and back",
    skip: have("git") ? undefined : "git not installed",
    cmd: ["sh", "-c", "git checkout -q other && git checkout -q -"],
    env: gitEnv,
    setup: () => {
      const d = repo("checkout");
      git(d, "checkout", "-q", "-b", "other");
      git(d, "rm", "-q", "-r", "d1", "d2");
      git(d, "commit", "-qm", "fewer");
      git(d, "checkout", "-q", "-");
      // The files checked out again are as new as the index: "racy", re-read in some runs only.
      tree(d, 20);
      writeFileSync(join(d, "d0", "f0.txt"), "changed\n");
      utimesSync(join(d, "d0", "f0.txt"), PAST, PAST);
      git(d, "update-index", "-q", "--refresh");
      return d;
    },
  },
];

const inRare = (name: string, what: string, files: Record<string, string>, executable: string[] = []) =>
  inC(rare, name, what, files, executable);

const kernelCalls: OracleCase[] = [
  ...inRare("openat2 RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS", "beneath", { "sub/a": "a", x: "x", "real/a": "a" }).map(
    (c): OracleCase => ({ ...c, setup: withLink(c.setup, "real", "lnk") }),
  ),
  ...inRare("openat2 RESOLVE_IN_ROOT", "inroot", { "sub/in": "in" }),
  ...inRare("statx, faccessat2 (AT_EACCESS, AT_SYMLINK_NOFOLLOW)", "looks", { a: "a" }).map(
    (c): OracleCase => ({ ...c, setup: withLink(c.setup, "missing-target", "dang") }),
  ),
  ...inRare("names passed as NULL (EFAULT): statx, openat; open(2) through syscall(2)", "nulls", { a: "a", b: "b" }),
  ...inRare("names in unmapped memory (EFAULT): open, stat, mkdir, fopen, rename, execve", "unmapped", { a: "a" }),
  ...inRare("renameat2 RENAME_EXCHANGE and RENAME_NOREPLACE", "swap", { a: "a", b: "b" }),
  ...inRare("O_TMPFILE given names by linkat", "tmpfile", { keep: "k" }),
  ...inRare(
    "execveat from a dirfd, execve in a vfork child",
    "execs",
    {
      "bin/tool": "#!/bin/sh\necho 1 > one.txt\n",
      "bin/tool2": "#!/bin/sh\necho 2 > two.txt\n",
    },
    ["bin/tool", "bin/tool2"],
  ),
  ...inRare("a thread's own cwd (unshare CLONE_FS), a clone3 child sharing the cwd", "sharedfs", {
    "sub/x": "x",
    y: "y",
    "sub/z": "z",
  }),
  ...inRare("a file under a name longer than PATH_MAX", "deep", { keep: "k" }),
  ...inRare("calls that fail on paths that exist", "fails", { a: "a", "full/f": "f", "empty/.keep": "" }).map(
    (c): OracleCase => ({
      ...c,
      setup: withoutFile(c.setup, "empty/.keep"),
      known: [
        {
          backends: c.static ? ["auto", "seccomp"] : ["seccomp"],
          pairs: /\/fifo stat$/,
          reason:
            "the supervisor does not predict ENXIO for a non-blocking open for writing of a FIFO without a reader (it cannot tell without opening it, which would wake a reader): recorded as a write, and the trace says so",
          incomplete: /FIFO was opened for writing without blocking/,
        },
      ],
    }),
  ),
  ...inRare("a cwd removed while in use", "gone", { keep: "k" }),
  // glibc's own calls, so its build alone.
  inRare("tmpfile, scandirat, setmntent (libc's own calls)", "inner", { "d/1": "", "d/2": "", tab: "/dev/root / ext4 rw 0 0\n" })[0]!,
];

function withLink(setup: () => string, target: string, name: string): () => string {
  return () => {
    const d = setup();
    symlinkSync(target, join(d, name));
    return d;
  };
}

function withoutFile(setup: () => string, name: string): () => string {
  return () => {
    const d = setup();
    rmSync(join(d, name));
    return d;
  };
}

oracleTests("strace -f oracle on a second held-out set", [...tools, ...kernelCalls], dir);
