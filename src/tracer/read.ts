/** Reading a supervisor's record log (its --log FILE) into deduplicated accesses. */
import { AccessCollector, type CollectOptions } from "./accesses.ts";
import { FLAG, scanLogFile, type LogHeader } from "./log.ts";

export { hasLogHeader } from "./log.ts";
import type { Access, UsedBackend } from "./types.ts";

export interface AccessLog {
  accesses: Access[];
  complete: boolean;
  incompleteReasons: string[];
  /** How the command ran differently under the tracer (see changes()). */
  changes: string[];
  backendsUsed: UsedBackend[];
  header: LogHeader;
  /** Records skipped because a writer died mid-record. */
  torn: number;
}

const ERRNO_NAMES: Record<number, string> = { 1: "EPERM", 13: "EACCES", 16: "EBUSY", 22: "EINVAL", 38: "ENOSYS" };

/** The flags that say a trace is incomplete and need no more than a fixed sentence, in the order said. */
const FIXED_REASONS: Array<[number, string]> = [
  [
    FLAG.STATIC_UNTRACED,
    "a statically linked, Go or other-architecture (emulated) program ran under --backend preload, which cannot see its file accesses",
  ],
  [FLAG.FOREIGN_ARCH, "a 32-bit or x32 system call was made and not decoded"],
  [FLAG.UNREADABLE, "some paths could not be read from the traced process"],
];

const LATER_REASONS: Array<[number, string]> = [
  [FLAG.CHILD_UNTRACED, "a child process could not be traced (a 32-bit program, or the hook DLL did not load into it)"],
  [FLAG.SHIM_DROPPED, "a program ran as another user or with changed privileges (setuid), where --backend preload cannot follow"],
  [
    FLAG.SIP_STRIPPED,
    "a program protected by macOS System Integrity Protection (/usr/bin, /bin, ...) ran, or ran a script; it and its children were not traced",
  ],
  [
    FLAG.PATH_UNRESOLVED,
    "a path was reached through a folder whose name is longer than the kernel names (4,096 bytes), or that was removed; it was not recorded",
  ],
  [FLAG.IO_URING_UNTRACED, "the command used io_uring, whose file operations --backend preload cannot see"],
  [
    FLAG.RAW_UNTRACED,
    "a program made a file system call through syscall(2) that --backend preload does not decode (auto and seccomp see it)",
  ],
  [
    FLAG.SPAWN_UNREAD,
    "a program spawned another with file actions (posix_spawn) this C library lays out in a way --backend preload cannot read (auto and seccomp see them)",
  ],
  [
    FLAG.CHROOT_UNTRACED,
    "a program changed its root (chroot), from where --backend preload cannot name paths as the host does; it and what it ran were not traced from then on (auto and seccomp name them)",
  ],
  [
    FLAG.NAMESPACE_UNTRACED,
    "code ran in a link-map namespace of its own (an audit module of LD_AUDIT or DT_AUDIT, or a library loaded with dlmopen), whose C library --backend preload does not interpose (auto and seccomp see it)",
  ],
  [
    FLAG.ROOT_UNNAMED,
    "a program changed its root in a mount namespace of its own (pivot_root): the paths it names from there are not the host's",
  ],
  [FLAG.HANDLE_UNNAMED, "a file opened by handle (open_by_handle_at) could not be named (the supervisor lacks CAP_DAC_READ_SEARCH)"],
  [
    FLAG.FIFO_UNTOLD,
    "a FIFO was opened for writing without blocking, which fails when it has no reader; whether it did could not be seen (--backend seccomp, or a static program): it is recorded as a write",
  ],
  [
    FLAG.DETACHED,
    "the command's own process ended while processes it started were still running (--detach-ok): what they did from then on is not in the trace",
  ],
  [
    FLAG.SETUID_UNPRIVILEGED,
    "a setuid, setgid or file-capability program ran without its privileges (the seccomp filter sets no_new_privs); --backend preload keeps them but cannot trace it",
  ],
];

const fixed = (f: number, table: Array<[number, string]>) => table.filter(([flag]) => f & flag).map(([, reason]) => reason);

/** Why a log says its trace is incomplete, in words. */
export function incompleteReasons(header: LogHeader): string[] {
  const reasons: string[] = [];
  const f = header.flags;
  if (f & FLAG.SECCOMP_REFUSED) {
    const e = ERRNO_NAMES[header.seccompErrno] ?? `errno ${header.seccompErrno}`;
    reasons.push(`seccomp was refused (${e}): statically linked and Go programs were not traced`);
  }
  reasons.push(...fixed(f, FIXED_REASONS));
  if (f & FLAG.LAUNCHER_ERROR)
    reasons.push(
      f & FLAG.USED_DLL
        ? "the launcher or the hook DLL hit an internal error (an ntdll function could not be hooked, or a wait failed)"
        : "the supervisor hit an internal error",
    );
  reasons.push(...fixed(f, LATER_REASONS));
  if (header.dropped > 0) reasons.push(`${header.dropped} records did not fit in the log`);
  return reasons;
}

/** How the command ran differently from an untraced run (its trace is still whole), in words. */
export function changes(header: LogHeader): string[] {
  const out: string[] = [];
  if (header.flags & FLAG.CHANGED_IO_URING)
    out.push("io_uring_setup was refused (ENOSYS), since no tracer sees a ring's file operations; the program went on without io_uring");
  return out;
}

/** Parses a log written by a launcher (its --log FILE) into deduplicated accesses. */
export function readAccessLog(file: string, options: CollectOptions = {}): AccessLog {
  const collector = new AccessCollector(options);
  const { header, torn } = scanLogFile(file, (data, at, len) => collector.addFrame(data, at, len));
  const accesses = collector.finish();
  const reasons = incompleteReasons(collector.unresolved ? { ...header, flags: header.flags | FLAG.PATH_UNRESOLVED } : header);
  const used: UsedBackend[] = [];
  if (header.flags & FLAG.USED_PRELOAD) used.push("preload");
  if (header.flags & FLAG.USED_SECCOMP || header.notifications > 0) used.push("seccomp");
  if (header.flags & FLAG.USED_DLL) used.push("dll");
  return {
    accesses,
    complete: reasons.length === 0,
    incompleteReasons: reasons,
    changes: changes(header),
    backendsUsed: used,
    header,
    torn,
  };
}
