/** Reading a supervisor's record log (its --log FILE) into deduplicated accesses. */
import { AccessCollector, type CollectOptions } from "./accesses.ts";
import { FLAG, scanLogFile, type LogHeader } from "./log.ts";
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

/** Why a log says its trace is incomplete, in words. */
export function incompleteReasons(header: LogHeader): string[] {
  const reasons: string[] = [];
  const f = header.flags;
  if (f & FLAG.SECCOMP_REFUSED) {
    const e = ERRNO_NAMES[header.seccompErrno] ?? `errno ${header.seccompErrno}`;
    reasons.push(`seccomp was refused (${e}): statically linked and Go programs were not traced`);
  }
  if (f & FLAG.STATIC_UNTRACED)
    reasons.push(
      "a statically linked, Go or other-architecture (emulated) program ran under --backend preload, which cannot see its file accesses",
    );
  if (f & FLAG.FOREIGN_ARCH) reasons.push("a 32-bit or x32 system call was made and not decoded");
  if (f & FLAG.UNREADABLE) reasons.push("some paths could not be read from the traced process");
  if (f & FLAG.LAUNCHER_ERROR)
    reasons.push(
      f & FLAG.USED_DLL
        ? "the launcher or the hook DLL hit an internal error (an ntdll function could not be hooked, or a wait failed)"
        : "the supervisor hit an internal error",
    );
  if (f & FLAG.CHILD_UNTRACED) reasons.push("a child process could not be traced (a 32-bit program, or the hook DLL did not load into it)");
  if (f & FLAG.SHIM_DROPPED)
    reasons.push("a program ran as another user or with changed privileges (setuid), where --backend preload cannot follow");
  if (f & FLAG.SIP_STRIPPED)
    reasons.push(
      "a program protected by macOS System Integrity Protection (/usr/bin, /bin, ...) ran, or ran a script; it and its children were not traced",
    );
  if (f & FLAG.PATH_UNRESOLVED)
    reasons.push("a path was reached through a folder whose name is longer than the kernel names (4,096 bytes); it was not recorded");
  if (f & FLAG.IO_URING_UNTRACED) reasons.push("the command used io_uring, whose file operations --backend preload cannot see");
  if (f & FLAG.RAW_UNTRACED)
    reasons.push("a program made a file system call through syscall(2) that --backend preload does not decode (auto and seccomp see it)");
  if (f & FLAG.SETUID_UNPRIVILEGED)
    reasons.push(
      "a setuid, setgid or file-capability program ran without its privileges (the seccomp filter sets no_new_privs); --backend preload keeps them but cannot trace it",
    );
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
  const reasons = incompleteReasons(header);
  const used: UsedBackend[] = [];
  if (header.flags & FLAG.USED_PRELOAD) used.push("preload");
  if (header.flags & FLAG.USED_SECCOMP || header.notifications > 0) used.push("seccomp");
  if (header.flags & FLAG.USED_DLL) used.push("dll");
  return {
    accesses: collector.finish(),
    complete: reasons.length === 0,
    incompleteReasons: reasons,
    changes: changes(header),
    backendsUsed: used,
    header,
    torn,
  };
}
