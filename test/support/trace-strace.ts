/**
 * `strace -f` as the oracle of `xbench trace`: runs a command under strace, decodes every call
 * xbench traces and classifies it the way xbench's modes mean, independently of xbench's code.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { dirname, isAbsolute, join, normalize } from "pathe";

export type Mode = "read" | "write" | "readdir" | "stat" | "exec" | "missing";

/** Calls that look at a path without reading, writing or listing it (chdir only follows the cwd). */
const STAT_LIKE_CALLS = [
  "stat",
  "lstat",
  "newfstatat",
  "statx",
  "access",
  "faccessat",
  "faccessat2",
  "readlink",
  "readlinkat",
  "statfs",
  "chdir",
  "chroot",
  "name_to_handle_at",
  // An extended attribute read or listed, a mount tree looked up: the path's metadata, not its data.
  "getxattr",
  "lgetxattr",
  "listxattr",
  "llistxattr",
  "open_tree",
];
const STAT_LIKE = new Set(STAT_LIKE_CALLS);

/** Calls that create a node or change a path's metadata: writes, as the tracer counts them (docs/tracer.md). */
const NODE_AND_METADATA_CALLS = [
  "mknod",
  "mknodat",
  "chmod",
  "fchmodat",
  "chown",
  "lchown",
  "fchownat",
  "utime",
  "utimes",
  "utimensat",
  "futimesat",
  "setxattr",
  "lsetxattr",
  "removexattr",
  "lremovexattr",
];

/** Metadata changes through an fd: the fd's own file is written (docs/tracer.md). */
const FD_METADATA_CALLS = ["fchmod", "fchown", "fsetxattr", "fremovexattr"];

/** The calls xbench traces, as strace names them, and the ones decoded only to follow cwds. */
const TRACED = [
  "open",
  "openat",
  "openat2",
  "creat",
  "execve",
  "execveat",
  ...STAT_LIKE_CALLS,
  "getdents",
  "getdents64",
  "unlink",
  "unlinkat",
  "rmdir",
  "mkdir",
  "mkdirat",
  "rename",
  "renameat",
  "renameat2",
  "link",
  "linkat",
  "symlink",
  "symlinkat",
  "truncate",
  ...NODE_AND_METADATA_CALLS,
  ...FD_METADATA_CALLS,
  "bind",
  "inotify_add_watch",
  "fanotify_mark",
  "open_by_handle_at",
];
const FOLLOWED = ["fchdir", "clone", "clone3", "fork", "vfork", "close", "unshare"];
/** The arguments that hold the two names of a rename or link. */
const TWO_NAMES: Record<string, readonly number[]> = { rename: [0, 1], link: [0, 1], renameat: [1, 3], renameat2: [1, 3], linkat: [1, 3] };

/**
 * Calls strace shows under `trace=%file` that xbench does not trace, named here once: they are
 * out of scope for a build tracer (mount, swap, accounting, quotas). Calls this strace does not
 * know (Linux 6.6 and later: fchmodat2, the *xattrat calls, file_getattr) are named by the cases
 * that make them (OracleCase.beyondStrace).
 */
export const NOT_TRACED = ["mount", "umount2", "pivot_root", "swapon", "swapoff", "acct", "quotactl"];

const WRITES = new Set(["unlink", "unlinkat", "rmdir", "mkdir", "mkdirat", "truncate", ...NODE_AND_METADATA_CALLS]);

/** Splits strace's argument list at top-level commas (strings, <fd paths>, {}, [] kept whole). */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
      cur += s.slice(i, j + 1);
      i = j;
      continue;
    }
    if (c === "<" && /[\dD]$/.test(cur)) {
      const j = s.indexOf(">", i);
      cur += s.slice(i, j + 1);
      i = j;
      continue;
    }
    if (c === "{" || c === "[" || c === "(") depth++;
    if (c === "}" || c === "]" || c === ")") depth--;
    if (c === "," && depth === 0) {
      out.push(cur.trim());
      cur = "";
      continue;
    }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** strace's escapes (\n, \377, \x41), each byte as one character. */
function straceUnescape(text: string): string {
  return text.replace(/\\(x[0-9a-f]{2}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (e[0] === "x") return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: "\n", t: "\t", r: "\r", v: "\v", f: "\f" } as Record<string, string>)[e] ?? e;
  });
}

function unquote(arg: string | undefined): string | undefined {
  if (arg?.[0] !== '"') return undefined;
  return straceUnescape(arg.slice(1, arg.lastIndexOf('"')));
}

/**
 * A process's magic /proc links, which the kernel follows to the file itself (docs/tracer.md):
 * /proc/PID/cwd, root, exe and fd/N, /dev/fd/N, /dev/stdin..., then what follows ("/..." or nothing).
 */
const MAGIC_LINK = /^(\/proc\/(?:self|thread-self|[1-9]\d*)\/(?:cwd|root|exe|fd\/\d+)|\/dev\/(?:fd\/\d+|stdin|stdout|stderr))(\/.*)?$/;

/** Calls that act on the symlink a path ends in, not on what it leads to. */
const NOT_FOLLOWING = new Set([
  "lstat",
  "readlink",
  "readlinkat",
  "lchown",
  "unlink",
  "unlinkat",
  "rmdir",
  "lgetxattr",
  "llistxattr",
  "lsetxattr",
  "lremovexattr",
]);

/** The directory an fd argument names (`3</dir>`, `AT_FDCWD</cwd>`), if decoded. */
function fdPath(arg: string | undefined): string | undefined {
  const found = arg ? /<(.*)>(\(deleted\))?$/.exec(arg) : null;
  if (!found) return undefined;
  // strace -y escapes a name's unprintable bytes (\377) as it does in strings.
  const m = [found[0], straceUnescape(found[1]!), found[2]] as const;
  // A folder removed while open is named as it was: strace marks an fd's after its name
  // (`4</dir>(deleted)`), and a process's cwd carries the kernel's mark inside (`</dir (deleted)>`).
  if (m[2]) return m[1];
  return m[1]!.endsWith(" (deleted)") && !existsSync(m[1]!) ? m[1]!.slice(0, -" (deleted)".length) : m[1];
}

function openModes(flags: string): Mode[] {
  const f = new Set(flags.split("|"));
  if (f.has("O_PATH")) return ["stat"];
  // A file without a name made in the folder: nothing in it is read (strace shows O_TMPFILE
  // with the O_DIRECTORY it contains folded in).
  if (f.has("O_TMPFILE")) return ["write"];
  const modes: Mode[] = [];
  const wr = f.has("O_WRONLY"),
    rdwr = f.has("O_RDWR");
  if (!wr) modes.push("read");
  if (wr || rdwr || f.has("O_CREAT") || f.has("O_TRUNC") || f.has("O_APPEND")) modes.push("write");
  if (f.has("O_DIRECTORY") && !f.has("O_CREAT") && !f.has("O_TRUNC") && !wr) return ["stat"];
  return modes;
}

const realFolders = new Map<string, string>();

/**
 * An absolute path with `..` taken as the kernel takes it: the parent of the real folder the
 * path before it leads to (with `l -> sub/deep`, `l/../x` is `sub/x`), looked up now; as text
 * when that folder is gone. Otherwise the names strace shows, normalized.
 */
function kernelPath(path: string): string {
  if (!path.split("/").includes("..")) return normalize(path);
  let cur = "/";
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg !== "..") {
      cur = cur === "/" ? `/${seg}` : `${cur}/${seg}`;
      continue;
    }
    let real = realFolders.get(cur);
    if (real === undefined) {
      try {
        real = realpathSync(cur);
      } catch {
        real = cur;
      }
      realFolders.set(cur, real);
    }
    cur = dirname(real);
  }
  return cur;
}

export interface StraceView {
  /** Modes per absolute path, as xbench should report them. */
  modes: Map<string, Set<Mode>>;
  /** "path mode" -> the system calls that showed it. */
  via: Map<string, Set<string>>;
}

/** Classifies a strace log (see straceModes). */
export function classify(log: string, topCwd: string): StraceView {
  realFolders.clear(); // the file system as this run left it
  const byPath = new Map<string, Set<Mode>>();
  const via = new Map<string, Set<string>>();
  let call = "";
  /** The cwd per fs (CLONE_FS shares one between processes and threads; unshare splits it). */
  const cwdOf = new Map<string, string>();
  /** pid -> its fs: the pid that made it. */
  const fsOf = new Map<string, string>();
  const fs = (pid: string) => fsOf.get(pid) ?? pid;
  const cwd = {
    get: (pid: string) => cwdOf.get(fs(pid)),
    has: (pid: string) => cwdOf.has(fs(pid)),
    set: (pid: string, path: string) => cwdOf.set(fs(pid), path),
  };
  /** A process's root after chroot, as the host names it: its absolute paths start there. */
  const roots = new Map<string, string>();
  let root = "";
  const pending = new Map<string, string>();
  /** "pid fd" -> the open flags of a file opened by handle, named when it is closed. */
  const byHandle = new Map<string, string>();
  /** "pid fd" -> the file an open returned it for (-y), which /proc/self/fd/N reaches. */
  const fdFile = new Map<string, string>();
  const hostPath = (path: string, base: string | undefined) =>
    isAbsolute(path) && root
      ? kernelPath(`${root}${path}`).replace(/(.)\/+$/, "$1") // the root itself: its own name, no slash
      : kernelPath(isAbsolute(path) ? path : `${base ?? topCwd}/${path}`); // pathe's join would drop `x/..` as text
  /** `host`: a name strace -y gave (an fd's), already the host's. */
  const add = (path: string | undefined, base: string | undefined, modes: Mode[], host = false) => {
    if (path === undefined || path === "") return;
    const abs = host ? kernelPath(path) : hostPath(path, base);
    let set = byPath.get(abs);
    if (!set) byPath.set(abs, (set = new Set()));
    for (const m of modes) {
      set.add(m);
      const key = `${abs} ${m}`;
      via.set(key, (via.get(key) ?? new Set()).add(call));
    }
  };
  for (const raw of log.split("\n")) {
    const sp = raw.indexOf(" ");
    if (sp < 0) continue;
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
    const m = /^(\w+)\((.*)\)\s+= (-?\d+|\?)(?:<([^>]*)>)?(?: (E\w+))?/.exec(line);
    if (!m) continue;
    if (m[4] && /^open/.test(m[1]!)) fdFile.set(`${pid} ${m[3]}`, straceUnescape(m[4]));
    if (m[1] === "close") fdFile.delete(`${pid} ${/^\d+/.exec(m[2]!)?.[0]}`);
    const [, name, argText, retText, retPath, errno] = m as unknown as [
      string,
      string,
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    call = name;
    root = roots.get(pid) ?? "";
    const ret = retText === "?" ? 0 : Number(retText);
    const args = splitArgs(argText);
    const here = cwd.get(pid) ?? topCwd;
    for (const a of args) {
      if (a.startsWith("AT_FDCWD<")) cwd.set(pid, fdPath(a)!);
    }
    const base = cwd.get(pid) ?? here;
    if (name === "clone" || name === "clone3" || name === "fork" || name === "vfork") {
      // The child may have run (and moved: a spawn's chdir action) before its parent's clone returned.
      const child = String(ret);
      if (ret > 0 && /\bCLONE_FS\b/.test(argText)) {
        if (cwd.has(child)) cwd.set(pid, cwd.get(child)!);
        fsOf.set(child, fs(pid));
      } else if (ret > 0 && !cwd.has(child)) cwd.set(child, base);
      if (ret > 0 && root && !roots.has(String(ret))) roots.set(String(ret), root);
      continue;
    }
    const failed = ret < 0;
    const outcome = (modes: Mode[]): Mode[] => (!failed ? modes : errno === "ENOENT" || errno === "ENOTDIR" ? ["missing"] : ["stat"]);
    /** An open through a process's magic /proc link: the file it reached, which -y names; 1 if so. */
    const opened = (path: string | undefined, flags: string): boolean => {
      const link = path ? MAGIC_LINK.exec(path) : null;
      const reached = retPath ? straceUnescape(retPath) : undefined;
      if (!link || failed || !reached?.startsWith("/") || (!link[2] && flags.includes("O_NOFOLLOW"))) return false;
      add(reached, undefined, openModes(flags), true);
      return true;
    };
    // Both names of a rename or link are read before any lookup: one the kernel could not read
    // (strace shows its address) fails the call with EFAULT, and it names nothing.
    if (failed && errno === "EFAULT" && TWO_NAMES[name]?.some((i) => unquote(args[i]) === undefined)) continue;
    switch (name) {
      case "unshare": // CLONE_FS: this process's cwd becomes its own
        if (!failed && /\bCLONE_FS\b/.test(argText)) {
          fsOf.set(pid, `${pid}+`);
          cwd.set(pid, base);
        }
        break;
      case "fchdir":
        if (!failed && fdPath(args[0])) cwd.set(pid, fdPath(args[0])!);
        break;
      case "execve":
        add(unquote(args[0]), base, outcome(["exec"]));
        break;
      case "execveat":
        if (unquote(args[1])) add(unquote(args[1]), fdPath(args[0]) ?? base, outcome(["exec"]));
        else add(fdPath(args[0]), undefined, outcome(["exec"]), true);
        break;
      case "open":
        if (!opened(unquote(args[0]), args[1] ?? "")) add(unquote(args[0]), base, outcome(openModes(args[1] ?? "")));
        break;
      case "creat":
        add(unquote(args[0]), base, outcome(["write"]));
        break;
      case "openat":
        if (!opened(unquote(args[1]), args[2] ?? "")) add(unquote(args[1]), fdPath(args[0]) ?? base, outcome(openModes(args[2] ?? "")));
        break;
      case "openat2": {
        const flags = /flags=([\w|]+)/.exec(args[2] ?? "")?.[1] ?? "";
        // RESOLVE_IN_ROOT: the dirfd is the root an absolute path starts from.
        const inRoot = /resolve=[\w|]*RESOLVE_IN_ROOT/.test(args[2] ?? "");
        const path = unquote(args[1]);
        add(inRoot ? path?.replace(/^\/+/, "") || "." : path, fdPath(args[0]) ?? base, outcome(openModes(flags)));
        break;
      }
      case "open_by_handle_at": // no path: the file is named by the fd it returns, or at its close
        if (failed) break;
        if (retPath) add(retPath, undefined, openModes(args[2] ?? ""), true);
        else byHandle.set(`${pid} ${ret}`, args[2] ?? "");
        break;
      case "close": {
        const flags = byHandle.get(`${pid} ${/^\d+/.exec(args[0] ?? "")?.[0]}`);
        if (flags === undefined) break;
        byHandle.delete(`${pid} ${/^\d+/.exec(args[0] ?? "")?.[0]}`);
        add(fdPath(args[0]), undefined, openModes(flags), true);
        break;
      }
      case "inotify_add_watch": // a watch looks its path up
        add(unquote(args[1]), base, outcome(["stat"]));
        break;
      case "fanotify_mark": // a NULL path marks the dirfd's own file
        add(unquote(args[4]), fdPath(args[3]) ?? base, outcome(["stat"]));
        break;
      case "fchmod":
      case "fchown":
      case "fsetxattr":
      case "fremovexattr":
        add(fdPath(args[0]), undefined, outcome(["write"]), true);
        break;
      case "getdents":
      case "getdents64":
        if (!failed) add(fdPath(args[0]), undefined, ["readdir"], true);
        break;
      case "rename":
      case "link":
      case "symlink":
        if (name === "rename") add(unquote(args[0]), base, outcome(["write"]));
        if (name === "link") add(unquote(args[0]), base, outcome(["stat"])); // the source is looked up
        add(unquote(args[1]), base, outcome(["write"]));
        break;
      case "bind": {
        // An AF_UNIX path socket is a new node; abstract names (sun_path=@"...") are no path.
        const path = /sa_family=AF_UNIX, sun_path="/.test(args[1] ?? "") ? unquote(/sun_path=(".*")/.exec(args[1]!)?.[1]) : undefined;
        add(path, base, outcome(["write"]));
        break;
      }
      case "renameat":
      case "renameat2":
        add(unquote(args[1]), fdPath(args[0]) ?? base, outcome(["write"]));
        add(unquote(args[3]), fdPath(args[2]) ?? base, outcome(["write"]));
        break;
      case "linkat":
        add(unquote(args[1]), fdPath(args[0]) ?? base, outcome(["stat"])); // the source is looked up
        add(unquote(args[3]), fdPath(args[2]) ?? base, outcome(["write"]));
        break;
      case "symlinkat":
        add(unquote(args[2]), fdPath(args[1]) ?? base, outcome(["write"]));
        break;
      default: {
        const atForm = /^(AT_FDCWD|\d+)/.test(args[0] ?? "");
        // A process's own fd through /proc (glibc's fchmodat(AT_SYMLINK_NOFOLLOW) chmods
        // /proc/self/fd/N): the file its open returned it for.
        const given = unquote(atForm ? args[1] : args[0]);
        const follows = !/AT_SYMLINK_NOFOLLOW/.test(argText) && !NOT_FOLLOWING.has(name);
        const own = given && follows ? /^\/proc\/(self|\d+)\/fd\/(\d+)$/.exec(given) : null;
        const path = own && (own[1] === "self" || own[1] === pid) ? (fdFile.get(`${pid} ${own[2]}`) ?? given) : given;
        const dir = atForm ? (fdPath(args[0]) ?? base) : base;
        // A metadata change through an fd (futimens: a NULL name; "" with AT_EMPTY_PATH) writes
        // the fd's own file; a lookup through one names nothing.
        const onFd = (path === "" && /AT_EMPTY_PATH/.test(argText)) || (name === "utimensat" && args[1] === "NULL");
        if (onFd && WRITES.has(name)) add(fdPath(args[0]), undefined, outcome(["write"]), true);
        if (path === "" || path === undefined) break; // AT_EMPTY_PATH: an fd operation
        if (STAT_LIKE.has(name)) {
          add(path, dir, outcome(["stat"]));
          if (name === "chdir" && !failed) cwd.set(pid, hostPath(path, dir));
          if (name === "chroot" && !failed) roots.set(pid, hostPath(path, dir));
        } else if (WRITES.has(name)) {
          add(path, dir, outcome(["write"]));
        }
      }
    }
  }
  for (const set of byPath.values()) if (set.has("readdir")) set.delete("read");
  return { modes: byPath, via };
}

/** Runs `cmd` under `strace -f` in `cwd` and classifies what it did. */
export function straceModes(cmd: string[], cwd: string, env: NodeJS.ProcessEnv, scratch: string): StraceView {
  return classify(straceLog(cmd, cwd, env, scratch), cwd);
}

/**
 * `strace -f` over `wrapper` (a tracer), which runs `cmd`: what `cmd`'s own process tree did in
 * that very run, from its execve on, the wrapper's own calls left out.
 */
export function straceUnder(wrapper: string[], cmd: string[], cwd: string, env: NodeJS.ProcessEnv, scratch: string): StraceView {
  return classify(subtree(straceLog([...wrapper, ...cmd], cwd, env, scratch), cmd[0]!), cwd);
}

/**
 * The lines of a `strace -f` log made by the first process that ran a program as `argv0` (from
 * that execve on) and by every process and thread under it. Parents are read from the whole log
 * first: a child's first call can be printed before its parent's clone returns.
 */
export function subtree(log: string, argv0: string): string {
  const lines = log.split("\n");
  const parent = new Map<string, string>();
  let root: string | undefined;
  let from = 0;
  lines.forEach((line, i) => {
    const made = /^(\d+) (?:<\.\.\. )?(?:clone3?|v?fork)\b.*= (\d+)$/.exec(line);
    if (made) parent.set(made[2]!, made[1]!);
    if (root === undefined && line.includes(` execve(`) && line.includes(`, [${JSON.stringify(argv0)}`)) {
      root = line.slice(0, line.indexOf(" "));
      from = i;
    }
  });
  if (root === undefined) throw new Error(`no execve of ${argv0} in the strace log`);
  const under = (pid: string | undefined): boolean => pid !== undefined && (pid === root || under(parent.get(pid)));
  return lines
    .filter((line, i) => {
      const pid = line.slice(0, line.indexOf(" "));
      return pid === root ? i >= from : under(pid);
    })
    .join("\n");
}

function straceLog(cmd: string[], cwd: string, env: NodeJS.ProcessEnv, scratch: string): string {
  const out = join(scratch, `strace-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  const trace = `trace=${[...TRACED, ...FOLLOWED].join(",")}`;
  const r = spawnSync("strace", ["-f", "-y", "-qq", "-s", "8192", "-o", out, "-e", trace, "--", ...cmd], {
    cwd,
    env,
    encoding: "utf8",
    timeout: 300_000,
  });
  try {
    if (r.status !== 0) throw new Error(`strace ${cmd.join(" ")} failed (${r.status}): ${r.stderr}`);
    return readFileSync(out, "latin1");
  } finally {
    rmSync(out, { force: true });
  }
}
