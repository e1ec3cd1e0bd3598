/**
 * A third held-out set for the strace oracle (rules in test/support/trace-oracle.ts): compilers,
 * runtimes and build tools, each a tree of processes and threads the first two sets have not
 * met: javac and the JVM, rustc and cargo (whose standard library probes statx with a NULL name
 * at start-up, and whose allocator opens files through syscall(2)), cmake driving make and cc,
 * deno, patch with a backup, ar loading its LTO plugin through dlopen, xz's threads, a Tcl
 * script, Python's venv, gcc's LTO jobs, tar running gzip, recursive make, bun build, and a
 * shallow git clone over file:// with gc. A program the machine lacks is skipped, with its name.
 * XBENCH_TRACE_DEBUG=1 prints every difference.
 */
import { join } from "pathe";
import { lacking } from "../support/trace.ts";
import { type OracleCase, oracleScratch, oracleTests } from "../support/trace-oracle.ts";

const { dir, fresh, withFiles, gitEnv, git } = oracleScratch("xbench-trace-oracle-third-");

const HELLO_JAVA = `public class Hello {
  public static void main(String[] args) throws Exception {
    java.nio.file.Files.writeString(java.nio.file.Path.of("made.txt"), "hi");
    System.out.println("hello");
  }
}
`;

// Each tool's cache lives in the case's folder, which every run makes anew, so every run finds
// the same state (a cache left by the run before changes what deno reads).
const cargoEnv = { ...process.env, CARGO_HOME: join(dir, "cargo", ".cargo-home"), CARGO_NET_OFFLINE: "true" };

const cases: OracleCase[] = [
  {
    name: "javac, then the class run by java",
    skip: lacking("javac", "java"),
    cmd: ["sh", "-c", "javac -d out Hello.java && java -Xshare:off -cp out Hello > said.txt"],
    // javac reads it from a thread in some runs only: strace alone lacked it in 1 of 16 runs, and
    // a strace watching the traced run agreed with the trace in every run (docs/tracer.md).
    varies: [/^\/proc\/sys\/vm\/overcommit_memory read$/],
    setup: () => withFiles("java", { "Hello.java": HELLO_JAVA }),
  },
  {
    name: "rustc -O",
    skip: lacking("rustc"),
    cmd: ["rustc", "-O", "-o", "hello", "main.rs"],
    setup: () => withFiles("rustc", { "main.rs": 'fn main() { std::fs::write("x.txt", "x").unwrap(); }\n' }),
  },
  {
    name: "cargo build of a crate without dependencies",
    skip: lacking("cargo"),
    env: cargoEnv,
    cmd: ["cargo", "build", "-q", "--offline"],
    setup: () =>
      withFiles("cargo", {
        "Cargo.toml": '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/main.rs": 'fn main() { println!("hi"); }\n',
      }),
  },
  {
    name: "cmake configure and build",
    skip: lacking("cmake", "make"),
    cmd: ["sh", "-c", "cmake -S . -B build -G 'Unix Makefiles' > /dev/null && cmake --build build > /dev/null"],
    setup: () =>
      withFiles("cmake", {
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(h C)\nadd_executable(h main.c)\n",
        "main.c": "int main(void) { return 0; }\n",
      }),
  },
  {
    name: "patch -p1 with a backup",
    skip: lacking("patch"),
    cmd: ["patch", "-p1", "-b", "-i", "fix.diff"],
    setup: () =>
      withFiles("patch", {
        "src/a.txt": "one\ntwo\nthree\n",
        "fix.diff": "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
      }),
  },
  {
    name: "ar rcs of a compiled object, xz -k on two threads, a Tcl script",
    skip: lacking("ar", "xz", "tclsh"),
    cmd: ["sh", "-c", "gcc -c a.c -o a.o && ar rcs liba.a a.o && xz -k -T2 big.txt && tclsh t.tcl"],
    setup: () =>
      withFiles("misc", {
        "a.c": "int a(void) { return 1; }\n",
        "big.txt": "x".repeat(200_000),
        "t.tcl": "set f [open out.txt w]\nputs $f hi\nclose $f\nforeach p [glob *.c] { file stat $p s }\n",
      }),
  },
  {
    name: "deno run: a write, a listing with stats, a removal",
    skip: lacking("deno"),
    cmd: ["deno", "run", "-A", "main.ts"],
    // deno looks for it in some runs only (1 of 16 under a strace watching the trace, which
    // showed it in that run too; docs/tracer.md).
    varies: [/^\/sys\/devices\/system\/cpu\/cpu0\/tsc_freq_khz missing$/],
    env: { ...process.env, DENO_DIR: join(dir, "deno", ".deno-dir"), NO_COLOR: "1" },
    setup: () =>
      withFiles("deno", {
        "main.ts":
          'Deno.writeTextFileSync("w.txt", "w");\nfor (const e of Deno.readDirSync(".")) Deno.statSync(e.name);\nDeno.removeSync("gone.txt");\n',
        "gone.txt": "g",
        // Made beforehand: deno looks for it from several threads at once, some with inline
        // system calls (no shim sees those), so whether it is seen missing would be a race.
        ".deno-dir/.keep": "",
      }),
  },
  {
    name: "python3 -m venv --without-pip",
    skip: lacking("python3"),
    cmd: ["python3", "-m", "venv", "--without-pip", "env"],
    setup: () => withFiles("venv", { keep: "" }),
  },
  {
    name: "gcc -flto=2 of two units (lto-wrapper, its jobs and temporary files)",
    cmd: ["gcc", "-O2", "-flto=2", "-o", "prog", "a.c", "b.c"],
    setup: () => withFiles("lto", { "a.c": "int b(void);\nint main(void) { return b(); }\n", "b.c": "int b(void) { return 0; }\n" }),
  },
  {
    name: "tar czf (tar runs gzip)",
    cmd: ["tar", "czf", "out.tgz", "src"],
    setup: () => withFiles("tarz", { "src/a": "a", "src/b/c": "c" }),
  },
  {
    name: "recursive make -j2",
    cmd: ["make", "-s", "-j2"],
    setup: () =>
      withFiles("rmake", {
        Makefile: "all:\n\t$(MAKE) -C sub\n\tcat sub/out > top\n",
        "sub/Makefile": "out: in\n\tcp in out\n",
        "sub/in": "x",
      }),
  },
  {
    name: "bun build of two modules",
    skip: lacking("bun"),
    inline: true,
    cmd: ["bun", "build", "in.ts", "--outfile", "out.js"],
    setup: () => withFiles("bunbuild", { "in.ts": "import { x } from './dep.ts';\nconsole.log(x);\n", "dep.ts": "export const x = 1;\n" }),
  },
  {
    name: "git clone --depth 1 over file://, then gc",
    skip: lacking("git"),
    cmd: ["sh", "-c", "git clone -q --no-local --depth 1 file://$PWD/origin copy 2>/dev/null && git -C copy gc -q"],
    env: gitEnv,
    setup: () => {
      const d = withFiles("gitclone", { "origin/a.txt": "a" });
      git(join(d, "origin"), "init", "-q");
      git(join(d, "origin"), "add", ".");
      git(join(d, "origin"), "commit", "-qm", "one");
      return d;
    },
  },
];

oracleTests("strace -f oracle on a third held-out set", cases, fresh("strace"));
