/**
 * Oracle: every path `strace -f` shows opened successfully must be in xbench's output.
 * The seccomp backend sees every syscall and must match exactly. The preload backend cannot
 * see opens that glibc makes through its internal, non-interposable aliases; those are listed
 * in PRELOAD_BLIND and must be the only misses.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { isAbsolute, join, normalize } from "pathe";
import { tempDir } from "../support/xbench.ts";
import { PYTHON, have, traceRun } from "../support/trace.ts";

const tmp = tempDir("xbench-trace-oracle-");
const dir = realpathSync(tmp.dir);
afterAll(tmp.cleanup);


/** Opens glibc makes internally (locale, iconv, NSS, /proc/self/maps for pthread stacks...). */
const PRELOAD_BLIND: RegExp[] = [
  /^\/usr\/lib\/locale\//,
  /^\/usr\/share\/locale\//,
  /\/gconv\//,
  /^\/etc\/(nsswitch\.conf|passwd|group|localtime|host\.conf|resolv\.conf|hosts)$/,
  /^\/proc\/(self|\d+)\//,
  /^\/sys\//,
  /^\/dev\/(null|tty|urandom)$/,
];

/** gcc's temporary files get a fresh random name in every run. */
function stable(p: string): string {
  return p.replace(/\/cc[A-Za-z0-9]{6}\.(\w+)$/, "/cc??????.$1");
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Paths opened successfully according to strace (-y decodes dirfds). */
function straceOpened(cmd: string[], cwd: string): Set<string> {
  const out = join(dir, `strace-${Math.random().toString(36).slice(2)}.txt`);
  const r = spawnSync("strace", ["-f", "-y", "-qq", "-s", "4096", "-o", out, "-e", "trace=open,openat,openat2,creat,execve,execveat", ...cmd], {
    cwd,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`strace failed: ${r.stderr}`);
  const opened = new Set<string>();
  const re = /^(open|openat|openat2|creat|execve|execveat)\((?:(?:AT_FDCWD|\d+)(?:<([^>]*)>)?, )?"((?:[^"\\]|\\.)*)"[^=]*= (\d+)/;
  const pending = new Map<string, string>();
  for (const raw of readFileSync(out, "utf8").split("\n")) {
    const sp = raw.indexOf(" ");
    const pid = raw.slice(0, sp);
    let line = raw.slice(sp + 1).trimStart();
    if (line.endsWith("<unfinished ...>")) {
      pending.set(pid, line.slice(0, -"<unfinished ...>".length));
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>/.exec(line);
    if (resumed) {
      line = (pending.get(pid) ?? "") + line.slice(resumed[0].length);
      pending.delete(pid);
    }
    const m = re.exec(line);
    if (!m) continue;
    const path = JSON.parse(`"${m[3]!.replace(/\\x([0-9a-f]{2})/g, "\\u00$1")}"`) as string;
    const base = m[2] ?? cwd;
    opened.add(normalize(isAbsolute(path) ? path : join(base, path)));
  }
  return opened;
}

function missing(cmd: string[], cwd: string, backend: string): string[] {
  const expected = straceOpened(cmd, cwd);
  expect(expected.size).toBeGreaterThan(5);
  const r = traceRun(cmd, ["--backend", backend], { cwd });
  expect(r.code).toBe(0);
  const seen = new Set<string>();
  for (const a of r.trace.accesses) {
    seen.add(stable(a.path));
    seen.add(stable(realOrSelf(a.path)));
  }
  return [...expected].filter((p) => !seen.has(stable(p)) && !seen.has(stable(realOrSelf(p))));
}

const cases: { name: string; cmd: string[]; cwd: () => string; skip?: string }[] = [
  { name: "python3 -c 'import json'", cmd: [PYTHON, "-c", "import json"], cwd: () => dir },
  {
    name: "gcc -c of a small file",
    skip: have("gcc") ? undefined : "gcc not installed",
    cmd: ["gcc", "-c", "-o", "small.o", "small.c"],
    cwd: () => {
      const d = join(dir, "gcc");
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, "small.c"), "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n");
      return d;
    },
  },
  {
    name: "git status in a small repo",
    skip: have("git") ? undefined : "git not installed",
    cmd: ["git", "status", "--porcelain"],
    cwd: () => {
      const d = join(dir, "repo");
      if (!existsSync(d)) {
        mkdirSync(d, { recursive: true });
        const git = (...a: string[]) => spawnSync("git", a, { cwd: d, stdio: "ignore" });
        git("init", "-q");
        writeFileSync(join(d, "a.txt"), "a\n");
        git("add", "a.txt");
        git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one");
        writeFileSync(join(d, "b.txt"), "b\n");
      }
      return d;
    },
  },
];

describe.skipIf(!have("strace"))("strace -f oracle", () => {
  for (const c of cases) {
    if (c.skip) {
      test.skip(`${c.name}: skipped because ${c.skip}`, () => {});
      continue;
    }
    test(`${c.name}: seccomp sees every successful open`, () => {
      expect(missing(c.cmd, c.cwd(), "seccomp")).toEqual([]);
    });
    test(`${c.name}: auto misses only glibc-internal opens`, () => {
      const all = missing(c.cmd, c.cwd(), "auto");
      if (process.env.XBENCH_TRACE_DEBUG) console.log(c.name, "auto blind spots:", all);
      const misses = all.filter((p) => !PRELOAD_BLIND.some((re) => re.test(p)));
      expect(misses).toEqual([]);
    });
  }
});
