/*
 * Preload shim (glibc shared object, injected with LD_PRELOAD by xbench-supervisor).
 *
 * Interposes libc's public file entry points, appends one record per call to the shared log
 * (log.h) BEFORE calling the real function, and stores the result in the record afterwards
 * (so probes of missing files and calls that crash are both seen). The record path is
 * async-signal-safe: raw syscalls, no malloc, no stdio, no locks, errno preserved, and a
 * thread-local reentrancy guard. Relative paths carry their base (the cwd, or the dirfd's
 * directory) so the parent canonicalizes; nothing is canonicalized here.
 *
 * Exec family and posix_spawn re-insert the tracing environment when a program scrubbed it
 * (env -i). In auto mode an exec of a static program (no PT_INTERP, which preload cannot
 * see into, and Go programs, which make raw syscalls) is routed through `xbench-supervisor --attach`, which installs a seccomp filter
 * and hands the listener to the supervisor before exec'ing the real program.
 */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include "progkind.h"
#include "log.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default"), hot))

extern char **environ;

static int g_auto;           /* route static execs through the supervisor's --attach */
/* Strings kept from start-up, packed into one arena: they then share a page or two instead of
 * one PATH_MAX array each (every page first written costs a fault, ~12 us on slow VMs). */
#define XB_KEPT_MAX (PATH_MAX + 32)
static char g_kept[8 * XB_KEPT_MAX];
static size_t g_kept_used;
static const char *g_self = "";        /* this shim's path */
static const char *g_sup = "";         /* supervisor path */
/* "NAME=value" strings re-inserted at exec ("" when absent). */
static const char *g_env_preload = "";
static const char *g_env_log = "";
static const char *g_env_mode = "";
static const char *g_env_sup = "";
static const char *g_env_sock = "";
static const char *g_env_base = "";
static __thread int t_busy __attribute__((tls_model("initial-exec")));
static __thread struct xb_cursor t_cur __attribute__((tls_model("initial-exec")));

/* ---------------------------------------------------------------- real functions */

#define REAL(name) static __typeof__(name) *real_##name
#define RESOLVE(name) (real_##name ? real_##name : (real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)))

int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);
int __xstat(int, const char *, struct stat *);
int __lxstat(int, const char *, struct stat *);
int __fxstatat(int, int, const char *, struct stat *, int);
int __xstat64(int, const char *, struct stat64 *);
int __lxstat64(int, const char *, struct stat64 *);
int __fxstatat64(int, int, const char *, struct stat64 *, int);

/* Every libc entry point the shim interposes, listed once: declared here, resolved at load. */
#define XB_INTERPOSED(X)                                                                       \
  X(open) X(open64) X(openat) X(openat64) X(creat) X(creat64)                                  \
  X(__open_2) X(__open64_2) X(__openat_2) X(__openat64_2)                                      \
  X(fopen) X(fopen64) X(freopen) X(freopen64)                                                  \
  X(stat) X(lstat) X(stat64) X(lstat64) X(fstatat) X(fstatat64) X(statx)                       \
  X(__xstat) X(__lxstat) X(__fxstatat) X(__xstat64) X(__lxstat64) X(__fxstatat64)              \
  X(access) X(faccessat) X(euidaccess) X(eaccess)                                              \
  X(readlink) X(readlinkat) X(opendir) X(scandir) X(scandir64)                                 \
  X(execve) X(execvpe) X(posix_spawn) X(posix_spawnp)                                          \
  X(rename) X(renameat) X(renameat2) X(unlink) X(unlinkat)                                     \
  X(mkdir) X(mkdirat) X(rmdir) X(chdir) X(truncate)
#define XB_DECLARE_REAL(name) REAL(name);
XB_INTERPOSED(XB_DECLARE_REAL)

/* Hot state, defined after the real-function pointers so they share a page: on a PTI kernel
 * without PCID each page touched after a syscall costs a TLB miss. */
static struct xb_log g_log;
static pid_t g_pid;

static int missing_real(void) {
  errno = ENOSYS;
  return -1;
}

/* ---------------------------------------------------------------- recording */

static size_t fmt_fd_link(char *out, int fd) {
  static const char prefix[] = "/proc/self/fd/";
  memcpy(out, prefix, sizeof prefix - 1);
  char digits[12];
  size_t n = 0;
  unsigned v = (unsigned)fd;
  do digits[n++] = (char)('0' + v % 10); while ((v /= 10) && n < sizeof digits);
  size_t len = sizeof prefix - 1;
  while (n) out[len++] = digits[--n];
  out[len] = 0;
  return len;
}

/*
 * Repeats: a thread that opens or stats the same absolute path again (same kind of access)
 * after a successful first time adds nothing to the deduplicated output, so it skips the
 * record: hashing the path is cheaper than writing a record, which on VMs costs a fresh page
 * every ~50 records. If the repeat then fails, done() records it after the fact (the first
 * record already told the world the path was touched).
 */
#define XB_SEEN 64
struct xb_seen {
  uint64_t hash;
  int32_t *slot; /* the first record's result */
  int ok;        /* that call succeeded (kept here: the log page would be one more TLB miss) */
};
static __thread struct xb_seen t_seen[XB_SEEN] __attribute__((tls_model("initial-exec")));
static __thread struct {
  const char *path; /* non-NULL while a skipped call is in flight */
  int op, dirfd;
  uint32_t arg;
} t_skip __attribute__((tls_model("initial-exec")));
static __thread struct xb_seen *t_pending __attribute__((tls_model("initial-exec"))); /* entry of the call in flight */
static int32_t g_skipped; /* the slot record() returns for a skipped repeat */

static inline int cacheable(int op) {
  return op == XB_OP_OPEN || op == XB_OP_STAT || op == XB_OP_ACCESS || op == XB_OP_READLINK || op == XB_OP_OPENDIR;
}

static inline uint64_t path_hash(const char *path, size_t n, int op, uint32_t arg) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) { /* a word at a time: multiply-xorshift */
    uint64_t w;
    memcpy(&w, path + i, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  if (i < n) {
    uint64_t w = 0;
    memcpy(&w, path + i, n - i);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  uint32_t kind = op == XB_OP_OPEN ? arg & (O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | O_DIRECTORY | O_PATH) : 0;
  return (h ^ ((uint64_t)op << 56) ^ ((uint64_t)kind * 0x9e3779b97f4a7c15ull)) ^ n;
}

/* Appends a record for `path` (relative to dirfd) and returns its result slot, NULL if not
 * recorded, or &g_skipped for a repeat (see above; only when `may_skip`). */
__attribute__((hot, noinline)) static int32_t *record_call(int op, int dirfd, const char *path, uint32_t arg, int may_skip) {
  if (!g_log.hdr || !path || !path[0] || t_busy) return NULL;
  t_busy = 1;
  const size_t max = XB_REC_MAX - PATH_MAX - sizeof(struct xb_rec);
  size_t n = strnlen(path, max);
  struct xb_seen *seen = NULL;
  uint64_t h = 0;
  if (path[0] == '/' && cacheable(op)) {
    h = path_hash(path, n, op, arg);
    seen = &t_seen[h % XB_SEEN];
    if (may_skip && seen->hash == h && seen->ok && !t_skip.path) {
      t_skip.path = path;
      t_skip.op = op;
      t_skip.dirfd = dirfd;
      t_skip.arg = arg;
      t_busy = 0;
      return &g_skipped;
    }
  }
  struct xb_rec r = {.op = (uint8_t)op, .src = XB_SRC_PRELOAD, .pid = (uint32_t)g_pid, .arg = arg,
                     .result = XB_RESULT_PENDING, .path_len = (uint32_t)n, .tsc = xb_now()};
  if (n == max) r.rflags |= XB_RF_TRUNCATED;
  char base[PATH_MAX];
  if (path[0] != '/') {
    int saved = errno;
    long k;
    if (dirfd == AT_FDCWD) {
      k = syscall(SYS_getcwd, base, sizeof base);
      if (k > 0) r.base_len = (uint16_t)(k - 1); /* the kernel counts the NUL */
    } else {
      char link[40];
      fmt_fd_link(link, dirfd);
      k = syscall(SYS_readlinkat, AT_FDCWD, link, base, sizeof base);
      if (k > 0 && base[0] == '/') r.base_len = (uint16_t)k;
      r.rflags |= XB_RF_BASE_DIRFD;
    }
    errno = saved;
  }
  int32_t *slot = xb_log_append_local(&g_log, &t_cur, &r, base, path);
  if (seen) {
    seen->hash = h;
    seen->slot = slot;
    seen->ok = 0;
    t_pending = seen;
  }
  t_busy = 0;
  return slot;
}

static inline int32_t *record(int op, int dirfd, const char *path, uint32_t arg) {
  return record_call(op, dirfd, path, arg, 1);
}

/* Stores the outcome of the real call; errno is left untouched. */
static inline void done(int32_t *slot, int failed) {
  if (slot == &g_skipped) {
    if (failed) {
      int e = errno;
      xb_log_set_result(record_call(t_skip.op, t_skip.dirfd, t_skip.path, t_skip.arg, 0), e);
      errno = e;
    }
    t_skip.path = NULL;
    return;
  }
  if (!slot) return;
  xb_log_set_result(slot, failed ? errno : 0);
  if (t_pending && t_pending->slot == slot) t_pending->ok = !failed;
}

static uint32_t fopen_flags(const char *mode) {
  uint32_t f = O_RDONLY;
  if (!mode) return f;
  if (mode[0] == 'w') f = O_WRONLY | O_CREAT | O_TRUNC;
  if (mode[0] == 'a') f = O_WRONLY | O_CREAT | O_APPEND;
  if (strchr(mode, '+')) f = (f & ~(uint32_t)O_ACCMODE) | O_RDWR;
  return f;
}

/* A wrapper that records `path_expr` (relative to `dirfd_expr`) then calls the real function;
 * a negative return is a failure with errno set. */
#define DEF_PATHCALL(ret, name, op, params, args, path_expr, dirfd_expr, arg_expr) \
  EXPORT ret name params {                                                       \
    int32_t *slot = record(op, dirfd_expr, path_expr, (uint32_t)(arg_expr));     \
    if (!RESOLVE(name)) return missing_real();                                   \
    ret r = real_##name args;                                                    \
    done(slot, r < 0);                                                           \
    return r;                                                                    \
  }

/* ---------------------------------------------------------------- open family */

#define OPEN_MODE(flags, mode)                                  \
  do {                                                          \
    if ((flags) & (O_CREAT | __O_TMPFILE)) {                    \
      va_list ap;                                               \
      va_start(ap, flags);                                      \
      mode = va_arg(ap, int);                                   \
      va_end(ap);                                               \
    }                                                           \
  } while (0)

/* open and openat: the mode argument exists only with O_CREAT or O_TMPFILE. */
#define DEF_OPEN_VARIADIC(name, params, args, dirfd_expr)                       \
  EXPORT int name params {                                                       \
    int mode = 0;                                                                \
    OPEN_MODE(flags, mode);                                                      \
    int32_t *slot = record(XB_OP_OPEN, dirfd_expr, path, (uint32_t)flags);       \
    if (!RESOLVE(name)) return missing_real();                                   \
    int fd = real_##name args;                                                   \
    done(slot, fd < 0);                                                          \
    return fd;                                                                   \
  }
DEF_OPEN_VARIADIC(open, (const char *path, int flags, ...), (path, flags, mode), AT_FDCWD)
DEF_OPEN_VARIADIC(open64, (const char *path, int flags, ...), (path, flags, mode), AT_FDCWD)
DEF_OPEN_VARIADIC(openat, (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode), dirfd)
DEF_OPEN_VARIADIC(openat64, (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode), dirfd)

/* The fortified (_FORTIFY_SOURCE) entry points and creat. */
DEF_PATHCALL(int, __open_2, XB_OP_OPEN, (const char *p, int f), (p, f), p, AT_FDCWD, f)
DEF_PATHCALL(int, __open64_2, XB_OP_OPEN, (const char *p, int f), (p, f), p, AT_FDCWD, f)
DEF_PATHCALL(int, __openat_2, XB_OP_OPEN, (int d, const char *p, int f), (d, p, f), p, d, f)
DEF_PATHCALL(int, __openat64_2, XB_OP_OPEN, (int d, const char *p, int f), (d, p, f), p, d, f)
DEF_PATHCALL(int, creat, XB_OP_OPEN, (const char *p, mode_t m), (p, m), p, AT_FDCWD, O_WRONLY | O_CREAT | O_TRUNC)
DEF_PATHCALL(int, creat64, XB_OP_OPEN, (const char *p, mode_t m), (p, m), p, AT_FDCWD, O_WRONLY | O_CREAT | O_TRUNC)

/* stdio opens: NULL is the failure. */
#define DEF_FOPEN(name, params, args)                                          \
  EXPORT FILE *name params {                                                   \
    int32_t *slot = record(XB_OP_OPEN, AT_FDCWD, path, fopen_flags(mode));     \
    if (!RESOLVE(name)) {                                                      \
      errno = ENOSYS;                                                          \
      return NULL;                                                             \
    }                                                                          \
    FILE *f = real_##name args;                                                \
    done(slot, f == NULL);                                                     \
    return f;                                                                  \
  }
DEF_FOPEN(fopen, (const char *path, const char *mode), (path, mode))
DEF_FOPEN(fopen64, (const char *path, const char *mode), (path, mode))
DEF_FOPEN(freopen, (const char *path, const char *mode, FILE *stream), (path, mode, stream))
DEF_FOPEN(freopen64, (const char *path, const char *mode, FILE *stream), (path, mode, stream))

/* ---------------------------------------------------------------- stat, access, readlink */

DEF_PATHCALL(int, stat, XB_OP_STAT, (const char *p, struct stat *b), (p, b), p, AT_FDCWD, 0)
DEF_PATHCALL(int, lstat, XB_OP_STAT, (const char *p, struct stat *b), (p, b), p, AT_FDCWD, AT_SYMLINK_NOFOLLOW)
DEF_PATHCALL(int, stat64, XB_OP_STAT, (const char *p, struct stat64 *b), (p, b), p, AT_FDCWD, 0)
DEF_PATHCALL(int, lstat64, XB_OP_STAT, (const char *p, struct stat64 *b), (p, b), p, AT_FDCWD, AT_SYMLINK_NOFOLLOW)
DEF_PATHCALL(int, fstatat, XB_OP_STAT, (int d, const char *p, struct stat *b, int f), (d, p, b, f), p, d, f)
DEF_PATHCALL(int, fstatat64, XB_OP_STAT, (int d, const char *p, struct stat64 *b, int f), (d, p, b, f), p, d, f)
DEF_PATHCALL(int, statx, XB_OP_STAT, (int d, const char *p, int f, unsigned m, struct statx *b), (d, p, f, m, b), p, d, f)
DEF_PATHCALL(int, __xstat, XB_OP_STAT, (int v, const char *p, struct stat *b), (v, p, b), p, AT_FDCWD, 0)
DEF_PATHCALL(int, __lxstat, XB_OP_STAT, (int v, const char *p, struct stat *b), (v, p, b), p, AT_FDCWD, AT_SYMLINK_NOFOLLOW)
DEF_PATHCALL(int, __xstat64, XB_OP_STAT, (int v, const char *p, struct stat64 *b), (v, p, b), p, AT_FDCWD, 0)
DEF_PATHCALL(int, __lxstat64, XB_OP_STAT, (int v, const char *p, struct stat64 *b), (v, p, b), p, AT_FDCWD, AT_SYMLINK_NOFOLLOW)
DEF_PATHCALL(int, __fxstatat, XB_OP_STAT, (int v, int d, const char *p, struct stat *b, int f), (v, d, p, b, f), p, d, f)
DEF_PATHCALL(int, __fxstatat64, XB_OP_STAT, (int v, int d, const char *p, struct stat64 *b, int f), (v, d, p, b, f), p, d, f)
DEF_PATHCALL(int, access, XB_OP_ACCESS, (const char *p, int m), (p, m), p, AT_FDCWD, m)
DEF_PATHCALL(int, faccessat, XB_OP_ACCESS, (int d, const char *p, int m, int f), (d, p, m, f), p, d, m)
DEF_PATHCALL(int, euidaccess, XB_OP_ACCESS, (const char *p, int m), (p, m), p, AT_FDCWD, m)
DEF_PATHCALL(int, eaccess, XB_OP_ACCESS, (const char *p, int m), (p, m), p, AT_FDCWD, m)
DEF_PATHCALL(ssize_t, readlink, XB_OP_READLINK, (const char *p, char *b, size_t n), (p, b, n), p, AT_FDCWD, 0)
DEF_PATHCALL(ssize_t, readlinkat, XB_OP_READLINK, (int d, const char *p, char *b, size_t n), (d, p, b, n), p, d, 0)
DEF_PATHCALL(int, scandir, XB_OP_OPENDIR,
             (const char *p, struct dirent ***l, int (*s)(const struct dirent *), int (*c)(const struct dirent **, const struct dirent **)),
             (p, l, s, c), p, AT_FDCWD, 0)
DEF_PATHCALL(int, scandir64, XB_OP_OPENDIR,
             (const char *p, struct dirent64 ***l, int (*s)(const struct dirent64 *), int (*c)(const struct dirent64 **, const struct dirent64 **)),
             (p, l, s, c), p, AT_FDCWD, 0)

/* ---------------------------------------------------------------- directories, namespace changes */

EXPORT DIR *opendir(const char *path) {
  int32_t *slot = record(XB_OP_OPENDIR, AT_FDCWD, path, 0);
  if (!RESOLVE(opendir)) {
    errno = ENOSYS;
    return NULL;
  }
  DIR *d = real_opendir(path);
  done(slot, d == NULL);
  return d;
}

DEF_PATHCALL(int, unlink, XB_OP_UNLINK, (const char *p), (p), p, AT_FDCWD, 0)
DEF_PATHCALL(int, unlinkat, XB_OP_UNLINK, (int d, const char *p, int f), (d, p, f), p, d, f)
DEF_PATHCALL(int, mkdir, XB_OP_MKDIR, (const char *p, mode_t m), (p, m), p, AT_FDCWD, m)
DEF_PATHCALL(int, mkdirat, XB_OP_MKDIR, (int d, const char *p, mode_t m), (d, p, m), p, d, m)
DEF_PATHCALL(int, rmdir, XB_OP_RMDIR, (const char *p), (p), p, AT_FDCWD, 0)
DEF_PATHCALL(int, chdir, XB_OP_CHDIR, (const char *p), (p), p, AT_FDCWD, 0)
DEF_PATHCALL(int, truncate, XB_OP_TRUNCATE, (const char *p, off_t l), (p, l), p, AT_FDCWD, 0)

EXPORT int rename(const char *from, const char *to) {
  int32_t *a = record(XB_OP_RENAME_FROM, AT_FDCWD, from, 0);
  int32_t *b = record(XB_OP_RENAME_TO, AT_FDCWD, to, 0);
  if (!RESOLVE(rename)) return missing_real();
  int r = real_rename(from, to);
  done(a, r < 0);
  done(b, r < 0);
  return r;
}

EXPORT int renameat(int fd1, const char *from, int fd2, const char *to) {
  int32_t *a = record(XB_OP_RENAME_FROM, fd1, from, 0);
  int32_t *b = record(XB_OP_RENAME_TO, fd2, to, 0);
  if (!RESOLVE(renameat)) return missing_real();
  int r = real_renameat(fd1, from, fd2, to);
  done(a, r < 0);
  done(b, r < 0);
  return r;
}

EXPORT int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags) {
  int32_t *a = record(XB_OP_RENAME_FROM, fd1, from, flags);
  int32_t *b = record(XB_OP_RENAME_TO, fd2, to, flags);
  if (!RESOLVE(renameat2)) return missing_real();
  int r = real_renameat2(fd1, from, fd2, to, flags);
  done(a, r < 0);
  done(b, r < 0);
  return r;
}

/* ---------------------------------------------------------------- exec family */

static int has_prefix(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static size_t env_count(char *const envp[]) {
  size_t n = 0;
  if (envp)
    while (envp[n]) n++;
  return n;
}

/*
 * Copies envp into out (room for count + 6) with the tracing variables re-inserted.
 * `preload_buf` (PATH_MAX*2) holds a merged LD_PRELOAD when the program set its own.
 */
static char **traced_env(char *const envp[], char **out, char *preload_buf, size_t preload_cap) {
  size_t k = 0;
  int have_preload = 0, have_log = 0, have_mode = 0, have_sup = 0, have_sock = 0, have_base = 0;
  for (size_t i = 0; envp && envp[i]; i++) {
    char *e = envp[i];
    if (has_prefix(e, "LD_PRELOAD=")) {
      have_preload = 1;
      if (!strstr(e, g_self)) {
        int w = snprintf(preload_buf, preload_cap, "LD_PRELOAD=%s:%s", g_self, e + 11);
        if (w > 0 && (size_t)w < preload_cap) e = preload_buf;
      }
    } else if (has_prefix(e, XB_ENV_LOG "=")) {
      have_log = 1;
    } else if (has_prefix(e, XB_ENV_MODE "=")) {
      have_mode = 1;
    } else if (has_prefix(e, XB_ENV_SUPERVISOR "=")) {
      have_sup = 1;
    } else if (has_prefix(e, XB_ENV_SOCK "=")) {
      have_sock = 1;
    } else if (has_prefix(e, "XBENCH_TRACE_BASE_FILTERS=")) {
      have_base = 1;
    }
    out[k++] = e;
  }
  if (!have_preload) out[k++] = (char *)g_env_preload;
  if (!have_log) out[k++] = (char *)g_env_log;
  if (!have_mode && g_env_mode[0]) out[k++] = (char *)g_env_mode;
  if (!have_sup && g_env_sup[0]) out[k++] = (char *)g_env_sup;
  if (!have_sock && g_env_sock[0]) out[k++] = (char *)g_env_sock;
  if (!have_base && g_env_base[0]) out[k++] = (char *)g_env_base;
  out[k] = NULL;
  return out;
}

/* argv for `xbench-supervisor --attach -- PATH ARGV...` into out (room for argc + 5). */
static char **attach_argv(const char *path, char *const argv[], char **out) {
  size_t k = 0;
  out[k++] = (char *)"xbench-supervisor";
  out[k++] = (char *)"--attach";
  out[k++] = (char *)"--";
  out[k++] = (char *)path;
  for (size_t i = 0; argv && argv[i]; i++) out[k++] = argv[i];
  if (!argv || !argv[0]) out[k++] = (char *)path;
  out[k] = NULL;
  return out;
}

/* Decides how `path` runs: 0 plainly, 1 through the supervisor (static program, auto mode). */
static int route_static(const char *path) {
  if (!g_log.hdr || t_busy) return 0;
  if (!xb_needs_seccomp(path)) return 0;
  if (g_auto && g_sup[0]) return 1;
  xb_log_flag(&g_log, XB_FLAG_STATIC_UNTRACED);
  return 0;
}

/* Finds `file` on PATH (as execvp would) into out; 1 if found. */
static int search_path(const char *file, char *out, size_t cap) {
  const char *p = getenv("PATH");
  if (!p) p = "/bin:/usr/bin";
  size_t flen = strlen(file);
  while (1) {
    const char *end = strchrnul(p, ':');
    size_t dlen = (size_t)(end - p);
    if (dlen + flen + 2 <= cap) {
      if (dlen) {
        memcpy(out, p, dlen);
        out[dlen] = '/';
        memcpy(out + dlen + 1, file, flen + 1);
      } else {
        memcpy(out, file, flen + 1);
      }
      if (syscall(SYS_faccessat, AT_FDCWD, out, X_OK) == 0) {
        struct stat st;
        if (syscall(SYS_newfstatat, AT_FDCWD, out, &st, 0) == 0 && S_ISREG(st.st_mode)) return 1;
      }
    }
    if (!*end) return 0;
    p = end + 1;
  }
}

/*
 * Runs `file` traced: records the exec, re-inserts the tracing environment and sends a static
 * or Go program through the supervisor. `resolved` is its path (NULL if not found on PATH);
 * `search` says the real call does the PATH search itself (execvpe).
 */
static int exec_traced(const char *file, const char *resolved, int search, char *const argv[], char *const envp[]) {
  int32_t *slot = record(XB_OP_EXEC, AT_FDCWD, resolved ? resolved : file, 0);
  size_t n = env_count(envp), argc = env_count(argv);
  char *env[n + 9];
  char pre[2 * PATH_MAX + 32];
  traced_env(envp, env, pre, sizeof pre);
  int r;
  if (resolved && route_static(resolved)) {
    char *av[argc + 6];
    r = real_execve(g_sup, attach_argv(resolved, argv, av), env);
  } else {
    r = search ? real_execvpe(file, argv, env) : real_execve(file, argv, env);
  }
  done(slot, 1);
  return r;
}

static int do_execve(const char *path, char *const argv[], char *const envp[]) {
  if (!RESOLVE(execve)) return missing_real();
  if (!g_log.hdr) return real_execve(path, argv, envp);
  return exec_traced(path, path, 0, argv, envp);
}

static int do_execvpe(const char *file, char *const argv[], char *const envp[]) {
  if (!file || !*file || strchr(file, '/')) return do_execve(file, argv, envp);
  if (!RESOLVE(execvpe) || !RESOLVE(execve)) return missing_real();
  if (!g_log.hdr) return real_execvpe(file, argv, envp);
  char found[PATH_MAX];
  return exec_traced(file, search_path(file, found, sizeof found) ? found : NULL, 1, argv, envp);
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[]) { return do_execve(path, argv, envp); }
EXPORT int execv(const char *path, char *const argv[]) { return do_execve(path, argv, environ); }
EXPORT int execvp(const char *file, char *const argv[]) { return do_execvpe(file, argv, environ); }
EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) { return do_execvpe(file, argv, envp); }

#define COLLECT_ARGS(first, argv)            \
  size_t argc_ = 1;                          \
  va_list ap_;                               \
  va_start(ap_, first);                      \
  while (va_arg(ap_, char *)) argc_++;       \
  va_end(ap_);                               \
  char *argv[argc_ + 1];                     \
  argv[0] = (char *)(first);                 \
  va_start(ap_, first);                      \
  for (size_t i_ = 1; i_ <= argc_; i_++) argv[i_] = va_arg(ap_, char *);

EXPORT int execl(const char *path, const char *arg, ...) {
  COLLECT_ARGS(arg, av)
  va_end(ap_);
  return do_execve(path, av, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...) {
  COLLECT_ARGS(arg, av)
  va_end(ap_);
  return do_execvpe(file, av, environ);
}

EXPORT int execle(const char *path, const char *arg, ...) {
  COLLECT_ARGS(arg, av)
  char *const *envp = va_arg(ap_, char *const *);
  va_end(ap_);
  return do_execve(path, av, envp);
}

static int do_spawn(pid_t *pid, const char *path, int search, const posix_spawn_file_actions_t *fa,
                    const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  if (!RESOLVE(posix_spawn) || !RESOLVE(posix_spawnp)) return ENOSYS;
  if (!g_log.hdr) return (search ? real_posix_spawnp : real_posix_spawn)(pid, path, fa, attr, argv, envp);
  char found[PATH_MAX];
  const char *target = path;
  if (search && path && !strchr(path, '/') && search_path(path, found, sizeof found)) target = found;
  int32_t *slot = record(XB_OP_EXEC, AT_FDCWD, target, 0);
  size_t n = env_count(envp), argc = env_count(argv);
  char *env[n + 9];
  char pre[2 * PATH_MAX + 32];
  traced_env(envp, env, pre, sizeof pre);
  int r;
  if (target && (!search || target == found) && route_static(target)) {
    char *av[argc + 6];
    r = real_posix_spawn(pid, g_sup, fa, attr, attach_argv(target, argv, av), env);
  } else {
    r = (search ? real_posix_spawnp : real_posix_spawn)(pid, path, fa, attr, argv, env);
  }
  if (slot) xb_log_set_result(slot, r);
  return r;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                       char *const argv[], char *const envp[]) {
  return do_spawn(pid, path, 0, fa, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                        char *const argv[], char *const envp[]) {
  return do_spawn(pid, file, 1, fa, attr, argv, envp);
}

/* ---------------------------------------------------------------- loaded objects */

/* The dynamic loader opens libraries with internal calls no shim can interpose: record the
 * objects it mapped instead (at start, and after each dlopen that loaded something new). */
static unsigned long long g_seen_adds; /* dlpi_adds when objects were last recorded */

static int record_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  if (info->dlpi_name && info->dlpi_name[0] == '/')
    xb_log_set_result(record_call(XB_OP_OPEN, AT_FDCWD, info->dlpi_name, O_RDONLY, 0), 0);
  return 0;
}

static void record_objects(void) { dl_iterate_phdr(record_object, NULL); }

REAL(dlopen);

static int note_adds(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  *(unsigned long long *)data = info->dlpi_adds;
  return 1;
}

EXPORT void *dlopen(const char *file, int mode) {
  int32_t *slot = file && strchr(file, '/') ? record_call(XB_OP_OPEN, AT_FDCWD, file, O_RDONLY, 0) : NULL;
  if (!RESOLVE(dlopen)) return NULL;
  void *h = real_dlopen(file, mode);
  if (slot) xb_log_set_result(slot, h ? 0 : ENOENT);
  if (h && g_log.hdr && !t_busy) {
    unsigned long long adds = 0;
    dl_iterate_phdr(note_adds, &adds);
    if (adds != g_seen_adds) {
      record_objects();
      g_seen_adds = adds;
    }
  }
  return h;
}

/* ---------------------------------------------------------------- setup */

static void after_fork(void) {
  g_pid = (pid_t)syscall(SYS_getpid);
  t_cur.pos = t_cur.end = 0; /* the parent keeps writing its chunk */
  memset(t_seen, 0, sizeof t_seen); /* this process records its own first accesses */
  t_skip.path = NULL;
  t_pending = NULL;
}

/* A copy of `a` followed by `b` (either may be ""), kept for the life of the process. */
static const char *keep(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la + lb >= XB_KEPT_MAX || g_kept_used + la + lb + 1 > sizeof g_kept) return "";
  char *out = g_kept + g_kept_used;
  memcpy(out, a, la);
  memcpy(out + la, b, lb + 1);
  g_kept_used += la + lb + 1;
  return out;
}

/* "NAME=value" for an environment variable, "" if it is not set. */
static const char *keep_env(const char *name, const char *prefix) {
  const char *v = getenv(name);
  return v ? keep(prefix, v) : "";
}
#define KEEP_ENV(name) keep_env(name, name "=")

__attribute__((constructor)) static void xbench_preload_init(void) {
  const char *logpath = getenv(XB_ENV_LOG);
  if (!logpath) return;
  t_busy = 1;
  Dl_info info;
  if (dladdr((void *)&xbench_preload_init, &info) && info.dli_fname && info.dli_fname[0] == '/')
    g_self = keep(info.dli_fname, "");
  g_env_preload = keep("LD_PRELOAD=", g_self);
  g_env_log = KEEP_ENV(XB_ENV_LOG);
  g_env_mode = KEEP_ENV(XB_ENV_MODE);
  g_env_sup = KEEP_ENV(XB_ENV_SUPERVISOR);
  g_env_sock = KEEP_ENV(XB_ENV_SOCK);
  g_env_base = KEEP_ENV("XBENCH_TRACE_BASE_FILTERS");
  g_auto = strcmp(g_env_mode, XB_ENV_MODE "=auto") == 0;
  if (g_env_sup[0]) g_sup = g_env_sup + sizeof XB_ENV_SUPERVISOR "=" - 1; /* the value part */
  g_pid = (pid_t)syscall(SYS_getpid);
  /* Resolve every real function now, while no signal handler or vfork child can be inside us. */
#define XB_RESOLVE_NOW(name) RESOLVE(name);
  XB_INTERPOSED(XB_RESOLVE_NOW)
#undef XB_RESOLVE_NOW
  int err = xb_log_attach(&g_log, logpath);
  if (err == 0) {
    if (pthread_atfork(NULL, NULL, after_fork) != 0) g_log.hdr = NULL;
  }
  t_busy = 0;
  if (!g_log.hdr) return;
  xb_log_flag(&g_log, XB_FLAG_USED_PRELOAD);
  RESOLVE(dlopen);
  /* The loader read its cache to find our libraries (an approximation: a program whose
   * libraries all sit in default paths or RPATHs skips it). */
  if (syscall(SYS_faccessat, AT_FDCWD, "/etc/ld.so.cache", F_OK) == 0)
    xb_log_set_result(record_call(XB_OP_OPEN, AT_FDCWD, "/etc/ld.so.cache", O_RDONLY, 0), 0);
  {
    unsigned long long adds = 0;
    dl_iterate_phdr(note_adds, &adds);
    record_objects();
    g_seen_adds = adds;
  }
  /* The image now running (an interpreter started through #!, or a program spawned by libc
   * internals that bypass the exec wrappers). */
  char exe[PATH_MAX];
  long k = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", exe, sizeof exe - 1);
  if (k > 0) {
    exe[k] = 0;
    int32_t *slot = record(XB_OP_PROC, AT_FDCWD, exe, (uint32_t)syscall(SYS_getppid));
    xb_log_set_result(slot, 0);
  }
}
