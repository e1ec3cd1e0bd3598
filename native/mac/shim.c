/*
 * libxbench-interpose.dylib: the macOS recorder, loaded into every traced process through
 * DYLD_INSERT_LIBRARIES by xbench-mac-launch (launch.c). EXPERIMENTAL: built and checked
 * (test/integration/macos-helpers.test.ts parses its Mach-O), never run on a Mac yet.
 *
 * dyld rebinds every image's imports of the functions named in the `__DATA,__interpose` table
 * below to this library's replacements, except this library's own imports: so a replacement
 * calls the original by name. The table names originals by their exact exported symbols
 * (`__asm`), including the x86-64 `$INODE64` variants, so what is interposed does not depend on
 * which names the SDK headers pick. Link with -Wl,--no-gc-sections (zig's linker drops the
 * unreferenced table otherwise); build/native-darwin.ts checks the table after linking.
 *
 * Records go to the same log as on Linux (../log.h), with Darwin open flags translated to the
 * Linux values the reader decodes (policy.c). Each call is recorded BEFORE the original runs and
 * its result stored after, errno preserved. Relative paths carry their base (getcwd, or the
 * dirfd's path from F_GETPATH). A thread-local guard stops recursion when libc calls back into
 * an interposed function. Children: execve and posix_spawn[p] put DYLD_INSERT_LIBRARIES and the
 * log variable back into the environment they pass (env -i), start `#!/usr/bin/env NAME`
 * scripts as NAME directly (env is SIP-protected: under it NAME would run untraced), and flag
 * the trace incomplete when the program is one SIP runs with DYLD_* stripped (policy.c).
 *
 * Known gaps: thread-locals on macOS are allocated on a thread's first use (malloc), so the
 * record path is not async-signal-safe on a thread's first call (they are kept small: about
 * 1 KiB a thread); calls inside libSystem that do
 * not go through an import (fts, glob opening folders) are not seen.
 */
#include "../common/env.h"
#include "../common/log.h"
#include "../unix/logfile.h"
#include "policy.h"
#include "search.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mach-o/dyld.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static struct xb_log g_log;
static pid_t g_pid;
static char g_self[MAXPATHLEN]; /* this library's path */
static char g_log_kv[MAXPATHLEN + sizeof XB_ENV_LOG + 1]; /* "XBENCH_TRACE_LOG=..." */
static __thread int t_busy;
static __thread struct xb_cursor t_cur;
static __thread char t_base[MAXPATHLEN];
static __thread DIR *t_listed; /* the last DIR a readdir was recorded for */

/* ---------------------------------------------------------------- recording */

/* Appends a record for `path` (relative to `dirfd`); returns its result slot or NULL. */
static int32_t *record(int op, int dirfd, const char *path, uint32_t arg) {
  if (!g_log.hdr || !path || !path[0] || t_busy) return NULL;
  t_busy = 1;
  int e = errno;
  const size_t max = XB_REC_MAX - MAXPATHLEN - sizeof(struct xb_rec);
  size_t n = strnlen(path, max);
  struct xb_rec r = {.op = (uint8_t)op,
                     .src = XB_SRC_PRELOAD,
                     .pid = (uint32_t)g_pid,
                     .arg = arg,
                     .result = XB_RESULT_PENDING,
                     .path_len = (uint32_t)n,
                     .tsc = xb_now()};
  if (n == max) r.rflags |= XB_RF_TRUNCATED;
  if (path[0] != '/') {
    if (dirfd == AT_FDCWD) {
      if (getcwd(t_base, sizeof t_base)) r.base_len = (uint16_t)strlen(t_base);
    } else {
      if (fcntl(dirfd, F_GETPATH, t_base) != -1 && t_base[0] == '/') r.base_len = (uint16_t)strlen(t_base);
      r.rflags |= XB_RF_BASE_DIRFD;
    }
  }
  int32_t *slot = xb_log_append_local(&g_log, &t_cur, &r, t_base, path);
  errno = e;
  t_busy = 0;
  return slot;
}

/* Records the folder open as `fd` (its path from F_GETPATH). */
static int32_t *record_fd(int op, int fd) {
  if (!g_log.hdr || t_busy || fd < 0) return NULL;
  char path[MAXPATHLEN];
  int e = errno;
  int ok = fcntl(fd, F_GETPATH, path) != -1 && path[0] == '/';
  errno = e;
  return ok ? record(op, AT_FDCWD, path, 0) : NULL;
}

/* Stores the outcome of the original call; errno is left untouched. */
static void done(int32_t *slot, int failed) {
  if (slot) xb_log_set_result(slot, failed ? errno : 0);
}

/* ---------------------------------------------------------------- originals */

/* The exported symbol each replacement stands in for: `_` + sym, whatever the headers say. */
#define ORIG(ret, name, sym, params) extern ret orig_##name params __asm("_" sym);

/* A call with one path: recorded, made, result stored. Failure is a negative return. */
#define DEF_PATHCALL(ret, name, sym, op, params, args, path_expr, dirfd_expr, arg_expr)                                \
  ORIG(ret, name, sym, params)                                                                                         \
  __attribute__((used)) static ret xbi_##name params {                                                                 \
    int32_t *slot = record(op, dirfd_expr, path_expr, (uint32_t)(arg_expr));                                           \
    ret r = orig_##name args;                                                                                          \
    done(slot, r < 0);                                                                                                 \
    return r;                                                                                                          \
  }

/* open and openat are variadic: so are their replacements (arm64 passes variadic arguments on
 * the stack), and the mode exists only with O_CREAT. */
#define DEF_OPEN(name, sym, params, args, dirfd_expr)                                                                  \
  ORIG(int, name, sym, params)                                                                                         \
  __attribute__((used)) static int xbi_##name params {                                                                 \
    int mode = 0;                                                                                                      \
    if (flags & O_CREAT) {                                                                                             \
      va_list ap;                                                                                                      \
      va_start(ap, flags);                                                                                             \
      mode = va_arg(ap, int);                                                                                          \
      va_end(ap);                                                                                                      \
    }                                                                                                                  \
    int32_t *slot = record(XB_OP_OPEN, dirfd_expr, path, xb_darwin_open_flags(flags));                                 \
    int fd = orig_##name args;                                                                                         \
    done(slot, fd < 0);                                                                                                \
    return fd;                                                                                                         \
  }
DEF_OPEN(open, "open", (const char *path, int flags, ...), (path, flags, mode), AT_FDCWD)
DEF_OPEN(openat, "openat", (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode), dirfd)
DEF_PATHCALL(int, creat, "creat", XB_OP_OPEN, (const char *p, mode_t m), (p, m), p, AT_FDCWD,
             xb_darwin_open_flags(O_WRONLY | O_CREAT | O_TRUNC))

/* stdio opens: NULL is the failure. */
#define DEF_FOPEN(name, sym, params, args)                                                                             \
  ORIG(FILE *, name, sym, params)                                                                                      \
  __attribute__((used)) static FILE *xbi_##name params {                                                               \
    int32_t *slot = record(XB_OP_OPEN, AT_FDCWD, path, xb_fopen_flags(mode));                                          \
    FILE *f = orig_##name args;                                                                                        \
    done(slot, f == NULL);                                                                                             \
    return f;                                                                                                          \
  }
DEF_FOPEN(fopen, "fopen", (const char *path, const char *mode), (path, mode))
DEF_FOPEN(fopen_DARWIN_EXTSN, "fopen$DARWIN_EXTSN", (const char *path, const char *mode), (path, mode))
DEF_FOPEN(freopen, "freopen", (const char *path, const char *mode, FILE *stream), (path, mode, stream))

/* The stat family. `void *` buffers: the legacy x86-64 names take a smaller struct stat. */
#define NOFOLLOW XB_LINUX_AT_SYMLINK_NOFOLLOW
#define DEF_STATS(suffix, sym_suffix)                                                                                  \
  DEF_PATHCALL(int, stat##suffix, "stat" sym_suffix, XB_OP_STAT, (const char *p, void *b), (p, b), p, AT_FDCWD, 0)     \
  DEF_PATHCALL(int, lstat##suffix, "lstat" sym_suffix, XB_OP_STAT, (const char *p, void *b), (p, b), p, AT_FDCWD,      \
               NOFOLLOW)                                                                                               \
  DEF_PATHCALL(int, fstatat##suffix, "fstatat" sym_suffix, XB_OP_STAT, (int d, const char *p, void *b, int f),         \
               (d, p, b, f), p, d, xb_darwin_at_flags(f))
DEF_STATS(, "")
DEF_STATS(64, "64")
#if defined(__x86_64__)
DEF_STATS(_INODE64, "$INODE64")
#endif

DEF_PATHCALL(int, access, "access", XB_OP_ACCESS, (const char *p, int m), (p, m), p, AT_FDCWD, m)
DEF_PATHCALL(int, faccessat, "faccessat", XB_OP_ACCESS, (int d, const char *p, int m, int f), (d, p, m, f), p, d, m)
DEF_PATHCALL(ssize_t, readlink, "readlink", XB_OP_READLINK, (const char *p, char *b, size_t n), (p, b, n), p, AT_FDCWD,
             0)
DEF_PATHCALL(ssize_t, readlinkat, "readlinkat", XB_OP_READLINK, (int d, const char *p, char *b, size_t n), (d, p, b, n),
             p, d, 0)

/* ---------------------------------------------------------------- folders, namespace changes */

#define DEF_DIRS(suffix, sym_suffix)                                                                                   \
  ORIG(DIR *, opendir##suffix, "opendir" sym_suffix, (const char *path))                                               \
  __attribute__((used)) static DIR *xbi_opendir##suffix(const char *path) {                                            \
    int32_t *slot = record(XB_OP_OPENDIR, AT_FDCWD, path, 0);                                                          \
    DIR *d = orig_opendir##suffix(path);                                                                               \
    done(slot, d == NULL);                                                                                             \
    return d;                                                                                                          \
  }                                                                                                                    \
  ORIG(DIR *, fdopendir##suffix, "fdopendir" sym_suffix, (int fd))                                                     \
  __attribute__((used)) static DIR *xbi_fdopendir##suffix(int fd) {                                                    \
    int32_t *slot = record_fd(XB_OP_READDIR, fd);                                                                      \
    DIR *d = orig_fdopendir##suffix(fd);                                                                               \
    done(slot, d == NULL);                                                                                             \
    return d;                                                                                                          \
  }                                                                                                                    \
  /* A listing of a DIR this library did not see opened (libSystem's own __opendir2): once per                         \
   * DIR, by its fd's path; a DIR reused at the same address is recorded by its opendir. */                            \
  ORIG(struct dirent *, readdir##suffix, "readdir" sym_suffix, (DIR * d))                                              \
  __attribute__((used)) static struct dirent *xbi_readdir##suffix(DIR *d) {                                            \
    if (g_log.hdr && d && d != t_listed && !t_busy) { /* no thread-local before the log is up */                       \
      t_listed = d;                                                                                                    \
      xb_log_set_result(record_fd(XB_OP_READDIR, dirfd(d)), 0);                                                        \
    }                                                                                                                  \
    return orig_readdir##suffix(d);                                                                                    \
  }                                                                                                                    \
  DEF_PATHCALL(int, scandir##suffix, "scandir" sym_suffix, XB_OP_OPENDIR,                                              \
               (const char *p, struct dirent ***l, int (*s)(const struct dirent *),                                    \
                int (*c)(const struct dirent **, const struct dirent **)),                                             \
               (p, l, s, c), p, AT_FDCWD, 0)
DEF_DIRS(, "")
#if defined(__x86_64__)
DEF_DIRS(_INODE64, "$INODE64")
#endif

DEF_PATHCALL(int, unlink, "unlink", XB_OP_UNLINK, (const char *p), (p), p, AT_FDCWD, 0)
DEF_PATHCALL(int, unlinkat, "unlinkat", XB_OP_UNLINK, (int d, const char *p, int f), (d, p, f), p, d, 0)
DEF_PATHCALL(int, mkdir, "mkdir", XB_OP_MKDIR, (const char *p, mode_t m), (p, m), p, AT_FDCWD, m)
DEF_PATHCALL(int, mkdirat, "mkdirat", XB_OP_MKDIR, (int d, const char *p, mode_t m), (d, p, m), p, d, m)
DEF_PATHCALL(int, rmdir, "rmdir", XB_OP_RMDIR, (const char *p), (p), p, AT_FDCWD, 0)
DEF_PATHCALL(int, chdir, "chdir", XB_OP_CHDIR, (const char *p), (p), p, AT_FDCWD, 0)
DEF_PATHCALL(int, truncate, "truncate", XB_OP_TRUNCATE, (const char *p, off_t l), (p, l), p, AT_FDCWD, 0)
/* Links: the new name is written; the old one (or a symlink's text) is not. */
DEF_PATHCALL(int, link, "link", XB_OP_LINK, (const char *a, const char *p), (a, p), p, AT_FDCWD, 0)
DEF_PATHCALL(int, symlink, "symlink", XB_OP_LINK, (const char *a, const char *p), (a, p), p, AT_FDCWD, 0)

/* Both names of a rename, recorded before the call, results stored after. */
#define DEF_RENAME(name, params, args, fd1, fd2)                                                                       \
  ORIG(int, name, #name, params)                                                                                       \
  __attribute__((used)) static int xbi_##name params {                                                                 \
    int32_t *a = record(XB_OP_RENAME_FROM, fd1, from, 0);                                                              \
    int32_t *b = record(XB_OP_RENAME_TO, fd2, to, 0);                                                                  \
    int r = orig_##name args;                                                                                          \
    done(a, r < 0);                                                                                                    \
    done(b, r < 0);                                                                                                    \
    return r;                                                                                                          \
  }
DEF_RENAME(rename, (const char *from, const char *to), (from, to), AT_FDCWD, AT_FDCWD)
DEF_RENAME(renameat, (int fd1, const char *from, int fd2, const char *to), (fd1, from, fd2, to), fd1, fd2)

/* ---------------------------------------------------------------- children */

/* Flags the trace incomplete when macOS will run `path` with DYLD_* stripped (SIP), directly
 * or as the interpreter of a `#!` script. */
static void note_sip(const char *path) {
  if (g_log.hdr && path && xb_sip_strips(path)) xb_log_flag(&g_log, XB_FLAG_SIP_STRIPPED);
}

/* The value of `name` in a NULL-terminated environment, or NULL. */
static const char *env_value(char *const envp[], const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; envp && envp[i]; i++)
    if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=') return envp[i] + n + 1;
  return NULL;
}

/*
 * What to start for `path argv`: a `#!/usr/bin/env NAME` script runs as NAME (found on the
 * child's PATH, in `prog`) with argv {NAME, path, argv[1..]} in `av` (cap entries), as env
 * would run it, since SIP would strip DYLD_* from env and everything under it. Returns the
 * program to start, `path` itself otherwise (then the SIP check flags what cannot be traced).
 */
static const char *unwrap_env(const char *path, char *const argv[], char *const envp[], char *prog, char *name,
                              char **av, size_t cap, char *const **run_argv) {
  *run_argv = argv;
  if (path && xb_env_script(path, env_value(envp, "PATH"), prog, MAXPATHLEN, name, NAME_MAX + 1) &&
      xb_env_script_argv(name, path, argv, av, cap)) {
    *run_argv = av;
    return prog;
  }
  note_sip(path);
  return path;
}

/*
 * The environment for a child, in `out` and a rewritten DYLD_INSERT_LIBRARIES in `*buf`, a
 * mapping of ENV_BUF bytes made here (thread-locals this size would be allocated for every
 * thread of every traced program; mmap is async-signal-safe, malloc is not). envp itself when
 * that fails. The caller unmaps *buf (release_env) unless the exec replaced the image.
 */
#define ENV_BUF (2 * MAXPATHLEN + 64 * 1024)
static char *const *traced_env(char *const envp[], char **out, size_t cap, char **buf) {
  int e = errno;
  void *p = mmap(NULL, ENV_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
  *buf = p == MAP_FAILED ? NULL : p;
  long n = *buf ? xb_env_merge(envp, g_self, g_log_kv, out, cap, *buf, ENV_BUF) : -1;
  errno = e;
  return n < 0 ? envp : out;
}

static void release_env(char *buf) {
  int e = errno;
  if (buf) munmap(buf, ENV_BUF);
  errno = e;
}

static void record_missing(const char *candidate, void *ctx) {
  (void)ctx;
  xb_log_set_result(record(XB_OP_EXEC, AT_FDCWD, candidate, 0), ENOENT);
}

ORIG(int, execve, "execve", (const char *path, char *const argv[], char *const envp[]))
__attribute__((used)) static int xbi_execve(const char *path, char *const argv[], char *const envp[]) {
  if (!g_log.hdr) return orig_execve(path, argv, envp);
  size_t cap = xb_env_count(envp) + 3, acap = xb_env_count(argv) + 3;
  char *out[cap], *buf, *av[acap], prog[MAXPATHLEN], name[NAME_MAX + 1];
  char *const *run_argv;
  int32_t *slot = record(XB_OP_EXEC, AT_FDCWD, path, 0);
  const char *run = unwrap_env(path, argv, envp, prog, name, av, acap, &run_argv);
  int r = orig_execve(run, run_argv, (char **)traced_env(envp, out, cap, &buf));
  done(slot, 1);
  release_env(buf);
  return r;
}

static int spawn(pid_t *pid, const char *file, int search, const posix_spawn_file_actions_t *fa,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);

ORIG(int, posix_spawn, "posix_spawn",
     (pid_t * pid, const char *path, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
      char *const argv[], char *const envp[]))
ORIG(int, posix_spawnp, "posix_spawnp",
     (pid_t * pid, const char *file, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
      char *const argv[], char *const envp[]))
__attribute__((used)) static int xbi_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                                                 const posix_spawnattr_t *attr, char *const argv[],
                                                 char *const envp[]) {
  return spawn(pid, path, 0, fa, attr, argv, envp);
}
__attribute__((used)) static int xbi_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                                                  const posix_spawnattr_t *attr, char *const argv[],
                                                  char *const envp[]) {
  return spawn(pid, file, 1, fa, attr, argv, envp);
}

/* posix_spawn[p] with the tracing environment; a PATH search records the folders that lacked
 * the program. The spawn's error number is the record's result. */
static int spawn(pid_t *pid, const char *file, int search, const posix_spawn_file_actions_t *fa,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  if (!g_log.hdr) return (search ? orig_posix_spawnp : orig_posix_spawn)(pid, file, fa, attr, argv, envp);
  size_t cap = xb_env_count(envp) + 3, acap = xb_env_count(argv) + 3;
  char *out[cap], *buf, found[MAXPATHLEN], *av[acap], prog[MAXPATHLEN], name[NAME_MAX + 1];
  char *const *run_argv;
  const char *target = file;
  if (search && file && !strchr(file, '/')) {
    int e = errno;
    target = xb_search_path(getenv("PATH"), file, found, sizeof found, record_missing, NULL) ? found : NULL;
    errno = e;
  }
  int32_t *slot = target ? record(XB_OP_EXEC, AT_FDCWD, target, 0) : NULL;
  const char *run = target ? unwrap_env(target, argv, envp, prog, name, av, acap, &run_argv) : NULL;
  char *const *env = traced_env(envp, out, cap, &buf);
  int r = run && run != target ? orig_posix_spawn(pid, run, fa, attr, run_argv, env)
                               : (search ? orig_posix_spawnp : orig_posix_spawn)(pid, file, fa, attr, argv, env);
  release_env(buf);
  xb_log_set_result(slot, r);
  return r;
}

/* ---------------------------------------------------------------- the table */

typedef const void *xb_fn;
#define PAIR(name) {(xb_fn)xbi_##name, (xb_fn)orig_##name},
#define STAT_PAIRS(suffix) PAIR(stat##suffix) PAIR(lstat##suffix) PAIR(fstatat##suffix)
#define DIR_PAIRS(suffix) PAIR(opendir##suffix) PAIR(fdopendir##suffix) PAIR(readdir##suffix) PAIR(scandir##suffix)

/* Keep in step with INTERPOSED in test/integration/macos-helpers.test.ts. */
__attribute__((used, section("__DATA,__interpose"))) static const struct {
  xb_fn replacement, original;
} xb_interposers[] = {
    PAIR(open) PAIR(openat) PAIR(creat) PAIR(fopen) PAIR(fopen_DARWIN_EXTSN) PAIR(freopen) STAT_PAIRS() STAT_PAIRS(64)
#if defined(__x86_64__)
        STAT_PAIRS(_INODE64) DIR_PAIRS(_INODE64)
#endif
            PAIR(access) PAIR(faccessat) PAIR(readlink) PAIR(readlinkat) DIR_PAIRS() PAIR(unlink) PAIR(unlinkat)
                PAIR(mkdir) PAIR(mkdirat) PAIR(rmdir) PAIR(chdir) PAIR(truncate) PAIR(link) PAIR(symlink) PAIR(rename)
                    PAIR(renameat) PAIR(execve) PAIR(posix_spawn) PAIR(posix_spawnp)};

/* ---------------------------------------------------------------- setup */

static void after_fork(void) {
  g_pid = getpid();
  t_cur.pos = t_cur.end = 0; /* the parent keeps writing its chunk */
}

__attribute__((constructor)) static void xbench_interpose_init(void) {
  const char *logpath = getenv(XB_ENV_LOG);
  if (!logpath) return;
  t_busy = 1;
  Dl_info info;
  if (dladdr((const void *)&xbench_interpose_init, &info) && info.dli_fname && info.dli_fname[0] == '/')
    snprintf(g_self, sizeof g_self, "%s", info.dli_fname);
  snprintf(g_log_kv, sizeof g_log_kv, "%s=%s", XB_ENV_LOG, logpath);
  g_pid = getpid();
  int ok = 0;
  int fd = open(logpath, O_RDWR | O_CLOEXEC);
  if (fd >= 0) {
    ok = xb_log_attach_fd(&g_log, fd) == 0;
    close(fd);
  }
  if (ok && pthread_atfork(NULL, NULL, after_fork) != 0) {
    ok = 0;
    g_log.hdr = NULL;
  }
  t_busy = 0;
  if (!ok || !g_self[0]) {
    g_log.hdr = NULL; /* children could not be given this library: record nothing, claim nothing */
    return;
  }
  xb_log_flag(&g_log, XB_FLAG_USED_PRELOAD);
  /* The image now running (a script's interpreter, or a program started by a path no wrapper
   * saw). */
  char exe[MAXPATHLEN];
  uint32_t size = sizeof exe;
  if (_NSGetExecutablePath(exe, &size) == 0)
    xb_log_set_result(record(XB_OP_PROC, AT_FDCWD, exe, (uint32_t)getppid()), 0);
}
