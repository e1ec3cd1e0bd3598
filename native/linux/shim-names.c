/*
 * The preload shim's changes to names and metadata (shim.h lists its files): unlink, mkdir,
 * rmdir, rename, link, symlink, mknod, bind, truncate, the chmod, chown, utime and xattr families
 * (by path and through an fd); chdir and chroot; and syscall(2), through which programs make calls
 * glibc has no wrapper for.
 */
#include "shim.h"

DEF_PATHCALL(int, unlink, XB_OP_UNLINK, (const char *p), (p), p, AT_FDCWD, 0, T(SYS_unlinkat, AT_FDCWD, p, 0, 0))
DEF_PATHCALL(int, unlinkat, XB_OP_UNLINK, (int d, const char *p, int f), (d, p, f), p, d, f,
             T(SYS_unlinkat, d, p, f, 0))
DEF_PATHCALL(int, mkdir, XB_OP_MKDIR, (const char *p, mode_t m), (p, m), p, AT_FDCWD, m,
             T(SYS_mkdirat, AT_FDCWD, p, m, 0))
DEF_PATHCALL(int, mkdirat, XB_OP_MKDIR, (int d, const char *p, mode_t m), (d, p, m), p, d, m,
             T(SYS_mkdirat, d, p, m, 0))
DEF_PATHCALL(int, rmdir, XB_OP_RMDIR, (const char *p), (p), p, AT_FDCWD, 0,
             T(SYS_unlinkat, AT_FDCWD, p, AT_REMOVEDIR, 0))
DEF_PATHCALL(int, chdir, XB_OP_CHDIR, (const char *p), (p), p, AT_FDCWD, 0, T(SYS_chdir, p, 0, 0, 0))

/*
 * chroot: a lookup, as chdir; once it succeeded, this process names paths from its new root, which
 * the shim cannot name as the host does (no /proc in a bare root, nor the shim and the log for
 * what it runs). So it records nothing more: in hybrid mode the filter sees the rest and names
 * it from outside; in preload mode the trace says it is incomplete. Through libc, not the
 * trampoline: the filter must see the call to know roots may differ.
 */
EXPORT int chroot(const char *p) {
  struct xb_call slot = record(XB_OP_CHDIR, AT_FDCWD, p, 0);
  if (!RESOLVE(chroot)) return missing_real();
  int r = real_chroot(p);
  done(slot, r < 0, XB_OP_CHDIR, AT_FDCWD, p, 0);
  if (r == 0 && g_log.hdr) {
    if (!g_filtered) xb_log_flag(&g_log, XB_FLAG_CHROOT_UNTRACED);
    __atomic_store_n(&g_chrooted, 1, __ATOMIC_RELAXED);
    g_tramp = NULL;
  }
  return r;
}
DEF_PATHCALL(int, truncate, XB_OP_TRUNCATE, (const char *p, off_t l), (p, l), p, AT_FDCWD, 0,
             T(SYS_truncate, p, l, 0, 0))
DEF_PATHCALL(int, truncate64, XB_OP_TRUNCATE, (const char *p, off64_t l), (p, l), p, AT_FDCWD, 0,
             T(SYS_truncate, p, l, 0, 0))
/* Calls on two names (`from`, `to`): both recorded before the call, results stored after. */
#define DEF_TWO_PATHS(name, params, args, op1, fd1, arg1, op2, fd2, arg2, raw)                                         \
  EXPORT int name params {                                                                                             \
    int named = !unmappable(from) && !unmappable(to); /* else EFAULT before either is looked up */                     \
    struct xb_call a = {NULL, 0}, b = {NULL, 0};                                                                       \
    if (named) {                                                                                                       \
      a = record(op1, fd1, from, arg1);                                                                                \
      b = record(op2, fd2, to, arg2);                                                                                  \
    }                                                                                                                  \
    RAW_OR_REAL(int, r, name, args, raw)                                                                               \
    done(a, r < 0, op1, fd1, from, arg1);                                                                              \
    done(b, r < 0, op2, fd2, to, arg2);                                                                                \
    return r;                                                                                                          \
  }
/* Links: the new name is written; the old one is looked up (a hard link's source, not followed
 * unless AT_SYMLINK_FOLLOW), and a symlink's text is no path at all. */
#define DEF_LINK(name, params, args, fd1, fd2, follow, raw)                                                            \
  DEF_TWO_PATHS(name, params, args, XB_OP_STAT, fd1, (follow) ? 0 : NOFOLLOW, XB_OP_LINK, fd2, 0, raw)
DEF_LINK(link, (const char *from, const char *to), (from, to), AT_FDCWD, AT_FDCWD, 0,
         T(SYS_linkat, AT_FDCWD, from, AT_FDCWD, to))
DEF_LINK(linkat, (int d1, const char *from, int d2, const char *to, int f), (d1, from, d2, to, f), d1, d2,
         f &AT_SYMLINK_FOLLOW, g_tramp(SYS_linkat, d1, (long)from, d2, (long)to, f, 0))
DEF_PATHCALL(int, symlink, XB_OP_LINK, (const char *a, const char *p), (a, p), p, AT_FDCWD, 0,
             T(SYS_symlinkat, a, AT_FDCWD, p, 0))
DEF_PATHCALL(int, symlinkat, XB_OP_LINK, (const char *a, int d, const char *p), (a, d, p), p, d, 0,
             T(SYS_symlinkat, a, d, p, 0))

/* New nodes: device files and FIFOs (glibc's mkfifo calls its own hidden mknodat). */
DEF_PATHCALL(int, mknod, XB_OP_MKNOD, (const char *p, mode_t m, dev_t v), (p, m, v), p, AT_FDCWD, m,
             T(SYS_mknodat, AT_FDCWD, p, m, v))
DEF_PATHCALL(int, mknodat, XB_OP_MKNOD, (int d, const char *p, mode_t m, dev_t v), (d, p, m, v), p, d, m,
             T(SYS_mknodat, d, p, m, v))
DEF_PATHCALL(int, mkfifo, XB_OP_MKNOD, (const char *p, mode_t m), (p, m), p, AT_FDCWD, m | S_IFIFO,
             T(SYS_mknodat, AT_FDCWD, p, m | S_IFIFO, 0))
DEF_PATHCALL(int, mkfifoat, XB_OP_MKNOD, (int d, const char *p, mode_t m), (d, p, m), p, d, m | S_IFIFO,
             T(SYS_mknodat, d, p, m | S_IFIFO, 0))

/* bind of an AF_UNIX socket to a path creates it (abstract names, a leading NUL, are no path).
 * sun_path need not end in a NUL: its copy here does. */
EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len) {
  char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
  const size_t at = offsetof(struct sockaddr_un, sun_path);
  struct xb_call slot = {NULL, 0};
  if (addr && len > at + 1 && addr->sa_family == AF_UNIX) {
    size_t n = len - at < sizeof path - 1 ? len - at : sizeof path - 1;
    memcpy(path, (const char *)addr + at, n);
    path[n] = 0;
    slot = record(XB_OP_MKNOD, AT_FDCWD, path, S_IFSOCK);
  }
  RAW_OR_REAL(int, r, bind, (fd, addr, len), T(SYS_bind, fd, addr, len, 0))
  done(slot, r < 0, XB_OP_MKNOD, AT_FDCWD, path, S_IFSOCK);
  return r;
}

/* Metadata changes. The calls whose work glibc does in several steps (utime's conversions, a
 * flagged fchmodat's fallback) go to libc; in hybrid mode the supervisor also sees its calls. */
static long fchmodat_flags(int d, const char *p, mode_t m, int f) {
  return real_fchmodat(d, p, m, f) == 0 ? 0 : -errno;
}
DEF_PATHCALL(int, chmod, XB_OP_SETATTR, (const char *p, mode_t m), (p, m), p, AT_FDCWD, XB_SETATTR_MODE,
             T(SYS_fchmodat, AT_FDCWD, p, m, 0))
DEF_LIBCALL(int, lchmod, XB_OP_SETATTR, (const char *p, mode_t m), (p, m), p, AT_FDCWD, NOFOLLOW | XB_SETATTR_MODE)
DEF_PATHCALL(int, chown, XB_OP_SETATTR, (const char *p, uid_t u, gid_t g), (p, u, g), p, AT_FDCWD, 0,
             T(SYS_fchownat, AT_FDCWD, p, u, g))
DEF_PATHCALL(int, lchown, XB_OP_SETATTR, (const char *p, uid_t u, gid_t g), (p, u, g), p, AT_FDCWD, NOFOLLOW,
             g_tramp(SYS_fchownat, AT_FDCWD, (long)p, u, g, NOFOLLOW, 0))
DEF_LIBCALL(int, utime, XB_OP_SETATTR, (const char *p, const struct utimbuf *t), (p, t), p, AT_FDCWD, 0)
DEF_LIBCALL(int, utimes, XB_OP_SETATTR, (const char *p, const struct timeval t[2]), (p, t), p, AT_FDCWD, 0)
DEF_LIBCALL(int, lutimes, XB_OP_SETATTR, (const char *p, const struct timeval t[2]), (p, t), p, AT_FDCWD, NOFOLLOW)
DEF_LIBCALL(int, futimesat, XB_OP_SETATTR, (int d, const char *p, const struct timeval t[2]), (d, p, t), p, d, 0)

/*
 * A metadata change through an fd writes the fd's own file, named by its /proc link (an O_PATH fd
 * of a symlink names the link): fchmod, fchown, futimens, fsetxattr, fremovexattr, and the *at
 * calls given "" with AT_EMPTY_PATH, or utimensat a NULL name (futimens).
 */
static struct xb_call record_change(int d, const char *p, int f, uint32_t arg, int null_is_fd) {
  if (p ? !unmappable(p) && !p[0] && (f & AT_EMPTY_PATH) : null_is_fd)
    return (struct xb_call){record_fd_arg(XB_OP_SETATTR, d, arg), 0};
  return record(XB_OP_SETATTR, d, p, arg);
}
/* A wrapper of such a call on `d` and `p` with flags `f` (see DEF_PATHCALL); `null_fd`: a NULL name
 * is the fd's file (else EFAULT, and nothing is recorded). */
#define DEF_CHANGE(name, params, args, d, p, f, arg_expr, null_fd, raw)                                                \
  EXPORT int name params {                                                                                             \
    uint32_t arg = (uint32_t)(arg_expr);                                                                               \
    struct xb_call slot = record_change(d, p, f, arg, null_fd);                                                        \
    RAW_OR_REAL(int, r, name, args, raw)                                                                               \
    done(slot, r < 0, XB_OP_SETATTR, d, p, arg);                                                                       \
    return r;                                                                                                          \
  }
DEF_CHANGE(fchmodat, (int d, const char *p, mode_t m, int f), (d, p, m, f), d, p, f, (f & NOFOLLOW) | XB_SETATTR_MODE,
           0, f ? fchmodat_flags(d, p, m, f) : T(SYS_fchmodat, d, p, m, 0))
DEF_CHANGE(fchownat, (int d, const char *p, uid_t u, gid_t g, int f), (d, p, u, g, f), d, p, f, f &NOFOLLOW, 0,
           g_tramp(SYS_fchownat, d, (long)p, u, g, f, 0))
DEF_CHANGE(utimensat, (int d, const char *p, const struct timespec t[2], int f), (d, p, t, f), d, p, f, f &NOFOLLOW, 1,
           T(SYS_utimensat, d, p, t, f))
DEF_CHANGE(futimens, (int fd, const struct timespec t[2]), (fd, t), fd, NULL, 0, 0, 1, T(SYS_utimensat, fd, NULL, t, 0))
DEF_CHANGE(fchmod, (int fd, mode_t m), (fd, m), fd, NULL, 0, XB_SETATTR_MODE, 1, T(SYS_fchmod, fd, m, 0, 0))
DEF_CHANGE(fchown, (int fd, uid_t u, gid_t g), (fd, u, g), fd, NULL, 0, 0, 1, T(SYS_fchown, fd, u, g, 0))
DEF_CHANGE(fsetxattr, (int fd, const char *n, const void *v, size_t s, int fl), (fd, n, v, s, fl), fd, NULL, 0, 0, 1,
           g_tramp(SYS_fsetxattr, fd, (long)n, (long)v, (long)s, fl, 0))
DEF_CHANGE(fremovexattr, (int fd, const char *n), (fd, n), fd, NULL, 0, 0, 1, T(SYS_fremovexattr, fd, n, 0, 0))
/* glibc's futimes converts its times and makes the call itself: in hybrid mode the filter sees it too. */
EXPORT int futimes(int fd, const struct timeval t[2]) {
  int32_t *slot = record_fd_arg(XB_OP_SETATTR, fd, 0);
  if (!RESOLVE(futimes)) return missing_real();
  int r = real_futimes(fd, t);
  finish(slot, r < 0);
  return r;
}

/* Extended attributes of a path: setting or removing one writes it, getting or listing looks it up. */
DEF_PATHCALL(int, setxattr, XB_OP_SETATTR, (const char *p, const char *n, const void *v, size_t s, int fl),
             (p, n, v, s, fl), p, AT_FDCWD, 0, g_tramp(SYS_setxattr, (long)p, (long)n, (long)v, (long)s, fl, 0))
DEF_PATHCALL(int, lsetxattr, XB_OP_SETATTR, (const char *p, const char *n, const void *v, size_t s, int fl),
             (p, n, v, s, fl), p, AT_FDCWD, NOFOLLOW, g_tramp(SYS_lsetxattr, (long)p, (long)n, (long)v, (long)s, fl, 0))
DEF_PATHCALL(int, removexattr, XB_OP_SETATTR, (const char *p, const char *n), (p, n), p, AT_FDCWD, 0,
             T(SYS_removexattr, p, n, 0, 0))
DEF_PATHCALL(int, lremovexattr, XB_OP_SETATTR, (const char *p, const char *n), (p, n), p, AT_FDCWD, NOFOLLOW,
             T(SYS_lremovexattr, p, n, 0, 0))
DEF_PATHCALL(ssize_t, getxattr, XB_OP_STAT, (const char *p, const char *n, void *v, size_t s), (p, n, v, s), p,
             AT_FDCWD, 0, T(SYS_getxattr, p, n, v, s))
DEF_PATHCALL(ssize_t, lgetxattr, XB_OP_STAT, (const char *p, const char *n, void *v, size_t s), (p, n, v, s), p,
             AT_FDCWD, NOFOLLOW, T(SYS_lgetxattr, p, n, v, s))
DEF_PATHCALL(ssize_t, listxattr, XB_OP_STAT, (const char *p, char *l, size_t s), (p, l, s), p, AT_FDCWD, 0,
             T(SYS_listxattr, p, l, s, 0))
DEF_PATHCALL(ssize_t, llistxattr, XB_OP_STAT, (const char *p, char *l, size_t s), (p, l, s), p, AT_FDCWD, NOFOLLOW,
             T(SYS_llistxattr, p, l, s, 0))

/* Both names of a rename are written. */
#define DEF_RENAME(name, params, args, fd1, fd2, flags, raw)                                                           \
  DEF_TWO_PATHS(name, params, args, XB_OP_RENAME_FROM, fd1, flags, XB_OP_RENAME_TO, fd2, flags, raw)
DEF_RENAME(rename, (const char *from, const char *to), (from, to), AT_FDCWD, AT_FDCWD, 0,
           T(SYS_renameat, AT_FDCWD, from, AT_FDCWD, to))
DEF_RENAME(renameat, (int fd1, const char *from, int fd2, const char *to), (fd1, from, fd2, to), fd1, fd2, 0,
           T(SYS_renameat, fd1, from, fd2, to))
DEF_RENAME(renameat2, (int fd1, const char *from, int fd2, const char *to, unsigned flags), (fd1, from, fd2, to, flags),
           fd1, fd2, flags, g_tramp(SYS_renameat2, fd1, (long)from, fd2, (long)to, flags, 0))

#ifdef SYS_getdents
#define XB_IS_GETDENTS(nr) ((nr) == SYS_getdents)
#else /* arm64 has only getdents64 */
#define XB_IS_GETDENTS(nr) 0
#endif

/* A call on a path that syscall(2) below does not decode: preload mode cannot record it. */
static int undecoded_file_call(long nr) {
  switch (nr) {
  case SYS_faccessat:
  case SYS_faccessat2:
  case SYS_readlinkat:
  case SYS_execve:
  case SYS_execveat:
  case SYS_renameat:
  case SYS_renameat2:
  case SYS_unlinkat:
  case SYS_mkdirat:
  case SYS_chdir:
  case SYS_chroot:
  case SYS_name_to_handle_at:
  case SYS_open_by_handle_at:
  case SYS_truncate:
  case SYS_linkat:
  case SYS_symlinkat:
  case SYS_statfs:
  case SYS_mknodat:
#ifdef SYS_open /* x86-64's pre-*at calls */
  case SYS_creat:
  case SYS_stat:
  case SYS_lstat:
  case SYS_access:
  case SYS_readlink:
  case SYS_rename:
  case SYS_unlink:
  case SYS_mkdir:
  case SYS_rmdir:
  case SYS_link:
  case SYS_symlink:
  case SYS_chmod:
  case SYS_chown:
  case SYS_lchown:
  case SYS_utime:
  case SYS_utimes:
  case SYS_futimesat:
  case SYS_mknod:
#endif
    return 1;
  default:
    return 0;
  }
}

/* Under RESOLVE_IN_ROOT an absolute path is named from the dirfd, as the supervisor names it (sys.h). */
static const char *in_root_path(const char *path, uint64_t resolve) {
  return (resolve & XB_RESOLVE_IN_ROOT) && !unmappable(path) && path[0] == '/' ? xb_in_root_path(path) : path;
}

/* syscall(2) itself: the way programs reach calls glibc has no wrapper for (openat2), or that
 * they make raw (getdents64). */
EXPORT long syscall(long nr, ...) {
  va_list ap;
  va_start(ap, nr);
  long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
  long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
  va_end(ap);
  struct xb_call slot = {NULL, 0};
  int op = 0, at = (int)a;
  const char *path = NULL;
  uint32_t arg = 0;
  if (nr == SYS_openat2) {
    uint64_t how[3] = {0, 0, 0}; /* struct open_how: flags, mode, resolve */
    if (c) memcpy(how, (const void *)c, (size_t)d < sizeof how ? (size_t)d : sizeof how);
    op = XB_OP_OPEN, path = in_root_path((const char *)b, how[2]), arg = (uint32_t)how[0];
  } else if (nr == SYS_getdents64 || XB_IS_GETDENTS(nr)) {
    slot.slot = record_fd(XB_OP_READDIR, (int)a);
  } else if (nr == SYS_statx) { /* libuv's stat (node's fs.statSync) */
    op = XB_OP_STAT, path = (const char *)b, arg = (uint32_t)c;
  } else if (nr == SYS_newfstatat) {
    op = XB_OP_STAT, path = (const char *)b, arg = (uint32_t)d;
  } else if (nr == SYS_openat) {
    op = XB_OP_OPEN, path = (const char *)b, arg = (uint32_t)c;
#ifdef SYS_open
  } else if (nr == SYS_open) { /* jemalloc's reads of /proc and /sys (rustc's allocator, redis's) */
    op = XB_OP_OPEN, at = AT_FDCWD, path = (const char *)a, arg = (uint32_t)b;
#endif
  } else if (nr == SYS_fchmod || nr == SYS_fchown || nr == SYS_fsetxattr || nr == SYS_fremovexattr) {
    slot = record_change((int)a, NULL, 0, nr == SYS_fchmod ? XB_SETATTR_MODE : 0, 1);
  } else if (nr == SYS_utimensat) {
    slot = record_change((int)a, (const char *)b, (int)d, (uint32_t)d & NOFOLLOW, 1);
  } else if (nr == SYS_fchownat || nr == __NR_file_setattr) {
    slot = record_change((int)a, (const char *)b, (int)e, (uint32_t)e & NOFOLLOW, 0);
  } else if (nr == SYS_fchmodat || nr == SYS_fchmodat2) {
    int fl = nr == SYS_fchmodat2 ? (int)d : 0;
    slot = record_change((int)a, (const char *)b, fl, ((uint32_t)fl & NOFOLLOW) | XB_SETATTR_MODE, 0);
  } else if (nr == __NR_setxattrat || nr == __NR_removexattrat) {
    slot = record_change((int)a, (const char *)b, (int)c, (uint32_t)c & NOFOLLOW, 0);
  } else if (nr == SYS_setxattr || nr == SYS_removexattr || nr == SYS_lsetxattr || nr == SYS_lremovexattr) {
    op = XB_OP_SETATTR, at = AT_FDCWD, path = (const char *)a;
    arg = nr == SYS_lsetxattr || nr == SYS_lremovexattr ? NOFOLLOW : 0;
  } else if (nr == SYS_getxattr || nr == SYS_listxattr || nr == SYS_lgetxattr || nr == SYS_llistxattr) {
    op = XB_OP_STAT, at = AT_FDCWD, path = (const char *)a;
    arg = nr == SYS_lgetxattr || nr == SYS_llistxattr ? NOFOLLOW : 0;
  } else if (nr == __NR_getxattrat || nr == __NR_listxattrat || nr == SYS_open_tree || nr == __NR_open_tree_attr) {
    op = XB_OP_STAT, path = (const char *)b, arg = (uint32_t)c & NOFOLLOW;
  } else if (nr == __NR_file_getattr) {
    op = XB_OP_STAT, path = (const char *)b, arg = (uint32_t)e & NOFOLLOW;
  } else if (nr == SYS_pivot_root && !g_filtered) {
    xb_log_flag(&g_log, XB_FLAG_ROOT_UNNAMED); /* the host cannot name what it names from there */
  } else if (nr == SYS_io_uring_setup && !g_filtered) {
    xb_log_flag(&g_log, XB_FLAG_IO_URING_UNTRACED); /* its ring's file operations: no shim sees them */
  } else if (!g_filtered && undecoded_file_call(nr)) {
    xb_log_flag(&g_log, XB_FLAG_RAW_UNTRACED); /* in hybrid mode the filter sees it */
  }
  if (op) slot = record(op, at, path, arg);
  /* Only a call recorded here may bypass the filter; any other goes to it as from libc. */
  long r = set_errno(slot.slot && g_tramp ? g_tramp(nr, a, b, c, d, e, f) : xb_sys6(nr, a, b, c, d, e, f));
  done(slot, r < 0, op, at, path, arg);
  return r;
}

/* glibc's remove: unlink, then rmdir if the name is a folder (both recorded). */
EXPORT int remove(const char *p) {
  if (unlink(p) == 0) return 0;
  return errno == EISDIR ? rmdir(p) : -1;
}
