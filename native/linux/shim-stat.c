/*
 * The preload shim's lookups (shim.h lists its files): the stat family, access, readlink,
 * statfs, and the calls that look a path up without opening it (a handle, a watch).
 */
#include "shim.h"

/* faccessat with flags: the faccessat2 system call, or glibc's emulation on kernels without it. */
static long faccessat2_or_libc(int d, const char *p, int m, int f) {
  long r = T(SYS_faccessat2, d, p, m, f);
  if (r != -ENOSYS) return r;
  return real_faccessat(d, p, m, f) == 0 ? 0 : -errno;
}

DEF_PATHCALL(int, stat, XB_OP_STAT, (const char *p, struct stat *b), (p, b), p, AT_FDCWD, 0,
             T(SYS_newfstatat, AT_FDCWD, p, b, 0))
DEF_PATHCALL(int, lstat, XB_OP_STAT, (const char *p, struct stat *b), (p, b), p, AT_FDCWD, NOFOLLOW,
             T(SYS_newfstatat, AT_FDCWD, p, b, NOFOLLOW))
DEF_PATHCALL(int, stat64, XB_OP_STAT, (const char *p, struct stat64 *b), (p, b), p, AT_FDCWD, 0,
             T(SYS_newfstatat, AT_FDCWD, p, b, 0))
DEF_PATHCALL(int, lstat64, XB_OP_STAT, (const char *p, struct stat64 *b), (p, b), p, AT_FDCWD, NOFOLLOW,
             T(SYS_newfstatat, AT_FDCWD, p, b, NOFOLLOW))
DEF_PATHCALL(int, fstatat, XB_OP_STAT, (int d, const char *p, struct stat *b, int f), (d, p, b, f), p, d, f,
             T(SYS_newfstatat, d, p, b, f))
DEF_PATHCALL(int, fstatat64, XB_OP_STAT, (int d, const char *p, struct stat64 *b, int f), (d, p, b, f), p, d, f,
             T(SYS_newfstatat, d, p, b, f))
DEF_PATHCALL(int, statx, XB_OP_STAT, (int d, const char *p, int f, unsigned m, struct statx *b), (d, p, f, m, b), p, d,
             f, g_tramp(SYS_statx, d, (long)p, f, m, (long)b, 0))
DEF_LIBCALL(int, __xstat, XB_OP_STAT, (int v, const char *p, struct stat *b), (v, p, b), p, AT_FDCWD, 0)
DEF_LIBCALL(int, __lxstat, XB_OP_STAT, (int v, const char *p, struct stat *b), (v, p, b), p, AT_FDCWD, NOFOLLOW)
DEF_LIBCALL(int, __xstat64, XB_OP_STAT, (int v, const char *p, struct stat64 *b), (v, p, b), p, AT_FDCWD, 0)
DEF_LIBCALL(int, __lxstat64, XB_OP_STAT, (int v, const char *p, struct stat64 *b), (v, p, b), p, AT_FDCWD, NOFOLLOW)
DEF_LIBCALL(int, __fxstatat, XB_OP_STAT, (int v, int d, const char *p, struct stat *b, int f), (v, d, p, b, f), p, d, f)
DEF_LIBCALL(int, __fxstatat64, XB_OP_STAT, (int v, int d, const char *p, struct stat64 *b, int f), (v, d, p, b, f), p,
            d, f)
/* A handle is made by looking the path up (stat); followed only with AT_SYMLINK_FOLLOW. */
DEF_PATHCALL(int, name_to_handle_at, XB_OP_STAT, (int d, const char *p, struct file_handle *h, int *m, int f),
             (d, p, h, m, f), p, d, (f & AT_SYMLINK_FOLLOW) ? 0 : NOFOLLOW,
             g_tramp(SYS_name_to_handle_at, d, (long)p, (long)h, (long)m, f, 0))

/* A watch looks its path up (stat), as a stat would; a NULL path marks the fd's own file. */
DEF_PATHCALL(int, inotify_add_watch, XB_OP_STAT, (int fd, const char *p, uint32_t m), (fd, p, m), p, AT_FDCWD, 0,
             T(SYS_inotify_add_watch, fd, p, m, 0))
DEF_PATHCALL(int, fanotify_mark, XB_OP_STAT, (int fd, unsigned fl, uint64_t m, int d, const char *p), (fd, fl, m, d, p),
             p, d, 0, g_tramp(SYS_fanotify_mark, fd, fl, (long)m, d, (long)p, 0))
DEF_PATHCALL(int, statfs, XB_OP_STAT, (const char *p, struct statfs *b), (p, b), p, AT_FDCWD, 0,
             T(SYS_statfs, p, b, 0, 0))
DEF_PATHCALL(int, statfs64, XB_OP_STAT, (const char *p, struct statfs64 *b), (p, b), p, AT_FDCWD, 0,
             T(SYS_statfs, p, b, 0, 0))
DEF_LIBCALL(int, statvfs, XB_OP_STAT, (const char *p, struct statvfs *b), (p, b), p, AT_FDCWD, 0)
DEF_LIBCALL(int, statvfs64, XB_OP_STAT, (const char *p, struct statvfs64 *b), (p, b), p, AT_FDCWD, 0)
DEF_PATHCALL(int, access, XB_OP_ACCESS, (const char *p, int m), (p, m), p, AT_FDCWD, m,
             T(SYS_faccessat, AT_FDCWD, p, m, 0))
/* faccessat with flags is faccessat2, which glibc emulates on kernels without it. */
DEF_PATHCALL(int, faccessat, XB_OP_ACCESS, (int d, const char *p, int m, int f), (d, p, m, f), p, d, m,
             f ? faccessat2_or_libc(d, p, m, f) : T(SYS_faccessat, d, p, m, 0))
DEF_LIBCALL(int, euidaccess, XB_OP_ACCESS, (const char *p, int m), (p, m), p, AT_FDCWD, m)
DEF_LIBCALL(int, eaccess, XB_OP_ACCESS, (const char *p, int m), (p, m), p, AT_FDCWD, m)
DEF_PATHCALL(ssize_t, readlink, XB_OP_READLINK, (const char *p, char *b, size_t n), (p, b, n), p, AT_FDCWD, 0,
             T(SYS_readlinkat, AT_FDCWD, p, b, n))
DEF_PATHCALL(ssize_t, readlinkat, XB_OP_READLINK, (int d, const char *p, char *b, size_t n), (d, p, b, n), p, d, 0,
             T(SYS_readlinkat, d, p, b, n))
