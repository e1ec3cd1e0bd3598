/**
 * The oracle's machinery, shared by its test files: `strace -f` on real programs against each
 * backend, per path and per mode class (test/support/trace-strace.ts classifies strace's calls
 * the way xbench's modes mean).
 *
 * - complete: every (path, mode) strace shows is in xbench's output. auto and seccomp: no
 *   exception but the kernel-side ones (kernelRan). preload: also its named blind spots
 *   (PRELOAD_BLIND), and static programs are untraced and the trace says so.
 * - no wrong modes: a path both saw has no mode in xbench that strace does not show.
 * - a case's `known` misses are the only other exceptions, each named with its backends, and
 *   each must still happen (a fixed miss is then taken off the list, not left to hide another).
 *
 * XBENCH_TRACE_DEBUG=1 prints every difference before the filters.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { requireBinary, tempDir } from "./xbench.ts";
import { have, skipBecause, tracedBy, traceRun, type TraceRun } from "./trace.ts";
import { straceModes, straceUnder, type Mode, type StraceView } from "./trace-strace.ts";

export type Backend = "auto" | "seccomp" | "preload";
const BACKENDS: readonly Backend[] = ["auto", "seccomp", "preload"];

/** A difference from strace that is a tracer's miss, left for a fix elsewhere: named, never hidden. */
export interface Known {
  backends: Backend[];
  /** The "path mode" pairs (after `stable`) it stands for, missed or wrong. */
  pairs: RegExp;
  reason: string;
  /** The trace owns up to it: it must say it is incomplete, with a reason matching this. */
  incomplete?: RegExp;
}

export interface OracleCase {
  name: string;
  cmd: string[];
  /** Puts the tree into the same state before every run; returns the cwd. */
  setup: () => string;
  env?: NodeJS.ProcessEnv;
  skip?: string;
  /** A static program: preload cannot see it (the trace must say so). */
  static?: boolean;
  /** A program that makes its system calls inline, without libc: preload's named blind spot (docs/tracer.md). */
  inline?: boolean;
  /** Why preload cannot trace the whole run (the trace must say it is incomplete). */
  preloadIncomplete?: string;
  /**
   * Accesses the program itself makes in some runs only, whoever watches; each with why. Not
   * required from the two strace runs: the trace is run under a third strace, and what that one
   * shows of these, the trace must show.
   */
  varies?: RegExp[];
  known?: Known[];
  /**
   * The command must print on stdout under every backend what it prints untraced: both through
   * this, which takes out what changes from run to run (load addresses). The tracer must never
   * change what a program does (docs/tracer.md).
   */
  sameOutput?: (stdout: string) => string;
  /**
   * Accesses made through calls this strace does not know (newer than it: fchmodat2, the *xattrat
   * calls, file_getattr), each "path" relative to the case's folder with its modes: required of
   * the trace as if strace had shown them, and allowed.
   */
  beyondStrace?: Record<string, Mode[]>;
  /** Paths the trace must not name (say, by the /proc link a file was reached through). */
  never?: RegExp;
}

/**
 * What the kernel does by itself inside execve, which no system call shows: it follows the
 * program's symlinks and its #! line, and opens the ELF interpreter. The shim reports the image
 * a process runs (/proc/self/exe) as exec; strace shows only the execve of the name given. So a
 * path is allowed an extra "exec" when the kernel ran it for an execve strace shows.
 */
function kernelRan(expected: Modes): Set<string> {
  const ran = new Set<string>();
  for (const [p, modes] of expected) {
    if (!modes.has("exec")) continue;
    try {
      const real = realpathSync(p);
      ran.add(real);
      const head = readFileSync(real).subarray(0, 256).toString("latin1");
      const interp = /^#!\s*(\S+)/.exec(head)?.[1];
      if (interp) ran.add(interp).add(realpathSync(interp));
    } catch {
      // gone since: nothing to allow
    }
  }
  return ran;
}

/**
 * What the shim alone cannot see (every preload tracer shares these): ld.so's own opens and
 * probes before any library code runs, glibc-internal calls through hidden aliases (locale,
 * gconv, NSS, /etc/localtime, realpath's readlinks), raw syscall() calls the shim does not
 * decode (they mark the trace incomplete). auto exists to close
 * exactly these. PRELOAD_BLIND_CALLS: misses strace shows only through these calls (realpath()
 * reads links with glibc's hidden __readlink; strace cannot tell it from a public readlink).
 */
const PRELOAD_BLIND_CALLS: ReadonlySet<string> = new Set(["readlink"]);
/** The hardware-capability subfolders ld.so tries under each folder it searches. */
const HWCAP_DIRS = "tls|haswell|x86_64|avx512_1|glibc-hwcaps";
const PRELOAD_BLIND: RegExp[] = [
  /^\/etc\/ld\.so\.(preload|cache) /,
  /\.so(\.[\d.]+)?(-[\w.-]+)? (read|missing)$/, // ld.so: libraries (libLLVM.so.22.1-rust-1.95.0-stable) and its search probes
  new RegExp(`/(${HWCAP_DIRS})(/| )`),
  /\/locale\/|\/gconv\/|locale-archive|\/usr\/share\/i18n\/|\/LC_MESSAGES\/[^/]+\.mo /, // gettext's catalogs too
  /^\/etc\/(nsswitch\.conf|passwd|group|localtime|host\.conf|resolv\.conf|hosts|gai\.conf) /,
  /^\/(proc|sys|dev)\//,
  / stat$/, // realpath's readlinks, fstatat inside libc (qsort/getcwd helpers)
];

/**
 * The folders ld.so searched that do not exist (an RPATH such as $ORIGIN/../lib): each is missing
 * itself, next to its hardware-capability subfolders (PRELOAD_BLIND) under it.
 */
const UNDER_SEARCHED = new RegExp(`^(.+?)/(${HWCAP_DIRS})(/.*)? missing$`);
function loaderFolders(missed: string[]): Set<string> {
  const folders = new Set<string>();
  for (const s of missed) {
    const under = UNDER_SEARCHED.exec(s);
    if (under) folders.add(`${under[1]} missing`);
  }
  return folders;
}

/** Names that change in every run: gcc's and git's temporary files, Go's work dir, pids. */
function stable(p: string): string {
  return p
    .replace(/(.)\/+$/, "$1") // strace shows the path as given: "dir/" is "dir"
    .replace(/\/cc[A-Za-z0-9]{6}((\.\w+)*)$/, "/cc??????$1")
    .replace(/\/tmp_obj_[A-Za-z0-9]{6}$/, "/tmp_obj_??????")
    .replace(/\/xbtmp[A-Za-z0-9]{6}(\/|$)/, "/xbtmp??????$1") // mkdtemp's, and what is made in it
    .replace(/\/pytmp[a-z0-9_]{8}$/, "/pytmp????????") // Python's tempfile
    .replace(/\/sh-thd\.[A-Za-z0-9]{6}$/, "/sh-thd.??????") // bash's here-documents
    .replace(/\/go-build\d+/, "/go-build?")
    .replace(/^\/proc\/(\d+|self|thread-self)(\/|$)/, "/proc/PID$2") // strace -y names an fd's folder by pid
    .replace(/^\/dev\/pts\/\d+$/, "/dev/pts/N");
}

type Modes = Map<string, Set<Mode>>;

function stabilize(m: Map<string, Iterable<string>>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [p, modes] of m) {
    const k = stable(p);
    const set = out.get(k) ?? new Set<string>();
    for (const x of modes) set.add(x);
    out.set(k, set);
  }
  return out;
}

/** Two strace views of the same command: what both show (modes and calls), and what either does. */
function agree(a: StraceView, b: StraceView): { must: StraceView; may: Modes } {
  const sb = stabilize(b.modes);
  const must = new Map<string, Set<Mode>>();
  const may = new Map<string, Set<Mode>>();
  for (const [p, modes] of a.modes) {
    const other = sb.get(stable(p));
    const both = new Set([...modes].filter((m) => other?.has(m)));
    if (both.size) must.set(p, both);
  }
  for (const view of [a, b]) for (const [p, modes] of view.modes) may.set(p, new Set([...(may.get(p) ?? []), ...modes]));
  return { must: { modes: must, via: a.via }, may };
}

/** "path mode" pairs strace shows and xbench lacks, and modes xbench adds to a path both saw. */
function compare(expected: Modes, traced: Map<string, string[]>): { missed: string[]; wrong: string[] } {
  const want = stabilize(expected);
  const got = stabilize(traced);
  const missed: string[] = [];
  const wrong: string[] = [];
  for (const [p, modes] of want) {
    const have = got.get(p);
    for (const m of modes) if (!have?.has(m)) missed.push(`${p} ${m}`);
    if (have) for (const m of have) if (!modes.has(m)) wrong.push(`${p} ${m}`);
  }
  return { missed: missed.sort(), wrong: wrong.sort() };
}

/**
 * xbench's accesses keyed as the strace view keys paths: strace prints a name's bytes and the
 * view reads each byte as one character, while xbench shows UTF-8 names as text (and any other
 * bytes in `pathHex`). Both are compared as bytes.
 */
function asBytes(r: TraceRun): Map<string, string[]> {
  return new Map(
    r.trace.accesses.map((a) => [(a.pathHex ? Buffer.from(a.pathHex, "hex") : Buffer.from(a.path)).toString("latin1"), a.modes]),
  );
}

/** A temporary folder for a test file's cases, and the ways to fill it. */
export function oracleScratch(prefix: string) {
  const tmp = tempDir(prefix);
  const dir = realpathSync(tmp.dir);
  afterAll(tmp.cleanup);

  function fresh(name: string): string {
    const d = join(dir, name);
    rmSync(d, { recursive: true, force: true });
    mkdirSync(d, { recursive: true });
    return d;
  }

  /** A fresh folder holding `files` (name -> content). */
  function withFiles(name: string, files: Record<string, string>): string {
    const d = fresh(name);
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(join(d, f, ".."), { recursive: true });
      writeFileSync(join(d, f), text);
      utimesSync(join(d, f), PAST, PAST);
    }
    return d;
  }

  const gitEnv = {
    ...process.env,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@t",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@t",
    GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
    GIT_CONFIG_NOSYSTEM: "1",
    HOME: join(dir, "home"),
  };
  mkdirSync(join(dir, "home"), { recursive: true });
  const git = (cwd: string, ...a: string[]) => spawnSync("git", a, { cwd, stdio: "ignore", env: gitEnv });

  /** A repository of 20 files in one commit, one file changed and one new since. */
  function repo(name: string): string {
    const d = fresh(name);
    git(d, "init", "-q");
    tree(d, 20);
    git(d, "add", ".");
    git(d, "commit", "-qm", "one");
    writeFileSync(join(d, "d0", "f0.txt"), "changed\n");
    writeFileSync(join(d, "new.txt"), "new\n");
    for (const f of ["d0/f0.txt", "new.txt"]) utimesSync(join(d, f), PAST, PAST);
    return d;
  }

  /**
   * `PROGRAM WHAT .` in a fresh folder holding `files` (the ones in `executable` made
   * executable), for the glibc build and the static musl one of a fixture.
   */
  function inC(
    programs: { glibc: string; musl: string },
    name: string,
    what: string,
    files: Record<string, string>,
    executable: string[] = [],
  ): OracleCase[] {
    const setup = (folder: string) => () => {
      const d = withFiles(folder, files);
      for (const f of executable) chmodSync(join(d, f), 0o755);
      return d;
    };
    return [
      { name: `${name} (C)`, cmd: [programs.glibc, what, "."], setup: setup(what) },
      {
        name: `${name}, static musl`,
        skip: have("musl-gcc") ? undefined : "musl-gcc not installed",
        cmd: [programs.musl, what, "."],
        static: true,
        setup: setup(`${what}-static`),
      },
    ];
  }

  return { dir, fresh, withFiles, gitEnv, git, repo, inC };
}

/** An hour ago: files older than git's index are not "racy" (re-read in some runs only). */
export const PAST = new Date(Date.now() - 3600_000);

/** `n` files spread over five folders under `root`. */
export function tree(root: string, n: number): void {
  for (let i = 0; i < n; i++) {
    const sub = join(root, `d${i % 5}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.txt`), `${i}\n`);
    utimesSync(join(sub, `f${i}.txt`), PAST, PAST);
  }
}

/** The oracle with a case's accesses that strace cannot show added (OracleCase.beyondStrace). */
function withBeyond(c: OracleCase, oracle: { must: StraceView; may: Modes }): { must: StraceView; may: Modes } {
  if (!c.beyondStrace) return oracle;
  const cwd = c.setup();
  for (const [rel, modes] of Object.entries(c.beyondStrace)) {
    const abs = join(cwd, rel);
    for (const view of [oracle.must.modes, oracle.may]) view.set(abs, new Set([...(view.get(abs) ?? []), ...modes]));
  }
  return oracle;
}

/** One test per case and backend against `strace -f` (strace's own scratch files go in `scratch`). */
export function oracleTests(title: string, cases: OracleCase[], scratch: string): void {
  describe.skipIf(!have("strace"))(title, () => {
    for (const c of cases) {
      if (c.skip) {
        skipBecause(c.name, c.skip);
        continue;
      }
      const env = c.env ?? process.env;
      // Two strace runs: a program's own run-to-run differences (node sometimes reads its own
      // binary) are no tracer's miss. Required: what both runs show; allowed: what either shows.
      let oracle: { must: StraceView; may: Modes } | undefined;
      const expected = () =>
        (oracle ??= withBeyond(c, agree(straceModes(c.cmd, c.setup(), env, scratch), straceModes(c.cmd, c.setup(), env, scratch))));
      let untraced: string | undefined;
      const printed = () =>
        (untraced ??= spawnSync(c.cmd[0]!, c.cmd.slice(1), { cwd: c.setup(), env, encoding: "utf8", timeout: 120_000 }).stdout);
      for (const backend of BACKENDS) {
        if (backend === "preload" && c.inline) {
          skipBecause(`${c.name}: ${backend}`, "its calls are made inline, without libc: nothing goes through the shim");
          continue;
        }
        test(
          `${c.name}: ${backend}`,
          () => {
            if (!c.varies) {
              const r = traceRun(c.cmd, ["--backend", backend], { cwd: c.setup(), env });
              if (c.sameOutput) expect(c.sameOutput(r.stdout)).toBe(c.sameOutput(printed()));
              return checkCase(c, backend, expected(), r);
            }
            // What varies is held against a strace watching the very run traced.
            const cwd = c.setup();
            let seen: Modes = new Map();
            const r = tracedBy(c.cmd, ["--backend", backend], (trace) => {
              seen = straceUnder([requireBinary(), ...trace], c.cmd, cwd, env, scratch).modes;
              return { code: 0, signal: null, stdout: "", stderr: "" }; // strace failed otherwise
            });
            checkCase(c, backend, expected(), r, seen);
          },
          c.varies ? 240_000 : 120_000,
        );
      }
    }
  });
}

/** `seen`: what a strace watching this very run showed, for the accesses the case says vary. */
function checkCase(c: OracleCase, backend: Backend, oracle: { must: StraceView; may: Modes }, r: TraceRun, seen?: Modes): void {
  const { must: view, may } = oracle;
  const want = view.modes;
  expect(want.size).toBeGreaterThan(3);
  expect(r.code).toBe(0);
  if (c.never) expect(r.trace.accesses.map((a) => a.path).filter((p) => c.never!.test(p))).toEqual([]);
  const traced = asBytes(r);
  const { missed } = compare(want, traced);
  const { wrong } = compare(may, traced);
  if (process.env.XBENCH_TRACE_DEBUG) console.log(c.name, backend, { missed, wrong, incomplete: r.trace.incompleteReasons });
  const ran = kernelRan(want);
  const kernel = (s: string) => s.endsWith(" exec") && ran.has(s.slice(0, -" exec".length));
  if (backend === "preload" && (c.static || c.preloadIncomplete)) {
    expect(r.trace.complete).toBe(false); // a static program preload cannot see into
    return;
  }
  const viaOnly = (s: string) => {
    const calls = [...view.via.entries()].filter(([k]) => stable(k.slice(0, k.lastIndexOf(" "))) + k.slice(k.lastIndexOf(" ")) === s);
    return calls.length > 0 && calls.every(([, v]) => [...v].every((c) => PRELOAD_BLIND_CALLS.has(c)));
  };
  const searched = loaderFolders(missed);
  const blind = (s: string) => backend === "preload" && (PRELOAD_BLIND.some((re) => re.test(s)) || viaOnly(s) || searched.has(s));
  const varies = (s: string) => c.varies?.some((re) => re.test(s)) ?? false;
  const known = (c.known ?? []).filter((k) => k.backends.includes(backend));
  const isKnown = (s: string) => known.some((k) => k.pairs.test(s));
  if (c.varies) expect(seen?.size ?? 0).toBeGreaterThan(3);
  // An access the program makes in some runs only is required when this run made it.
  const madeThisRun = seen ? compare(seen, traced).missed.filter(varies) : [];
  const misses = [...new Set([...missed.filter((s) => !varies(s)), ...madeThisRun])].filter((s) => !kernel(s) && !blind(s));
  const wrongs = wrong.filter((s) => !kernel(s));
  for (const k of known)
    if (![...misses, ...wrongs].some((s) => k.pairs.test(s))) throw new Error(`no longer missed, take it off the known list: ${k.reason}`);
  expect(misses.filter((s) => !isKnown(s))).toEqual([]);
  expect(wrongs.filter((s) => !isKnown(s))).toEqual([]);
  const owned = known.filter((k) => k.incomplete);
  expect(r.trace.complete).toBe(owned.length === 0);
  for (const k of owned) expect(r.trace.incompleteReasons.some((why) => k.incomplete!.test(why))).toBe(true);
}
