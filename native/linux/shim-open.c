/*
 * The preload shim's open family (shim.h lists its files): open, openat and their fortified and
 * 64-bit names, creat, fopen, the temporary files and folders glibc names itself, and an open by
 * handle. Each open is recorded before the call and its outcome stored after.
 */
#include "shim.h"

/* The open flags a stdio mode stands for. */
static uint32_t fopen_flags(const char *mode) {
  uint32_t f = O_RDONLY;
  if (!mode) return f;
  if (mode[0] == 'w') f = O_WRONLY | O_CREAT | O_TRUNC;
  if (mode[0] == 'a') f = O_WRONLY | O_CREAT | O_APPEND;
  if (strchr(mode, '+')) f = (f & ~(uint32_t)O_ACCMODE) | O_RDWR;
  return f;
}

#define OPEN_MODE(flags, mode)                                                                                         \
  do {                                                                                                                 \
    if ((flags) & (O_CREAT | __O_TMPFILE)) {                                                                           \
      va_list ap;                                                                                                      \
      va_start(ap, flags);                                                                                             \
      mode = va_arg(ap, int);                                                                                          \
      va_end(ap);                                                                                                      \
    }                                                                                                                  \
  } while (0)

/* open and openat: the mode argument exists only with O_CREAT or O_TMPFILE. */
#define DEF_OPEN_VARIADIC(name, params, args, dirfd_expr)                                                              \
  EXPORT int name params {                                                                                             \
    int mode = 0;                                                                                                      \
    OPEN_MODE(flags, mode);                                                                                            \
    struct xb_call slot = record(XB_OP_OPEN, dirfd_expr, path, (uint32_t)flags);                                       \
    RAW_OR_REAL(int, fd, name, args, T(SYS_openat, dirfd_expr, path, flags, mode))                                     \
    done(slot, fd < 0, XB_OP_OPEN, dirfd_expr, path, (uint32_t)flags);                                                 \
    return fd;                                                                                                         \
  }
DEF_OPEN_VARIADIC(open, (const char *path, int flags, ...), (path, flags, mode), AT_FDCWD)
DEF_OPEN_VARIADIC(open64, (const char *path, int flags, ...), (path, flags, mode), AT_FDCWD)
DEF_OPEN_VARIADIC(openat, (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode), dirfd)
DEF_OPEN_VARIADIC(openat64, (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode), dirfd)

/* The fortified (_FORTIFY_SOURCE) entry points and creat. */
#define CREAT_FLAGS (O_WRONLY | O_CREAT | O_TRUNC)
DEF_PATHCALL(int, __open_2, XB_OP_OPEN, (const char *p, int f), (p, f), p, AT_FDCWD, f,
             T(SYS_openat, AT_FDCWD, p, f, 0))
DEF_PATHCALL(int, __open64_2, XB_OP_OPEN, (const char *p, int f), (p, f), p, AT_FDCWD, f,
             T(SYS_openat, AT_FDCWD, p, f, 0))
DEF_PATHCALL(int, __openat_2, XB_OP_OPEN, (int d, const char *p, int f), (d, p, f), p, d, f, T(SYS_openat, d, p, f, 0))
DEF_PATHCALL(int, __openat64_2, XB_OP_OPEN, (int d, const char *p, int f), (d, p, f), p, d, f,
             T(SYS_openat, d, p, f, 0))
DEF_PATHCALL(int, creat, XB_OP_OPEN, (const char *p, mode_t m), (p, m), p, AT_FDCWD, CREAT_FLAGS,
             T(SYS_openat, AT_FDCWD, p, CREAT_FLAGS, m))
DEF_PATHCALL(int, creat64, XB_OP_OPEN, (const char *p, mode_t m), (p, m), p, AT_FDCWD, CREAT_FLAGS,
             T(SYS_openat, AT_FDCWD, p, CREAT_FLAGS, m))

/* stdio opens: NULL is the failure. */
#define DEF_FOPEN(name, params, args)                                                                                  \
  EXPORT FILE *name params {                                                                                           \
    struct xb_call slot = record(XB_OP_OPEN, AT_FDCWD, path, fopen_flags(mode));                                       \
    if (!RESOLVE(name)) {                                                                                              \
      errno = ENOSYS;                                                                                                  \
      return NULL;                                                                                                     \
    }                                                                                                                  \
    FILE *f = real_##name args;                                                                                        \
    done(slot, f == NULL, XB_OP_OPEN, AT_FDCWD, path, fopen_flags(mode));                                              \
    return f;                                                                                                          \
  }
DEF_FOPEN(fopen, (const char *path, const char *mode), (path, mode))
DEF_FOPEN(fopen64, (const char *path, const char *mode), (path, mode))
DEF_FOPEN(freopen, (const char *path, const char *mode, FILE *stream), (path, mode, stream))
DEF_FOPEN(freopen64, (const char *path, const char *mode, FILE *stream), (path, mode, stream))
/* A mount table: glibc opens it with its own fopen, which no shim sees. */
DEF_FOPEN(setmntent, (const char *path, const char *mode), (path, mode))

/* Temporary files: glibc opens them internally; record the name it chose, opened read-write. */
#define TEMP_FLAGS (O_RDWR | O_CREAT | O_EXCL)
#define DEF_MKSTEMP(name, params, args)                                                                                \
  EXPORT int name params {                                                                                             \
    if (!RESOLVE(name)) return missing_real();                                                                         \
    int fd = real_##name args;                                                                                         \
    if (fd >= 0) {                                                                                                     \
      int e = errno;                                                                                                   \
      xb_log_set_result(record_call(XB_OP_OPEN, AT_FDCWD, t, TEMP_FLAGS, 0), 0);                                       \
      errno = e;                                                                                                       \
    }                                                                                                                  \
    return fd;                                                                                                         \
  }
DEF_MKSTEMP(mkstemp, (char *t), (t))
DEF_MKSTEMP(mkstemp64, (char *t), (t))
DEF_MKSTEMP(mkostemp, (char *t, int f), (t, f))
DEF_MKSTEMP(mkostemp64, (char *t, int f), (t, f))
DEF_MKSTEMP(mkstemps, (char *t, int s), (t, s))
DEF_MKSTEMP(mkstemps64, (char *t, int s), (t, s))
DEF_MKSTEMP(mkostemps, (char *t, int s, int f), (t, s, f))
DEF_MKSTEMP(mkostemps64, (char *t, int s, int f), (t, s, f))

/*
 * tmpfile: glibc makes the file with its hidden open, an O_TMPFILE open of its temp folder
 * (P_tmpdir: $TMPDIR plays no part) or, on a file system without O_TMPFILE, a file it names
 * there and removes at once. Both are named by the stream's fd: "#INODE (deleted)" in the folder
 * for the first (recorded as that open, which writes the folder), the name the file had for the
 * second (created, then removed). In hybrid mode the filter sees glibc's calls themselves.
 */
static void record_tmpfile(FILE *f) {
  if (g_filtered || !may_record()) return;
  int e = errno;
  char link[40];
  fmt_fd_link(link, fileno(f));
  struct xb_thread *t = &t_self;
  if (t->busy) return;
  t->busy = 1;
  char *name = base_get(current_pid());
  long n = name ? read_removed(link, name) : -ENOMEM;
  char *slash = n > 0 ? strrchr(name, '/') : NULL;
  if (slash && slash[1] == '#') {
    slash[slash == name] = 0; /* the folder ("/" for a file in the root) */
    xb_log_set_result(record_held(t, XB_OP_OPEN, AT_FDCWD, name, O_RDWR | O_TMPFILE | O_EXCL), 0);
  } else if (slash) {
    xb_log_set_result(record_held(t, XB_OP_OPEN, AT_FDCWD, name, TEMP_FLAGS), 0);
    xb_log_set_result(record_held(t, XB_OP_UNLINK, AT_FDCWD, name, 0), 0);
  } else if (n == -ENAMETOOLONG) {
    xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED); /* see record_held */
  }
  base_put(name);
  t->busy = 0;
  errno = e;
}
#define DEF_TMPFILE(name)                                                                                              \
  EXPORT FILE *name(void) {                                                                                            \
    if (!RESOLVE(name)) {                                                                                              \
      errno = ENOSYS;                                                                                                  \
      return NULL;                                                                                                     \
    }                                                                                                                  \
    FILE *f = real_##name();                                                                                           \
    if (f) record_tmpfile(f);                                                                                          \
    return f;                                                                                                          \
  }
DEF_TMPFILE(tmpfile)
DEF_TMPFILE(tmpfile64)

/* A temporary folder: glibc makes it internally; record the name it chose, created. */
EXPORT char *mkdtemp(char *t) {
  if (!RESOLVE(mkdtemp)) {
    errno = ENOSYS;
    return NULL;
  }
  char *r = real_mkdtemp(t);
  if (r) {
    int e = errno;
    xb_log_set_result(record_call(XB_OP_MKDIR, AT_FDCWD, r, 0700, 0), 0);
    errno = e;
  }
  return r;
}

/* A file opened by handle names no path: it is named by its fd once open (so only a success is
 * recorded: a stale handle names nothing). */
EXPORT int open_by_handle_at(int mfd, struct file_handle *h, int flags) {
  RAW_OR_REAL(int, fd, open_by_handle_at, (mfd, h, flags), T(SYS_open_by_handle_at, mfd, h, flags, 0))
  if (fd >= 0) {
    int e = errno;
    xb_log_set_result(record_fd_arg(XB_OP_OPEN, fd, (uint32_t)flags), 0);
    errno = e;
  }
  return fd;
}
