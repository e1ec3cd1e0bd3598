/* A system call that returns -errno instead of setting errno: no libc state touched, so it is
 * safe in signal handlers, in a vfork child and in the launcher that shares the supervisor's
 * memory (tree.h). Used by both helpers. One body per architecture: x86-64 and arm64. */
#ifndef XBENCH_SYS_H
#define XBENCH_SYS_H

#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>

#include "../common/log.h"

/* fchmodat2 (Linux 6.6; one number on every architecture): older headers lack it. */
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 __NR_fchmodat2
#endif
/* Calls on paths newer than the C libraries' headers (one number on every architecture): the
 * xattr calls with a dirfd and flags (Linux 6.13), open_tree with mount attributes (6.15), the
 * file attributes of a path (6.17). */
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif
#ifndef __NR_getxattrat
#define __NR_getxattrat 464
#endif
#ifndef __NR_listxattrat
#define __NR_listxattrat 465
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#ifndef __NR_open_tree_attr
#define __NR_open_tree_attr 467
#endif
#ifndef __NR_file_getattr
#define __NR_file_getattr 468
#endif
#ifndef __NR_file_setattr
#define __NR_file_setattr 469
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif

/* The kernel's mark after the /proc name of a folder or file removed since it was opened. */
#define XB_REMOVED_MARK " (deleted)"
#define XB_REMOVED_MARK_LEN (sizeof XB_REMOVED_MARK - 1)
static inline int xb_marked_removed(const char *name, size_t n) {
  return n > XB_REMOVED_MARK_LEN && !memcmp(name + n - XB_REMOVED_MARK_LEN, XB_REMOVED_MARK, XB_REMOVED_MARK_LEN);
}

/*
 * A path that reaches a file through a process's magic /proc link, which the kernel follows to
 * the file itself, whatever its name: /proc/PID/cwd, root, exe and fd/N (PID a number, self or
 * thread-self), /dev/fd/N and /dev/stdin, stdout and stderr (links to /proc/self/fd/N), alone or
 * followed by '/' and more. Returns the length of the link part (at most XB_MAGIC_MAX), 0 for any
 * other path.
 */
#define XB_MAGIC_MAX 48u
static inline size_t xb_magic_link(const char *path) {
  const char *p;
  if (!strncmp(path, "/dev/", 5)) {
    p = path + 5;
    if (!strncmp(p, "stdin", 5) || !strncmp(p, "stdout", 6) || !strncmp(p, "stderr", 6)) {
      p += p[3] == 'i' ? 5 : 6;
    } else if (!strncmp(p, "fd/", 3) && p[3] >= '0' && p[3] <= '9') {
      p += 3;
      while (*p >= '0' && *p <= '9') p++;
    } else {
      return 0;
    }
  } else if (!strncmp(path, "/proc/", 6)) {
    p = path + 6;
    if (!strncmp(p, "self/", 5))
      p += 5;
    else if (!strncmp(p, "thread-self/", 12))
      p += 12;
    else if (*p >= '1' && *p <= '9') {
      while (*p >= '0' && *p <= '9') p++;
      if (*p++ != '/') return 0;
    } else {
      return 0;
    }
    if (!strncmp(p, "cwd", 3) || !strncmp(p, "exe", 3)) {
      p += 3;
    } else if (!strncmp(p, "root", 4)) {
      p += 4;
    } else if (!strncmp(p, "fd/", 3) && p[3] >= '0' && p[3] <= '9') {
      p += 3;
      while (*p >= '0' && *p <= '9') p++;
    } else {
      return 0;
    }
  } else {
    return 0;
  }
  size_t n = (size_t)(p - path);
  return (*p == 0 || *p == '/') && n <= XB_MAGIC_MAX ? n : 0;
}

/* 1 if a call `op` with `arg` (as recorded) follows a symlink its path ends in: through a magic
 * link alone (no '/' after it) it reaches the file only then. */
static inline int xb_follows_last(int op, uint32_t arg) {
  switch (op) {
  case XB_OP_OPEN:
    return !(arg & O_NOFOLLOW);
  case XB_OP_STAT:
  case XB_OP_SETATTR:
    return !(arg & AT_SYMLINK_NOFOLLOW);
  case XB_OP_ACCESS:
  case XB_OP_EXEC:
  case XB_OP_CHDIR:
  case XB_OP_OPENDIR:
  case XB_OP_TRUNCATE:
    return 1;
  default:
    return 0;
  }
}

/* openat2's RESOLVE_IN_ROOT (linux/openat2.h; musl has none): an absolute path starts at the
 * dirfd, as if it were the root. Named from there: its leading slashes off, "." for the root. */
#define XB_RESOLVE_IN_ROOT 0x10u
static inline const char *xb_in_root_path(const char *path) {
  path += strspn(path, "/");
  return path[0] ? path : ".";
}

#if defined(__aarch64__)
/* svc #0: number in x8, arguments in x0-x5, result in x0; nothing else is clobbered. */
static inline long xb_sys6(long nr, long a, long b, long c, long d, long e, long f) {
  register long x8 __asm__("x8") = nr;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  return x0;
}
static inline long xb_sys(long nr, long a, long b, long c, long d, long e) {
  return xb_sys6(nr, a, b, c, d, e, 0);
}
#elif defined(__x86_64__)
static inline long xb_sys(long nr, long a, long b, long c, long d, long e) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
  return ret;
}
/* Six arguments (mmap): the shim's own calls. */
static inline long xb_sys6(long nr, long a, long b, long c, long d, long e, long f) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}
#else
#error "xbench's native helpers support x86-64 and arm64 only"
#endif

/* The calls the shared POSIX code (../unix/) makes; ../mac/sys.h has the same two. The raw
 * instruction, not syscall(3): in the preload shim, syscall is the shim's own export. */
static inline long xb_raw_open(const char *path, int flags, int mode) {
  return xb_sys(SYS_openat, AT_FDCWD, (long)path, flags, mode, 0);
}
static inline long xb_raw_pread(int fd, void *buf, size_t n) {
  return xb_sys6(SYS_pread64, fd, (long)buf, (long)n, 0, 0, 0);
}

#endif
