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
 * (env -i), and drop the shim from an exec it cannot follow (the loader runs it securely, or
 * the process changed user and the shim or the log is closed to it now), where ld.so would
 * refuse it with a message on the command's stderr.
 *
 * Hybrid mode (auto backend): a seccomp filter from the supervisor covers the whole tree and lets
 * through the system calls made from the trampoline page this shim maps at XB_TRAMPOLINE_ADDR
 * (env.h). The wrappers then make their calls there, raw, instead of calling libc: they are
 * recorded here at preload's cost, and the supervisor is notified only of what the shim cannot
 * see (ld.so's opens, glibc's internal calls, static programs). Preload mode: no filter, the
 * wrappers call libc.
 */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include "../common/env.h"
#include "progkind.h"
#include "../common/log.h"
#include "../unix/logfile.h"
#include "sys.h"

#include <dirent.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <dlfcn.h>
#include <linux/capability.h>
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
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#define EXPORT __attribute__((visibility("default"), hot))

extern char **environ;

/* Strings kept from start-up, packed into one arena: they then share a page or two instead of
 * one PATH_MAX array each (every page first written costs a fault, ~12 us on slow VMs). */
#define XB_KEPT_MAX (PATH_MAX + 32)
static char g_kept[8 * XB_KEPT_MAX];
static size_t g_kept_used;
static const char *g_self = ""; /* this shim's path */
/* "NAME=value" strings re-inserted at exec ("" when absent). */
static const char *g_env_preload = "";
static const char *g_env_log = "";
static const char *g_env_mode = "";
static __thread int t_busy __attribute__((tls_model("initial-exec")));
static __thread struct xb_cursor t_cur __attribute__((tls_model("initial-exec")));
/* The directory a relative path is relative to, per thread: a signal handler's interposed call
 * may run on a small sigaltstack, so no PATH_MAX buffer on the stack (t_busy keeps it unshared). */
static __thread char t_base[PATH_MAX] __attribute__((tls_model("initial-exec")));

/* ---------------------------------------------------------------- system calls */

/* The trampoline: syscall(nr, a..f) with the kernel's result (-errno on failure). Its bytes are
 * copied to the fixed page, so it must not refer to anything by a relative address. */
#if defined(__aarch64__)
/* The seven arguments arrive in x0-x6; the kernel wants the number in x8, the rest in x0-x5. */
__asm__(".pushsection .text\n"
        ".globl xb_tramp_code\n"
        ".hidden xb_tramp_code\n"
        "xb_tramp_code:\n"
        "  mov x8, x0\n"
        "  mov x0, x1\n"
        "  mov x1, x2\n"
        "  mov x2, x3\n"
        "  mov x3, x4\n"
        "  mov x4, x5\n"
        "  mov x5, x6\n"
        "  svc #0\n"
        "  ret\n"
        ".globl xb_tramp_end\n"
        ".hidden xb_tramp_end\n"
        "xb_tramp_end:\n"
        ".popsection\n");
#else
__asm__(".pushsection .text\n"
        ".globl xb_tramp_code\n"
        ".hidden xb_tramp_code\n"
        "xb_tramp_code:\n"
        "  mov %rdi, %rax\n"
        "  mov %rsi, %rdi\n"
        "  mov %rdx, %rsi\n"
        "  mov %rcx, %rdx\n"
        "  mov %r8, %r10\n"
        "  mov %r9, %r8\n"
        "  mov 8(%rsp), %r9\n"
        "  syscall\n"
        "  ret\n"
        ".globl xb_tramp_end\n"
        ".hidden xb_tramp_end\n"
        "xb_tramp_end:\n"
        ".popsection\n");
#endif
extern const char xb_tramp_code[], xb_tramp_end[];
typedef long (*xb_tramp_fn)(long nr, long a, long b, long c, long d, long e, long f);
/* Set in hybrid mode once the page is mapped: then wrappers make their calls there. */
static xb_tramp_fn g_tramp;
/* Hybrid mode: a filter covers this process and reports every call not made from the trampoline
 * (so what the shim leaves unrecorded, it records). */
static int g_filtered;

/* Maps the trampoline page; NULL if the address is taken (then calls go through libc). */
static xb_tramp_fn map_trampoline(void) {
  long p = xb_sys6(SYS_mmap, (long)XB_TRAMPOLINE_ADDR, XB_TRAMPOLINE_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != (long)XB_TRAMPOLINE_ADDR) { /* taken, or an old kernel that ignored NOREPLACE */
    if (p >= 0 || p < -4095) xb_sys(SYS_munmap, p, XB_TRAMPOLINE_SIZE, 0, 0, 0);
    return NULL;
  }
  memcpy((void *)p, xb_tramp_code, (size_t)(xb_tramp_end - xb_tramp_code));
  /* arm64's instruction cache does not see data writes by itself (a no-op on x86-64). */
  __builtin___clear_cache((char *)p, (char *)p + (xb_tramp_end - xb_tramp_code));
  if (xb_sys(SYS_mprotect, p, XB_TRAMPOLINE_SIZE, PROT_READ | PROT_EXEC, 0, 0) != 0) {
    xb_sys(SYS_munmap, p, XB_TRAMPOLINE_SIZE, 0, 0, 0);
    return NULL;
  }
  return (xb_tramp_fn)p;
}

/* The shim's own system calls (records, probes): from the trampoline when there is one, so the
 * filter does not report them; -errno on failure. */
static inline long xsys(long nr, long a, long b, long c, long d, long e) {
  return g_tramp ? g_tramp(nr, a, b, c, d, e, 0) : xb_sys6(nr, a, b, c, d, e, 0);
}
#define XSYS(nr, a, b, c, d, e) xsys(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e))

/* A raw result the libc way: -1 with errno set. */
static inline long set_errno(long r) {
  if (r < 0 && r > -4096) {
    errno = (int)-r;
    return -1;
  }
  return r;
}

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

/* readdir_r and readdir64_r are deprecated, and programs still list folders with them. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Every libc entry point the shim interposes, listed once: declared here, resolved at load. */
// clang-format off
#define XB_INTERPOSED(X) \
  X(open) X(open64) X(openat) X(openat64) X(creat) X(creat64) X(__open_2) X(__open64_2) X(__openat_2) X(__openat64_2) \
  X(fopen) X(fopen64) X(freopen) X(freopen64) \
  X(stat) X(lstat) X(stat64) X(lstat64) X(fstatat) X(fstatat64) X(statx) \
  X(__xstat) X(__lxstat) X(__fxstatat) X(__xstat64) X(__lxstat64) X(__fxstatat64) \
  X(access) X(faccessat) X(euidaccess) X(eaccess) X(statfs) X(statfs64) X(statvfs) X(statvfs64) \
  X(readlink) X(readlinkat) X(opendir) X(fdopendir) X(closedir) X(readdir) X(readdir64) X(readdir_r) \
  X(readdir64_r) X(getdents64) X(scandir) X(scandir64) \
  X(execve) X(execvpe) X(posix_spawn) X(posix_spawnp) \
  X(rename) X(renameat) X(renameat2) X(unlink) X(unlinkat) X(link) X(linkat) X(symlink) X(symlinkat) \
  X(mkdir) X(mkdirat) X(rmdir) X(chdir) X(chroot) X(truncate) X(truncate64) \
  X(mknod) X(mknodat) X(mkfifo) X(mkfifoat) X(bind) \
  X(chmod) X(lchmod) X(fchmodat) X(chown) X(lchown) X(fchownat) \
  X(utime) X(utimes) X(lutimes) X(futimesat) X(utimensat) \
  X(mkstemp) X(mkstemp64) X(mkostemp) X(mkostemp64) X(mkstemps) X(mkstemps64) X(mkostemps) X(mkostemps64) \
  X(mkdtemp) X(remove) X(ftw) X(ftw64) X(nftw) X(nftw64) X(fts_open) X(fts64_open) X(fts_read) X(fts64_read) X(fts_set) X(fts64_set) \
  X(glob) X(glob64) X(inotify_add_watch) X(fanotify_mark) X(name_to_handle_at) X(open_by_handle_at) \
  X(posix_spawn_file_actions_addopen) X(posix_spawn_file_actions_addchdir_np) X(posix_spawn_file_actions_addfchdir_np)
// clang-format on
#define XB_DECLARE_REAL(name) REAL(name);
XB_INTERPOSED(XB_DECLARE_REAL)

/* Hot state, defined after the real-function pointers so they share a page: on a PTI kernel
 * without PCID each page touched after a syscall costs a TLB miss. */
static struct xb_log g_log;
/* Set once this process changed its root (chroot): its paths are no longer the host's, so the
 * shim records nothing more and leaves it to the filter, which names them from outside. */
static int g_chrooted;
/*
 * This process's pid, in a page of its own marked MADV_WIPEONFORK: a child made by a raw clone or
 * _Fork (which skip pthread_atfork) reads 0 there, and its first record then takes a chunk of its
 * own instead of writing into its parent's.
 */
static volatile pid_t *g_pid_page;
static pid_t g_pid_fallback; /* when the page could not be set up: kept by pthread_atfork only */

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
  do digits[n++] = (char)('0' + v % 10);
  while ((v /= 10) && n < sizeof digits);
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
  int ok; /* that call succeeded (kept here: the log page would be one more TLB miss) */
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

static inline __attribute__((always_inline)) uint64_t mix(uint64_t h, uint64_t w) {
  h = (h ^ w) * 0x9e3779b97f4a7c15ull; /* multiply-xorshift */
  return h ^ (h >> 29);
}

/*
 * The length of `path` (at most `max`) and a hash of its bytes, in one pass 8 bytes at a time:
 * strnlen and a second pass to hash were a quarter of a record's instructions. A word is read
 * whole unless it would reach into the next page (which need not be mapped): then byte by byte.
 * Bytes past the end are zeroed, so the hash depends on the path alone, not on where it lies.
 */
static inline __attribute__((always_inline)) size_t scan_path(const char *path, size_t max, uint64_t *hash) {
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i = 0;
  for (;;) {
    uint64_t w = 0;
    if (((uintptr_t)(path + i) & 4095u) <= 4096u - 8u) {
      memcpy(&w, path + i, 8);
    } else {
      for (unsigned k = 0; k < 8; k++) { /* bytes from the NUL on stay zero */
        unsigned char c = (unsigned char)path[i + k];
        if (!c) break;
        w |= (uint64_t)c << (8 * k);
      }
    }
    uint64_t zero = (w - ones) & ~w & highs; /* the lowest set bit marks the first NUL byte */
    if (zero) {
      unsigned k = (unsigned)__builtin_ctzll(zero) >> 3;
      if (k) h = mix(h, w & ((1ull << (8 * k)) - 1));
      size_t n = i + k;
      *hash = h;
      return n < max ? n : max;
    }
    h = mix(h, w);
    i += 8;
    if (i >= max) {
      *hash = h;
      return max;
    }
  }
}

/* The dedup key of an access: the path's hash, its length, the kind of access. */
static inline uint64_t access_key(uint64_t h, size_t n, int op, uint32_t arg) {
  uint32_t kind = op == XB_OP_OPEN ? arg & (O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | O_DIRECTORY | O_PATH) : 0;
  return (h ^ ((uint64_t)op << 56) ^ ((uint64_t)kind * 0x9e3779b97f4a7c15ull)) ^ n;
}

/* Appends a record for `path` (relative to dirfd) and returns its result slot, NULL if not
 * recorded, or &g_skipped for a repeat (see above; only when `may_skip`). */
static void after_fork(void);
static int init_early(void);

static inline pid_t current_pid(void) {
  if (!g_pid_page) return g_pid_fallback;
  pid_t pid = *g_pid_page;
  if (__builtin_expect(pid == 0, 0)) { /* a fork that skipped the atfork handler */
    after_fork();
    pid = *g_pid_page;
  }
  return pid;
}

/* A record of `op` on a path of `n` bytes (cut at `max`), its outcome pending. */
static inline __attribute__((always_inline)) struct xb_rec new_rec(int op, pid_t pid, uint32_t arg, size_t n,
                                                                   size_t max) {
  struct xb_rec r = {.op = (uint8_t)op,
                     .src = XB_SRC_PRELOAD,
                     .pid = (uint32_t)pid,
                     .arg = op == XB_OP_OPEN ? xb_rec_open_flags(arg) : arg,
                     .result = XB_RESULT_PENDING,
                     .path_len = (uint32_t)n,
                     .tsc = xb_now()};
  if (n == max) r.rflags |= XB_RF_TRUNCATED;
  return r;
}

/* record_call's work, with t_busy already held by the caller (so t_base is its own). */
static inline __attribute__((always_inline)) int32_t *record_held(int op, int dirfd, const char *path, uint32_t arg,
                                                                  int may_skip) {
  pid_t pid = current_pid();
  const size_t max = XB_REC_MAX - PATH_MAX - sizeof(struct xb_rec);
  uint64_t h;
  size_t n = scan_path(path, max, &h);
  struct xb_seen *seen = NULL;
  if (path[0] == '/' && cacheable(op)) {
    h = access_key(h, n, op, arg);
    seen = &t_seen[h % XB_SEEN];
    if (may_skip && seen->hash == h && seen->ok && !t_skip.path) {
      t_skip.path = path;
      t_skip.op = op;
      t_skip.dirfd = dirfd;
      t_skip.arg = arg;
      return &g_skipped;
    }
  }
  struct xb_rec r = new_rec(op, pid, arg, n, max);
  char *base = t_base;
  if (path[0] != '/') {
    long k;
    if (dirfd == AT_FDCWD) {
      k = XSYS(SYS_getcwd, base, PATH_MAX, 0, 0, 0);
      if (k > 0) r.base_len = (uint16_t)(k - 1); /* the kernel counts the NUL */
    } else {
      char link[40];
      fmt_fd_link(link, dirfd);
      k = XSYS(SYS_readlinkat, AT_FDCWD, link, base, PATH_MAX, 0);
      if (k >= PATH_MAX) k = -ENAMETOOLONG; /* cut short */
      if (k > 0 && base[0] == '/') r.base_len = (uint16_t)k;
      r.rflags |= XB_RF_BASE_DIRFD;
    }
    if (__builtin_expect(k == -ENAMETOOLONG, 0)) { /* a folder too long to name: say so, no bare name */
      xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED);
      return NULL;
    }
  }
  int32_t *slot = xb_log_append_local(&g_log, &t_cur, &r, base, path);
  if (seen) {
    seen->hash = h;
    seen->slot = slot;
    seen->ok = 0;
    t_pending = seen;
  }
  return slot;
}

/* Whether records may be made now: the log is open and this thread is not inside one already. */
static inline int may_record(void) {
  if (__builtin_expect(!g_log.hdr, 0) && !init_early()) return 0;
  return !t_busy && !g_chrooted;
}

__attribute__((hot, noinline)) static int32_t *record_call(int op, int dirfd, const char *path, uint32_t arg,
                                                           int may_skip) {
  if (!may_record() || !path || !path[0]) return NULL;
  t_busy = 1;
  int32_t *slot = record_held(op, dirfd, path, arg, may_skip);
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

/*
 * A wrapper that records `path_expr` (relative to `dirfd_expr`), then makes the call: `raw` (a
 * system call, through the trampoline) in hybrid mode, the real function otherwise. A negative
 * return is a failure with errno set.
 */
#define RAW_OR_REAL(ret, r, name, args, raw)                                                                           \
  ret r;                                                                                                               \
  if (g_tramp) {                                                                                                       \
    r = (ret)set_errno(raw);                                                                                           \
  } else {                                                                                                             \
    if (!RESOLVE(name)) return missing_real();                                                                         \
    r = real_##name args;                                                                                              \
  }
#define DEF_PATHCALL(ret, name, op, params, args, path_expr, dirfd_expr, arg_expr, raw)                                \
  EXPORT ret name params {                                                                                             \
    int32_t *slot = record(op, dirfd_expr, path_expr, (uint32_t)(arg_expr));                                           \
    RAW_OR_REAL(ret, r, name, args, raw)                                                                               \
    done(slot, r < 0);                                                                                                 \
    return r;                                                                                                          \
  }
/* The same for calls with no single system call behind them: always the real function (in
 * hybrid mode the supervisor also sees the calls it makes). */
#define DEF_LIBCALL(ret, name, op, params, args, path_expr, dirfd_expr, arg_expr)                                      \
  EXPORT ret name params {                                                                                             \
    int32_t *slot = record(op, dirfd_expr, path_expr, (uint32_t)(arg_expr));                                           \
    if (!RESOLVE(name)) return missing_real();                                                                         \
    ret r = real_##name args;                                                                                          \
    done(slot, r < 0);                                                                                                 \
    return r;                                                                                                          \
  }
#define T(nr, a, b, c, d) g_tramp(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* faccessat with flags: the faccessat2 system call, or glibc's emulation on kernels without it. */
static long faccessat2_or_libc(int d, const char *p, int m, int f) {
  long r = T(SYS_faccessat2, d, p, m, f);
  if (r != -ENOSYS) return r;
  return real_faccessat(d, p, m, f) == 0 ? 0 : -errno;
}

/* ---------------------------------------------------------------- open family */

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
    int32_t *slot = record(XB_OP_OPEN, dirfd_expr, path, (uint32_t)flags);                                             \
    RAW_OR_REAL(int, fd, name, args, T(SYS_openat, dirfd_expr, path, flags, mode))                                     \
    done(slot, fd < 0);                                                                                                \
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
    int32_t *slot = record(XB_OP_OPEN, AT_FDCWD, path, fopen_flags(mode));                                             \
    if (!RESOLVE(name)) {                                                                                              \
      errno = ENOSYS;                                                                                                  \
      return NULL;                                                                                                     \
    }                                                                                                                  \
    FILE *f = real_##name args;                                                                                        \
    done(slot, f == NULL);                                                                                             \
    return f;                                                                                                          \
  }
DEF_FOPEN(fopen, (const char *path, const char *mode), (path, mode))
DEF_FOPEN(fopen64, (const char *path, const char *mode), (path, mode))
DEF_FOPEN(freopen, (const char *path, const char *mode, FILE *stream), (path, mode, stream))
DEF_FOPEN(freopen64, (const char *path, const char *mode, FILE *stream), (path, mode, stream))

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

/* ---------------------------------------------------------------- stat, access, readlink */

#define NOFOLLOW AT_SYMLINK_NOFOLLOW
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
DEF_LIBCALL(int, scandir, XB_OP_OPENDIR,
            (const char *p, struct dirent ***l, int (*s)(const struct dirent *),
             int (*c)(const struct dirent **, const struct dirent **)),
            (p, l, s, c), p, AT_FDCWD, 0)
DEF_LIBCALL(int, scandir64, XB_OP_OPENDIR,
            (const char *p, struct dirent64 ***l, int (*s)(const struct dirent64 *),
             int (*c)(const struct dirent64 **, const struct dirent64 **)),
            (p, l, s, c), p, AT_FDCWD, 0)

/* ---------------------------------------------------------------- directories, namespace changes */

/* Records `op` on the file the /proc symlink `link` names, with `arg`. */
static int32_t *record_link(int op, const char *link, uint32_t arg) {
  if (!may_record()) return NULL;
  t_busy = 1; /* held until the record is written: t_base holds the path meanwhile */
  int32_t *slot = NULL;
  long k = XSYS(SYS_readlinkat, AT_FDCWD, link, t_base, PATH_MAX - 1, 0);
  if (k == -ENAMETOOLONG || k >= PATH_MAX - 1) xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED); /* see record_call */
  if (k > 0 && k < PATH_MAX - 1 && t_base[0] == '/') {
    t_base[k] = 0;
    /* record_held writes from t_base only for relative paths; this one is absolute. */
    slot = record_held(op, AT_FDCWD, t_base, arg, 0);
  }
  t_busy = 0;
  return slot;
}

/* Records `op` on the file open as `fd` (its path read back from /proc/self/fd), with `arg`. */
static int32_t *record_fd_arg(int op, int fd, uint32_t arg) {
  char link[40];
  fmt_fd_link(link, fd);
  return record_link(op, link, arg);
}

/* Records a listing of the directory open as `fd`. */
static int32_t *record_fd(int op, int fd) {
  return record_fd_arg(op, fd, 0);
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

/* An open to list, not a listing: the folder is looked up (stat) until its entries are read. */
EXPORT DIR *opendir(const char *path) {
  int32_t *slot = record(XB_OP_OPEN, AT_FDCWD, path, O_RDONLY | O_DIRECTORY);
  if (!RESOLVE(opendir) || !RESOLVE(fdopendir)) {
    errno = ENOSYS;
    return NULL;
  }
  DIR *d;
  if (g_tramp) { /* glibc's own open, from the trampoline */
    int fd = (int)set_errno(T(SYS_openat, AT_FDCWD, path, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC, 0));
    d = fd < 0 ? NULL : real_fdopendir(fd);
    if (fd >= 0 && !d) {
      int e = errno;
      xsys(SYS_close, fd, 0, 0, 0, 0);
      errno = e;
    }
  } else {
    d = real_opendir(path);
  }
  done(slot, d == NULL);
  return d;
}

/*
 * A listing is recorded at a stream's first readdir (glibc's getdents inside it goes through a
 * hidden alias: only the filter sees it, so in hybrid mode the filter records it). The streams
 * last recorded, shared by the threads (one may list what another opened), until closedir: a
 * stream read again is not recorded again; one pushed out by newer ones is, harmlessly.
 */
#define XB_LISTED 8
static DIR *g_listed[XB_LISTED];
static unsigned g_listed_next;

static void note_listing(DIR *d) {
  if (g_filtered || !d) return;
  for (unsigned i = 0; i < XB_LISTED; i++)
    if (__atomic_load_n(&g_listed[i], __ATOMIC_RELAXED) == d) return;
  int e = errno;
  int fd = dirfd(d);
  if (fd >= 0) {
    unsigned at = __atomic_fetch_add(&g_listed_next, 1, __ATOMIC_RELAXED) % XB_LISTED;
    __atomic_store_n(&g_listed[at], d, __ATOMIC_RELAXED);
    xb_log_set_result(record_fd(XB_OP_READDIR, fd), 0);
  }
  errno = e;
}

EXPORT int closedir(DIR *d) {
  for (unsigned i = 0; i < XB_LISTED; i++) {
    DIR *seen = d;
    __atomic_compare_exchange_n(&g_listed[i], &seen, NULL, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  if (!RESOLVE(closedir)) return missing_real();
  return real_closedir(d);
}

#define DEF_READDIR(type, name)                                                                                        \
  EXPORT type *name(DIR *d) {                                                                                          \
    note_listing(d);                                                                                                   \
    if (!RESOLVE(name)) {                                                                                              \
      errno = ENOSYS;                                                                                                  \
      return NULL;                                                                                                     \
    }                                                                                                                  \
    return real_##name(d);                                                                                             \
  }                                                                                                                    \
  EXPORT int name##_r(DIR *d, type *entry, type **result) {                                                            \
    note_listing(d);                                                                                                   \
    return RESOLVE(name##_r) ? real_##name##_r(d, entry, result) : ENOSYS;                                             \
  }
DEF_READDIR(struct dirent, readdir)
DEF_READDIR(struct dirent64, readdir64)

/*
 * Walks and patterns list folders through glibc's hidden opendir and readdir, which the shim
 * cannot see (the filter does, so in hybrid mode they pass untouched): each wrapper reports the
 * folders the walk read. nftw and ftw report a folder to the caller's function (FTW_D, FTW_DP):
 * it was listed unless that function asked to skip it; the function pointer waits in a
 * thread-local for the call (kept across a walk started from inside another).
 */
static __thread int (*t_nftw_fn)(const char *, const struct stat *, int, struct FTW *);
static __thread int (*t_nftw64_fn)(const char *, const struct stat64 *, int, struct FTW *);
static __thread int (*t_ftw_fn)(const char *, const struct stat *, int);
static __thread int (*t_ftw64_fn)(const char *, const struct stat64 *, int);
static __thread int t_nftw_flags;

/* The folder `path` a walk listed (FTW_CHDIR: named from its parent, the cwd by then). */
static void walk_listed(const char *path, int flag, const struct FTW *at, int ret) {
  if (flag != FTW_D && flag != FTW_DP) return;
  if (flag == FTW_D && (t_nftw_flags & FTW_ACTIONRETVAL) && ret == FTW_SKIP_SUBTREE) return;
  int e = errno;
  const char *name = at && (t_nftw_flags & FTW_CHDIR) ? path + at->base : path;
  xb_log_set_result(record_call(XB_OP_READDIR, AT_FDCWD, name, 0, 0), 0);
  errno = e;
}

#define DEF_NFTW(name, st_type, fn_var)                                                                                \
  static int name##_seen(const char *p, const st_type *st, int flag, struct FTW *at) {                                 \
    int ret = fn_var(p, st, flag, at);                                                                                 \
    walk_listed(p, flag, at, ret);                                                                                     \
    return ret;                                                                                                        \
  }                                                                                                                    \
  EXPORT int name(const char *dir, int (*fn)(const char *, const st_type *, int, struct FTW *), int fds, int flags) {  \
    if (!RESOLVE(name)) return missing_real();                                                                         \
    if (!g_log.hdr || g_filtered) return real_##name(dir, fn, fds, flags);                                             \
    __typeof__(fn_var) outer = fn_var;                                                                                 \
    int outer_flags = t_nftw_flags;                                                                                    \
    fn_var = fn;                                                                                                       \
    t_nftw_flags = flags;                                                                                              \
    int r = real_##name(dir, name##_seen, fds, flags);                                                                 \
    fn_var = outer;                                                                                                    \
    t_nftw_flags = outer_flags;                                                                                        \
    return r;                                                                                                          \
  }
DEF_NFTW(nftw, struct stat, t_nftw_fn)
DEF_NFTW(nftw64, struct stat64, t_nftw64_fn)

#define DEF_FTW(name, st_type, fn_var)                                                                                 \
  static int name##_seen(const char *p, const st_type *st, int flag) {                                                 \
    int ret = fn_var(p, st, flag);                                                                                     \
    walk_listed(p, flag, NULL, ret);                                                                                   \
    return ret;                                                                                                        \
  }                                                                                                                    \
  EXPORT int name(const char *dir, int (*fn)(const char *, const st_type *, int), int fds) {                           \
    if (!RESOLVE(name)) return missing_real();                                                                         \
    if (!g_log.hdr || g_filtered) return real_##name(dir, fn, fds);                                                    \
    __typeof__(fn_var) outer = fn_var;                                                                                 \
    int outer_flags = t_nftw_flags;                                                                                    \
    fn_var = fn;                                                                                                       \
    t_nftw_flags = 0;                                                                                                  \
    int r = real_##name(dir, name##_seen, fds);                                                                        \
    fn_var = outer;                                                                                                    \
    t_nftw_flags = outer_flags;                                                                                        \
    return r;                                                                                                          \
  }
DEF_FTW(ftw, struct stat, t_ftw_fn)
DEF_FTW(ftw64, struct stat64, t_ftw64_fn)

/*
 * fts returns a folder a second time (FTS_DP) once it read it, with fts_accpath naming it from
 * the cwd; a folder skipped (fts_set FTS_SKIP, or another device under FTS_XDEV) is returned as
 * FTS_DP too, unread: the entry last skipped is remembered to tell them apart. fts_open opens
 * the cwd to come back to (unless FTS_NOCHDIR).
 */
static __thread const void *t_fts_skipped;

#define DEF_FTS(open, read, set, fts_type, ent_type)                                                                   \
  EXPORT fts_type *open(char *const *roots, int options, int (*cmp)(const ent_type **, const ent_type **)) {           \
    if (!RESOLVE(open)) {                                                                                              \
      errno = ENOSYS;                                                                                                  \
      return NULL;                                                                                                     \
    }                                                                                                                  \
    fts_type *f = real_##open(roots, options, cmp);                                                                    \
    if (f && !(options & FTS_NOCHDIR) && g_log.hdr && !g_filtered) {                                                   \
      int e = errno;                                                                                                   \
      xb_log_set_result(record_call(XB_OP_OPEN, AT_FDCWD, ".", O_RDONLY, 0), 0);                                       \
      errno = e;                                                                                                       \
    }                                                                                                                  \
    return f;                                                                                                          \
  }                                                                                                                    \
  EXPORT int set(fts_type *f, ent_type *e, int instr) {                                                                \
    if (!RESOLVE(set)) return missing_real();                                                                          \
    if (instr == FTS_SKIP) t_fts_skipped = e;                                                                          \
    return real_##set(f, e, instr);                                                                                    \
  }                                                                                                                    \
  EXPORT ent_type *read(fts_type *f) {                                                                                 \
    if (!RESOLVE(read)) {                                                                                              \
      errno = ENOSYS;                                                                                                  \
      return NULL;                                                                                                     \
    }                                                                                                                  \
    ent_type *e = real_##read(f);                                                                                      \
    if (e && e->fts_info == FTS_DP && g_log.hdr && !g_filtered) {                                                      \
      int skipped = e == t_fts_skipped || ((f->fts_options & FTS_XDEV) && e->fts_dev != f->fts_dev);                   \
      t_fts_skipped = NULL;                                                                                            \
      int err = errno;                                                                                                 \
      if (!skipped) xb_log_set_result(record_call(XB_OP_READDIR, AT_FDCWD, e->fts_accpath, 0, 0), 0);                  \
      errno = err;                                                                                                     \
    }                                                                                                                  \
    return e;                                                                                                          \
  }
DEF_FTS(fts_open, fts_read, fts_set, FTS, FTSENT)
DEF_FTS(fts64_open, fts64_read, fts64_set, FTS64, FTSENT64)

/*
 * glob reads folders through the caller's functions when asked (GLOB_ALTDIRFUNC): given the
 * shim's own (opendir, readdir, closedir, stat, lstat: each records as when a program calls it),
 * and the caller's fields put back after, the walk is seen and the result is the same.
 */
static void *glob_opendir(const char *p) {
  return opendir(p);
}
static void glob_closedir(void *d) {
  closedir(d);
}
static struct dirent *glob_readdir(void *d) {
  return readdir(d);
}
static struct dirent64 *glob_readdir64(void *d) {
  return readdir64(d);
}

#define DEF_GLOB(name, glob_type, dirent_read, st_type, stat_fn, lstat_fn)                                             \
  static int name##_stat(const char *p, st_type *b) {                                                                  \
    return stat_fn(p, b);                                                                                              \
  }                                                                                                                    \
  static int name##_lstat(const char *p, st_type *b) {                                                                 \
    return lstat_fn(p, b);                                                                                             \
  }                                                                                                                    \
  EXPORT int name(const char *pattern, int flags, int (*err)(const char *, int), glob_type *g) {                       \
    if (!RESOLVE(name)) return GLOB_NOSPACE;                                                                           \
    if (!g_log.hdr || g_filtered || (flags & GLOB_ALTDIRFUNC)) return real_##name(pattern, flags, err, g);             \
    glob_type kept = *g;                                                                                               \
    g->gl_opendir = glob_opendir;                                                                                      \
    g->gl_readdir = dirent_read;                                                                                       \
    g->gl_closedir = glob_closedir;                                                                                    \
    g->gl_stat = name##_stat;                                                                                          \
    g->gl_lstat = name##_lstat;                                                                                        \
    int r = real_##name(pattern, flags | GLOB_ALTDIRFUNC, err, g);                                                     \
    g->gl_flags &= ~GLOB_ALTDIRFUNC;                                                                                   \
    g->gl_opendir = kept.gl_opendir;                                                                                   \
    g->gl_readdir = kept.gl_readdir;                                                                                   \
    g->gl_closedir = kept.gl_closedir;                                                                                 \
    g->gl_stat = kept.gl_stat;                                                                                         \
    g->gl_lstat = kept.gl_lstat;                                                                                       \
    return r;                                                                                                          \
  }
DEF_GLOB(glob, glob_t, glob_readdir, struct stat, stat, lstat)
DEF_GLOB(glob64, glob64_t, glob_readdir64, struct stat64, stat64, lstat64)

EXPORT ssize_t getdents64(int fd, void *buf, size_t n) {
  int32_t *slot = record_fd(XB_OP_READDIR, fd);
  RAW_OR_REAL(ssize_t, r, getdents64, (fd, buf, n), T(SYS_getdents64, fd, buf, n, 0))
  done(slot, r < 0);
  return r;
}

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
  int32_t *slot = record(XB_OP_CHDIR, AT_FDCWD, p, 0);
  if (!RESOLVE(chroot)) return missing_real();
  int r = real_chroot(p);
  done(slot, r < 0);
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
    int32_t *a = record(op1, fd1, from, arg1);                                                                         \
    int32_t *b = record(op2, fd2, to, arg2);                                                                           \
    RAW_OR_REAL(int, r, name, args, raw)                                                                               \
    done(a, r < 0);                                                                                                    \
    done(b, r < 0);                                                                                                    \
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
  int32_t *slot = NULL;
  if (addr && len > at + 1 && addr->sa_family == AF_UNIX) {
    size_t n = len - at < sizeof path - 1 ? len - at : sizeof path - 1;
    memcpy(path, (const char *)addr + at, n);
    path[n] = 0;
    slot = record(XB_OP_MKNOD, AT_FDCWD, path, S_IFSOCK);
  }
  RAW_OR_REAL(int, r, bind, (fd, addr, len), T(SYS_bind, fd, addr, len, 0))
  done(slot, r < 0);
  return r;
}

/* Metadata changes. The calls whose work glibc does in several steps (utime's conversions, a
 * flagged fchmodat's fallback) go to libc; in hybrid mode the supervisor also sees its calls. */
static long fchmodat_flags(int d, const char *p, mode_t m, int f) {
  return real_fchmodat(d, p, m, f) == 0 ? 0 : -errno;
}
DEF_PATHCALL(int, chmod, XB_OP_SETATTR, (const char *p, mode_t m), (p, m), p, AT_FDCWD, 0,
             T(SYS_fchmodat, AT_FDCWD, p, m, 0))
DEF_LIBCALL(int, lchmod, XB_OP_SETATTR, (const char *p, mode_t m), (p, m), p, AT_FDCWD, NOFOLLOW)
DEF_PATHCALL(int, fchmodat, XB_OP_SETATTR, (int d, const char *p, mode_t m, int f), (d, p, m, f), p, d, f &NOFOLLOW,
             f ? fchmodat_flags(d, p, m, f) : T(SYS_fchmodat, d, p, m, 0))
DEF_PATHCALL(int, chown, XB_OP_SETATTR, (const char *p, uid_t u, gid_t g), (p, u, g), p, AT_FDCWD, 0,
             T(SYS_fchownat, AT_FDCWD, p, u, g))
DEF_PATHCALL(int, lchown, XB_OP_SETATTR, (const char *p, uid_t u, gid_t g), (p, u, g), p, AT_FDCWD, NOFOLLOW,
             g_tramp(SYS_fchownat, AT_FDCWD, (long)p, u, g, NOFOLLOW, 0))
DEF_PATHCALL(int, fchownat, XB_OP_SETATTR, (int d, const char *p, uid_t u, gid_t g, int f), (d, p, u, g, f), p, d,
             f &NOFOLLOW, g_tramp(SYS_fchownat, d, (long)p, u, g, f, 0))
DEF_LIBCALL(int, utime, XB_OP_SETATTR, (const char *p, const struct utimbuf *t), (p, t), p, AT_FDCWD, 0)
DEF_LIBCALL(int, utimes, XB_OP_SETATTR, (const char *p, const struct timeval t[2]), (p, t), p, AT_FDCWD, 0)
DEF_LIBCALL(int, lutimes, XB_OP_SETATTR, (const char *p, const struct timeval t[2]), (p, t), p, AT_FDCWD, NOFOLLOW)
DEF_LIBCALL(int, futimesat, XB_OP_SETATTR, (int d, const char *p, const struct timeval t[2]), (d, p, t), p, d, 0)
/* A NULL path is futimens (an fd): record() skips it. */
DEF_PATHCALL(int, utimensat, XB_OP_SETATTR, (int d, const char *p, const struct timespec t[2], int f), (d, p, t, f), p,
             d, f &NOFOLLOW, T(SYS_utimensat, d, p, t, f))

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
  case SYS_fchmodat:
  case SYS_fchmodat2:
  case SYS_fchownat:
  case SYS_utimensat:
#ifdef SYS_open /* x86-64's pre-*at calls */
  case SYS_open:
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

/* syscall(2) itself: the way programs reach calls glibc has no wrapper for (openat2), or that
 * they make raw (getdents64). */
EXPORT long syscall(long nr, ...) {
  va_list ap;
  va_start(ap, nr);
  long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
  long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
  va_end(ap);
  int32_t *slot = NULL;
  if (nr == SYS_openat2) {
    uint64_t flags = 0;
    if (c && (size_t)d >= sizeof flags) memcpy(&flags, (const void *)c, sizeof flags);
    slot = record(XB_OP_OPEN, (int)a, (const char *)b, (uint32_t)flags);
  } else if (nr == SYS_getdents64 || XB_IS_GETDENTS(nr)) {
    slot = record_fd(XB_OP_READDIR, (int)a);
  } else if (nr == SYS_statx) { /* libuv's stat (node's fs.statSync) */
    slot = record(XB_OP_STAT, (int)a, (const char *)b, (uint32_t)c);
  } else if (nr == SYS_newfstatat) {
    slot = record(XB_OP_STAT, (int)a, (const char *)b, (uint32_t)d);
  } else if (nr == SYS_openat) {
    slot = record(XB_OP_OPEN, (int)a, (const char *)b, (uint32_t)c);
  } else if (nr == SYS_io_uring_setup && !g_filtered) {
    xb_log_flag(&g_log, XB_FLAG_IO_URING_UNTRACED); /* its ring's file operations: no shim sees them */
  } else if (!g_filtered && undecoded_file_call(nr)) {
    xb_log_flag(&g_log, XB_FLAG_RAW_UNTRACED); /* in hybrid mode the filter sees it */
  }
  /* Only a call recorded here may bypass the filter; any other goes to it as from libc. */
  long r = set_errno(slot && g_tramp ? g_tramp(nr, a, b, c, d, e, f) : xb_sys6(nr, a, b, c, d, e, f));
  done(slot, r < 0);
  return r;
}

/* glibc's remove: unlink, then rmdir if the name is a folder (both recorded). */
EXPORT int remove(const char *p) {
  if (unlink(p) == 0) return 0;
  return errno == EISDIR ? rmdir(p) : -1;
}

/* ---------------------------------------------------------------- exec family */

static int has_prefix(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The number of strings in a NULL-terminated vector (environment or arguments; NULL is empty). */
static size_t env_count(char *const envp[]) {
  size_t n = 0;
  if (envp)
    while (envp[n]) n++;
  return n;
}

/*
 * An exec's working memory, mapped for the call and unmapped if it returns: the exec wrappers may
 * run in a signal handler on a small stack, and a program's environment can be large. Pages a
 * call does not use are never touched, so they cost nothing.
 */
struct exec_buf {
  char **env; /* room for the caller's environment + 4 */
  char **argv; /* room for the caller's arguments + 2: the shell's, for a script without #! */
  char *found; /* XB_CANDIDATE_MAX: a PATH search's candidate */
  char *preload; /* preload_cap: a merged or trimmed LD_PRELOAD, whatever its length */
  size_t preload_cap;
  char *cwd; /* XB_SPAWN_CWD_MAX: a spawned child's folder as its file actions leave it */
  char *fd_dirs; /* XB_SPAWN_FDS * XB_SPAWN_CWD_MAX: what a spawn's open actions opened */
  int fd_of[8]; /* the fd each of those holds, -1 for none */
  void *map;
  size_t size;
};

/* A PATH element (shorter than PATH_MAX, as glibc takes it), '/', a name of up to NAME_MAX, NUL. */
#define XB_CANDIDATE_MAX (PATH_MAX + NAME_MAX + 2)
#define XB_SPAWN_CWD_MAX (2 * PATH_MAX)
#define XB_SPAWN_FDS 8

/* The value of the environment variable `name_eq` ("NAME=") in `env`, or NULL: getenv's answer
 * without getenv, which is not async-signal-safe. */
static const char *env_value(char *const env[], const char *name_eq) {
  size_t n = strlen(name_eq);
  for (size_t i = 0; env && env[i]; i++)
    if (strncmp(env[i], name_eq, n) == 0) return env[i] + n;
  return NULL;
}

static int exec_buf_get(struct exec_buf *b, char *const envp[], char *const argv[]) {
  size_t n = env_count(envp) + 5, a = env_count(argv) + 3;
  /* Room for the longest LD_PRELOAD with this shim added: a long one must not leave it out. */
  size_t longest = 0;
  for (size_t i = 0; envp && envp[i]; i++)
    if (has_prefix(envp[i], XB_ENV_PRELOAD "=")) {
      size_t len = strlen(envp[i]);
      if (len > longest) longest = len;
    }
  b->preload_cap = longest + strlen(g_self) + sizeof XB_ENV_PRELOAD + 2;
  size_t spawn = XB_SPAWN_CWD_MAX * (1 + XB_SPAWN_FDS);
  b->size = ((n + a) * sizeof(char *) + XB_CANDIDATE_MAX + b->preload_cap + spawn + 4095) & ~(size_t)4095;
  long p = XSYS(SYS_mmap, 0, b->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
  if (p < 0 && p > -4096) return (int)-p;
  b->map = (void *)p;
  b->env = (char **)p;
  b->argv = b->env + n;
  b->found = (char *)(b->argv + a);
  b->preload = b->found + XB_CANDIDATE_MAX;
  b->cwd = b->preload + b->preload_cap;
  b->fd_dirs = b->cwd + XB_SPAWN_CWD_MAX;
  for (int i = 0; i < XB_SPAWN_FDS; i++) b->fd_of[i] = -1;
  return 0;
}

static void exec_buf_put(struct exec_buf *b) {
  int e = errno;
  XSYS(SYS_munmap, b->map, b->size, 0, 0, 0);
  errno = e;
}

/* Copies `n` bytes of `s` to `out` and returns the end. */
static char *put(char *out, const char *s, size_t n) {
  memcpy(out, s, n);
  return out + n;
}

/* LD_PRELOAD's value without this shim (`value` is what follows "LD_PRELOAD="), into out (room
 * for the whole entry: the result is never longer). */
static void drop_self(const char *value, char *out) {
  static const char eq[] = XB_ENV_PRELOAD "=";
  char *o = put(out, eq, sizeof eq - 1);
  size_t self = strlen(g_self);
  for (const char *p = value; *p;) {
    size_t len = strcspn(p, ": ");
    if (len && !(len == self && strncmp(p, g_self, self) == 0)) {
      if (o[-1] != '=') *o++ = ':';
      o = put(o, p, len);
    }
    p += len;
    if (*p) p++;
  }
  *o = 0;
}

/*
 * Copies envp into b->env with the tracing variables re-inserted (or, where the shim cannot
 * follow, with it taken out of LD_PRELOAD: ld.so would refuse it there, with a message on stderr).
 */
static char **traced_env(char *const envp[], struct exec_buf *b, int secure) {
  size_t k = 0;
  int have_preload = 0, have_log = 0, have_mode = 0;
  static const char preload_eq[] = XB_ENV_PRELOAD "=";
  for (size_t i = 0; envp && envp[i]; i++) {
    char *e = envp[i];
    if (has_prefix(e, preload_eq)) {
      have_preload = 1;
      if (secure) {
        drop_self(e + sizeof preload_eq - 1, b->preload);
        e = b->preload;
      } else if (!strstr(e, g_self)) { /* exec_buf_get made room for it */
        char *o = put(b->preload, preload_eq, sizeof preload_eq - 1);
        o = put(o, g_self, strlen(g_self));
        *o++ = ':';
        const char *rest = e + sizeof preload_eq - 1;
        put(o, rest, strlen(rest) + 1);
        e = b->preload;
      }
    } else if (has_prefix(e, XB_ENV_LOG "=")) {
      have_log = 1;
    } else if (has_prefix(e, XB_ENV_MODE "=")) {
      have_mode = 1;
    }
    b->env[k++] = e;
  }
  if (!have_preload && !secure) b->env[k++] = (char *)g_env_preload;
  if (!have_log) b->env[k++] = (char *)g_env_log;
  if (!have_mode && g_env_mode[0]) b->env[k++] = (char *)g_env_mode;
  b->env[k] = NULL;
  return b->env;
}

/*
 * access(2) of `path` as the image about to be exec'd will have it: a process that is not root
 * keeps no capabilities through an exec (setpriv --reuid keeps CAP_DAC_OVERRIDE until then), so
 * the check runs with the effective set emptied for its duration. Raw calls, no records.
 */
static long access_as_next_image(const char *path, int mode, long euid) {
  struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct had[2], none[2];
  int dropped = 0;
  if (euid != 0 && xb_sys(SYS_capget, (long)&h, (long)had, 0, 0, 0) == 0 && (had[0].effective | had[1].effective)) {
    memcpy(none, had, sizeof none);
    none[0].effective = none[1].effective = 0;
    dropped = xb_sys(SYS_capset, (long)&h, (long)none, 0, 0, 0) == 0;
  }
  long r = XSYS(SYS_faccessat2, AT_FDCWD, path, mode, AT_EACCESS, 0);
  if (dropped && xb_sys(SYS_capset, (long)&h, (long)had, 0, 0, 0) != 0) r = -EPERM; /* cannot happen: our own set */
  return r;
}

/* Who this process was when the shim loaded and opened the log (so both were open to it). */
static long g_euid = -1, g_egid = -1;
static const char *g_logpath = "";

/*
 * 1 if the image `path` will run without a working shim: the loader runs it securely (real and
 * effective ids differ, or without no_new_privs a setuid, setgid or file-capability program) and
 * ignores a preload with a '/' in it; or the process changed user since the shim loaded and the
 * shim or the log is closed to it now (ld.so would print an error on the command's stderr, or
 * the shim could not record). Raw calls, no records.
 */
static int shim_cannot_follow(const char *path) {
  if (__atomic_load_n(&g_chrooted, __ATOMIC_RELAXED)) return 1; /* the shim's path is not the host's there */
  long euid = xb_sys(SYS_geteuid, 0, 0, 0, 0, 0), egid = xb_sys(SYS_getegid, 0, 0, 0, 0, 0);
  int cannot = xb_sys(SYS_getuid, 0, 0, 0, 0, 0) != euid || xb_sys(SYS_getgid, 0, 0, 0, 0, 0) != egid;
  if (!cannot && (euid != g_euid || egid != g_egid)) {
    long a = access_as_next_image(g_self, R_OK, euid);
    long b = access_as_next_image(g_logpath, R_OK | W_OK, euid);
    cannot = (a != 0 && a != -ENOSYS) || (b != 0 && b != -ENOSYS);
  }
  struct stat st;
  if (!path || XSYS(SYS_newfstatat, AT_FDCWD, path, &st, 0, 0) != 0) return cannot;
  int caps = XSYS(SYS_getxattr, path, "security.capability", NULL, 0, 0) > 0;
  if (xb_sys(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
    return cannot || (st.st_mode & (S_ISUID | S_ISGID)) || caps;
  /* no_new_privs (the seccomp filter's, in hybrid mode): the program runs without the privileges
   * it would take, and the trace says so (the exec is made from the trampoline: S does not see it). */
  if (((st.st_mode & S_ISUID) && st.st_uid != euid) || ((st.st_mode & S_ISGID) && st.st_gid != egid) ||
      (caps && euid != 0))
    xb_log_flag(&g_log, XB_FLAG_SETUID_UNPRIVILEGED);
  return cannot;
}

/* The shim will not be in the image `path` runs: say so when nothing else sees it (preload mode). */
static void note_secure(void) {
  if (!g_filtered) xb_log_flag(&g_log, XB_FLAG_SHIM_DROPPED);
}

/* In preload mode, a static program runs untraced: say so. */
static void note_static(const char *path) {
  if (g_filtered || t_busy) return;
  /* Its look at the ELF header makes raw system calls (sys.h): nothing is recorded. */
  if (xb_needs_seccomp(path)) xb_log_flag(&g_log, XB_FLAG_STATIC_UNTRACED);
}

/*
 * Finds `file` on PATH (as execvp would) into out; 1 if found. Each directory that does not hold
 * it is recorded as a missing exec: the program's outcome depends on it staying absent.
 */
static int search_path(const char *file, char *out, size_t cap) {
  const char *p = env_value(environ, "PATH=");
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
      struct stat st;
      long r = XSYS(SYS_newfstatat, AT_FDCWD, out, &st, 0, 0);
      if (r == 0 && S_ISREG(st.st_mode) && XSYS(SYS_faccessat, AT_FDCWD, out, X_OK, 0, 0) == 0) return 1;
      if (r == -ENOENT || r == -ENOTDIR) xb_log_set_result(record_call(XB_OP_EXEC, AT_FDCWD, out, 0, 0), (int32_t)-r);
    }
    if (!*end) return 0;
    p = end + 1;
  }
}

/*
 * Runs `file` traced: records the exec and re-inserts the tracing environment. `resolved` is its
 * path (NULL if not found on PATH); `dirfd`/`flags` are execveat's.
 */
static int exec_traced(int dirfd, const char *file, const char *resolved, int flags, char *const argv[],
                       char *const envp[], struct exec_buf *b) {
  const char *shown = resolved ? resolved : file;
  int32_t *slot = shown && shown[0] ? record(XB_OP_EXEC, dirfd, shown, 0) : record_fd(XB_OP_EXEC, dirfd);
  int secure = shim_cannot_follow(dirfd == AT_FDCWD ? resolved : NULL);
  if (secure)
    note_secure();
  else if (resolved && dirfd == AT_FDCWD)
    note_static(resolved);
  char **env = traced_env(envp, b, secure);
  int r;
  if (g_tramp)
    r = (int)set_errno(g_tramp(SYS_execveat, dirfd, (long)file, (long)argv, (long)env, flags, 0));
  else if (dirfd == AT_FDCWD && flags == 0)
    r = real_execve(file, argv, env);
  else
    r = (int)set_errno(xb_sys6(SYS_execveat, dirfd, (long)file, (long)argv, (long)env, flags, 0));
  done(slot, 1);
  return r;
}

/*
 * The C library's answer to an image the kernel will not run (ENOEXEC: a script without #!),
 * in execvp, execlp and execvpe only: /bin/sh runs `file` with the arguments after argv[0].
 * Returns with the shell's errno if that exec fails too.
 */
static void exec_as_script(const char *file, char *const argv[], char *const envp[], struct exec_buf *b) {
  size_t argc = env_count(argv);
  b->argv[0] = (char *)"/bin/sh";
  b->argv[1] = (char *)file;
  for (size_t i = 1; i < argc; i++) b->argv[i + 1] = argv[i];
  b->argv[argc > 1 ? argc + 1 : 2] = NULL;
  exec_traced(AT_FDCWD, b->argv[0], b->argv[0], 0, b->argv, envp, b);
}

/* One execvp attempt: the exec, then the shell for a script without #!. */
static void exec_or_script(const char *file, char *const argv[], char *const envp[], struct exec_buf *b) {
  exec_traced(AT_FDCWD, file, file, 0, argv, envp, b);
  if (errno == ENOEXEC) exec_as_script(file, argv, envp, b);
}

static int do_execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) {
  if (!RESOLVE(execve)) return missing_real();
  if (!g_log.hdr) return (int)set_errno(xb_sys6(SYS_execveat, dirfd, (long)path, (long)argv, (long)envp, flags, 0));
  struct exec_buf b;
  int err = exec_buf_get(&b, envp, NULL);
  if (err) {
    errno = err;
    return -1;
  }
  int r = exec_traced(dirfd, path, path, flags, argv, envp, &b);
  exec_buf_put(&b);
  return r;
}

static int do_execve(const char *path, char *const argv[], char *const envp[]) {
  if (!RESOLVE(execve)) return missing_real();
  if (!g_log.hdr) return real_execve(path, argv, envp);
  return do_execveat(AT_FDCWD, path, argv, envp, 0);
}

/*
 * execvpe as the C library runs it, each attempt traced: a name with a '/' is run as given, any
 * other is tried in each PATH directory in turn ("/bin:/usr/bin" when unset; an empty element is
 * the cwd), going on after EACCES (reported if nothing runs), ENOENT, ESTALE, ENOTDIR, ENODEV
 * and ETIMEDOUT and stopping at any other error; an image the kernel will not run goes to
 * /bin/sh (exec_as_script). A failed attempt is recorded with its outcome (missing, or stat).
 */
static int do_execvpe(const char *file, char *const argv[], char *const envp[]) {
  if (!RESOLVE(execvpe) || !RESOLVE(execve)) return missing_real();
  if (!g_log.hdr) return real_execvpe(file, argv, envp);
  if (file && !*file) {
    errno = ENOENT;
    return -1;
  }
  size_t flen = file ? strnlen(file, NAME_MAX + 1) : 0;
  if (flen > NAME_MAX && !strchr(file, '/')) {
    errno = ENAMETOOLONG;
    return -1;
  }
  struct exec_buf b;
  int err = exec_buf_get(&b, envp, argv);
  if (err) {
    errno = err;
    return -1;
  }
  if (!file || strchr(file, '/')) {
    exec_or_script(file, argv, envp, &b);
    exec_buf_put(&b);
    return -1;
  }
  const char *path = env_value(environ, "PATH=");
  if (!path) path = "/bin:/usr/bin";
  size_t plen = strnlen(path, PATH_MAX - 1) + 1;
  int eacces = 0;
  for (const char *p = path;;) {
    const char *end = strchrnul(p, ':');
    size_t dlen = (size_t)(end - p);
    if (dlen >= plen) { /* PATH cut at PATH_MAX: glibc goes on from the ':' (an empty element) */
      if (!*end) break;
      p = end;
      continue;
    }
    memcpy(b.found, p, dlen);
    b.found[dlen] = '/';
    memcpy(b.found + dlen + (dlen ? 1 : 0), file, flen + 1);
    exec_or_script(b.found, argv, envp, &b);
    switch (errno) {
    case EACCES:
      eacces = 1;
      /* fall through */
    case ENOENT:
    case ESTALE:
    case ENOTDIR:
    case ENODEV:
    case ETIMEDOUT:
      break;
    default: /* found, but it would not run */
      exec_buf_put(&b);
      return -1;
    }
    if (!*end) break;
    p = end + 1;
  }
  if (eacces) errno = EACCES;
  exec_buf_put(&b);
  return -1;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
  return do_execve(path, argv, envp);
}
EXPORT int execv(const char *path, char *const argv[]) {
  return do_execve(path, argv, environ);
}
EXPORT int execvp(const char *file, char *const argv[]) {
  return do_execvpe(file, argv, environ);
}
EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
  return do_execvpe(file, argv, envp);
}
EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) {
  return do_execveat(dirfd, path, argv, envp, flags);
}
/* 0 for a NULL vector; a function of its own, so the compiler does not trust the header's nonnull. */
static int vec_given(char *const *v) {
  return v != NULL;
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[]) {
  /* glibc's checks, before any system call */
  if (fd < 0 || !vec_given(argv) || !vec_given(envp)) {
    errno = EINVAL;
    return -1;
  }
  return do_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
}

#define COLLECT_ARGS(first, argv)                                                                                      \
  size_t argc_ = 1;                                                                                                    \
  va_list ap_;                                                                                                         \
  va_start(ap_, first);                                                                                                \
  while (va_arg(ap_, char *)) argc_++;                                                                                 \
  va_end(ap_);                                                                                                         \
  char *argv[argc_ + 1];                                                                                               \
  argv[0] = (char *)(first);                                                                                           \
  va_start(ap_, first);                                                                                                \
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

/*
 * posix_spawn's file actions (an open, a chdir, an fchdir) run in the child glibc makes for the
 * spawn, through its hidden calls: the filter sees them (hybrid mode), the shim does not. glibc
 * keeps them in an array whose element is private (spawn_int.h), mirrored here; each action the
 * wrappers below add is checked against the mirror, so a glibc that lays them out otherwise is
 * noticed instead of misread: its spawns with file actions then mark the trace incomplete.
 */
struct xb_spawn_action {
  int tag;
  union {
    struct {
      int fd;
      char *path;
      int oflag;
      mode_t mode;
    } open;
    struct {
      char *path;
    } chdir;
    struct {
      int fd;
    } fchdir;
  } u;
};
enum { XB_SPAWN_OPEN = 2, XB_SPAWN_CHDIR = 3, XB_SPAWN_FCHDIR = 4 };
static int g_fa_checked; /* 1 << tag for each kind of action whose layout a wrapper confirmed */
static int g_fa_mismatch; /* a wrapper found an action laid out otherwise */

/* The action just added to `fa`, if it is of kind `tag`. */
static struct xb_spawn_action *added(posix_spawn_file_actions_t *fa, int tag) {
  if (fa->__used <= 0 || !fa->__actions) return NULL;
  struct xb_spawn_action *a = (struct xb_spawn_action *)(void *)fa->__actions + (fa->__used - 1);
  return a->tag == tag ? a : NULL;
}

static void confirm(int tag, int same) {
  if (same)
    __atomic_fetch_or(&g_fa_checked, 1 << tag, __ATOMIC_RELAXED);
  else
    __atomic_store_n(&g_fa_mismatch, 1, __ATOMIC_RELAXED);
}

static int same_text(const char *a, const char *b) {
  return a && b && strcmp(a, b) == 0;
}

EXPORT int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd, const char *path, int oflag,
                                            mode_t mode) {
  if (!RESOLVE(posix_spawn_file_actions_addopen)) return ENOSYS;
  int r = real_posix_spawn_file_actions_addopen(fa, fd, path, oflag, mode);
  if (r == 0) {
    struct xb_spawn_action *a = added(fa, XB_SPAWN_OPEN);
    confirm(XB_SPAWN_OPEN, a && a->u.open.fd == fd && same_text(a->u.open.path, path) && a->u.open.oflag == oflag &&
                               a->u.open.mode == mode);
  }
  return r;
}

EXPORT int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *fa, const char *path) {
  if (!RESOLVE(posix_spawn_file_actions_addchdir_np)) return ENOSYS;
  int r = real_posix_spawn_file_actions_addchdir_np(fa, path);
  if (r == 0) {
    struct xb_spawn_action *a = added(fa, XB_SPAWN_CHDIR);
    confirm(XB_SPAWN_CHDIR, a && same_text(a->u.chdir.path, path));
  }
  return r;
}

EXPORT int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa, int fd) {
  if (!RESOLVE(posix_spawn_file_actions_addfchdir_np)) return ENOSYS;
  int r = real_posix_spawn_file_actions_addfchdir_np(fa, fd);
  if (r == 0) {
    struct xb_spawn_action *a = added(fa, XB_SPAWN_FCHDIR);
    confirm(XB_SPAWN_FCHDIR, a && a->u.fchdir.fd == fd);
  }
  return r;
}

/* Appends a record of `path` relative to `base` (NULL: none known) for process `pid`, its
 * outcome `result`; returns its result slot. For calls another process made (a spawned child). */
static int32_t *record_based(int op, const char *base, const char *path, uint32_t arg, pid_t pid, int32_t result) {
  if (!may_record() || !path || !path[0]) return NULL;
  if (path[0] != '/' && !base) { /* a folder that could not be named: say so, no bare name */
    xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED);
    return NULL;
  }
  t_busy = 1;
  const size_t max = XB_REC_MAX - XB_SPAWN_CWD_MAX - sizeof(struct xb_rec);
  uint64_t h;
  struct xb_rec r = new_rec(op, pid, arg, scan_path(path, max, &h), max);
  r.result = result;
  if (path[0] != '/') r.base_len = (uint16_t)strlen(base);
  int32_t *slot = xb_log_append_local(&g_log, &t_cur, &r, base, path);
  t_busy = 0;
  return slot;
}

/* `path` taken from the folder `dir` into out (XB_SPAWN_CWD_MAX): an absolute path as it is, a
 * relative one after `dir` (normalized when the trace is read). 0 if it does not fit or `dir`
 * is unknown (""). */
static int follow(char *out, const char *dir, const char *path) {
  size_t d = strlen(dir), p = strlen(path);
  if (path[0] == '/') {
    if (p >= XB_SPAWN_CWD_MAX) return 0;
    memmove(out, path, p + 1);
    return 1;
  }
  if (!d || d + 1 + p >= XB_SPAWN_CWD_MAX) return 0;
  if (out != dir) memmove(out, dir, d);
  out[d] = '/';
  memcpy(out + d + 1, path, p + 1);
  return 1;
}

/*
 * Follows a spawn's file actions as its child runs them: b->cwd ends as the folder the program
 * is looked up from (1 if an action moved it). With `rec`, each open and chdir is recorded for
 * `pid` with `result`. Only kinds of action whose layout was confirmed are read (only the
 * wrappers above add them).
 */
static int spawn_actions(const posix_spawn_file_actions_t *fa, struct exec_buf *b, int rec, int32_t result, pid_t pid) {
  long k = XSYS(SYS_getcwd, b->cwd, XB_SPAWN_CWD_MAX, 0, 0, 0);
  if (k <= 0) b->cwd[0] = 0;
  int checked = __atomic_load_n(&g_fa_checked, __ATOMIC_RELAXED), moved = 0;
  const struct xb_spawn_action *a = (const struct xb_spawn_action *)(const void *)fa->__actions;
  for (int i = 0; i < fa->__used; i++, a++) {
    b->fd_of[i % XB_SPAWN_FDS] = -1;
    if (a->tag < 0 || a->tag > 30 || !(checked & (1 << a->tag))) continue; /* close, dup2 and the like: no path */
    const char *base = b->cwd[0] ? b->cwd : NULL;
    if (a->tag == XB_SPAWN_OPEN) {
      if (rec) record_based(XB_OP_OPEN, base, a->u.open.path, (uint32_t)a->u.open.oflag, pid, result);
      char *dir = b->fd_dirs + XB_SPAWN_CWD_MAX * (size_t)(i % XB_SPAWN_FDS);
      if (follow(dir, b->cwd, a->u.open.path)) b->fd_of[i % XB_SPAWN_FDS] = a->u.open.fd;
    } else if (a->tag == XB_SPAWN_CHDIR) {
      if (rec) record_based(XB_OP_CHDIR, base, a->u.chdir.path, 0, pid, result);
      if (!follow(b->cwd, b->cwd, a->u.chdir.path)) b->cwd[0] = 0;
      moved = 1;
    } else if (a->tag == XB_SPAWN_FCHDIR) {
      int fd = a->u.fchdir.fd, found = 0;
      for (int j = i - 1; j >= 0 && j > i - XB_SPAWN_FDS && !found; j--) /* opened by one of the last actions */
        if (b->fd_of[j % XB_SPAWN_FDS] == fd)
          found = follow(b->cwd, "", b->fd_dirs + XB_SPAWN_CWD_MAX * (size_t)(j % XB_SPAWN_FDS));
      if (!found) { /* this process's own fd, inherited */
        char link[40];
        fmt_fd_link(link, fd);
        long n = XSYS(SYS_readlinkat, AT_FDCWD, link, b->cwd, XB_SPAWN_CWD_MAX - 1, 0);
        b->cwd[n > 0 && n < XB_SPAWN_CWD_MAX - 1 && b->cwd[0] == '/' ? n : 0] = 0;
      }
      moved = 1;
    }
  }
  return moved;
}

/*
 * The exec of a spawn with file actions, recorded once it returned `r`, relative to `dir` (where
 * the actions left the child; NULL: this process's cwd). A failure may be an action's: the exec
 * is then recorded only as a program that is missing now (its likely cause), never as run.
 */
static void spawn_exec(const char *target, const char *dir, int r, pid_t child, char *scratch) {
  if (!target) return;
  int relative = target[0] != '/' && dir;
  if (r != 0) {
    struct stat st;
    const char *at = target;
    if (relative) at = dir[0] && follow(scratch, dir, target) ? scratch : NULL;
    long e = at ? XSYS(SYS_newfstatat, AT_FDCWD, at, &st, 0, 0) : 0;
    if (e != -ENOENT && e != -ENOTDIR) return;
    r = (int)-e;
  }
  if (relative)
    record_based(XB_OP_EXEC, dir[0] ? dir : NULL, target, 0, child, r);
  else
    xb_log_set_result(record(XB_OP_EXEC, AT_FDCWD, target, 0), r);
}

static int do_spawn(pid_t *pid, const char *path, int search, const posix_spawn_file_actions_t *fa,
                    const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  if (!RESOLVE(posix_spawn) || !RESOLVE(posix_spawnp)) return ENOSYS;
  if (!g_log.hdr) return (search ? real_posix_spawnp : real_posix_spawn)(pid, path, fa, attr, argv, envp);
  struct exec_buf b;
  int err = exec_buf_get(&b, envp, NULL);
  if (err) return err;
  /* File actions: in hybrid mode the filter sees the child make them, and its exec; without it
   * the shim reads them, and records the exec once the spawn says how it went. */
  int actions = fa && fa->__used > 0;
  int readable = actions && !__atomic_load_n(&g_fa_mismatch, __ATOMIC_RELAXED);
  if (actions && !readable && !g_filtered) xb_log_flag(&g_log, XB_FLAG_SPAWN_UNREAD);
  int moved = readable && spawn_actions(fa, &b, 0, 0, 0);
  const char *target = path;
  if (search && path && !strchr(path, '/')) target = search_path(path, b.found, PATH_MAX) ? b.found : NULL;
  int32_t *slot = target && !actions ? record(XB_OP_EXEC, AT_FDCWD, target, 0) : NULL;
  int secure = shim_cannot_follow(target);
  if (secure)
    note_secure();
  else if (target)
    note_static(target);
  char **env = traced_env(envp, &b, secure);
  int r = (search ? real_posix_spawnp : real_posix_spawn)(pid, path, fa, attr, argv, env);
  if (slot) xb_log_set_result(slot, r);
  if (actions && !g_filtered) {
    pid_t child = r == 0 && pid ? *pid : current_pid();
    /* The actions ran in the child: their outcome is known only when all succeeded. */
    if (readable) spawn_actions(fa, &b, 1, r == 0 ? 0 : XB_RESULT_PENDING, child);
    spawn_exec(target, moved ? b.cwd : NULL, r, child, b.fd_dirs);
  }
  exec_buf_put(&b);
  return r;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  return do_spawn(pid, path, 0, fa, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
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

static void record_objects(void) {
  dl_iterate_phdr(record_object, NULL);
}

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
  pid_t pid = (pid_t)xb_sys(SYS_getpid, 0, 0, 0, 0, 0);
  if (g_pid_page) *g_pid_page = pid;
  g_pid_fallback = pid;
  t_cur.pos = t_cur.end = 0; /* the parent keeps writing its chunk */
  memset(t_seen, 0, sizeof t_seen); /* this process records its own first accesses */
  t_skip.path = NULL;
  t_pending = NULL;
}

/* The wipe-on-fork page holding this process's pid (see g_pid_page). */
static void setup_pid_page(void) {
  long p = xb_sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p < 0 && p > -4096) return;
  if (xb_sys(SYS_madvise, p, 4096, MADV_WIPEONFORK, 0, 0) != 0) { /* before Linux 4.14 */
    xb_sys(SYS_munmap, p, 4096, 0, 0, 0);
    return;
  }
  g_pid_page = (volatile pid_t *)p;
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

/* Opens and maps the log (from the trampoline in hybrid mode: the supervisor need not see it). */
static int attach_log(const char *path) {
  long fd = XSYS(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC, 0, 0);
  if (fd < 0) return (int)fd;
  int err = xb_log_attach_fd(&g_log, (int)fd);
  xb_sys(SYS_close, fd, 0, 0, 0, 0);
  return err;
}

/* Set once the set-up below has run (or started), from its constructor or from init_early. */
static int g_init_ran;

__attribute__((constructor)) static void xbench_preload_init(void) {
  if (g_init_ran) return;
  g_init_ran = 1;
  const char *logpath = getenv(XB_ENV_LOG);
  if (!logpath) return;
  t_busy = 1;
  Dl_info info;
  if (dladdr((void *)&xbench_preload_init, &info) && info.dli_fname && info.dli_fname[0] == '/')
    g_self = keep(info.dli_fname, "");
  g_env_preload = keep(XB_ENV_PRELOAD "=", g_self);
  g_env_log = KEEP_ENV(XB_ENV_LOG);
  g_env_mode = KEEP_ENV(XB_ENV_MODE);
  g_logpath = g_env_log[0] ? g_env_log + sizeof XB_ENV_LOG : "";
  g_euid = xb_sys(SYS_geteuid, 0, 0, 0, 0, 0);
  g_egid = xb_sys(SYS_getegid, 0, 0, 0, 0, 0);
  int hybrid = strcmp(g_env_mode, XB_ENV_MODE "=" XB_MODE_HYBRID) == 0;
  setup_pid_page();
  after_fork();
  /* Resolve every real function now, while no signal handler or vfork child can be inside us. */
#define XB_RESOLVE_NOW(name) RESOLVE(name);
  XB_INTERPOSED(XB_RESOLVE_NOW)
#undef XB_RESOLVE_NOW
  RESOLVE(dlopen);
  g_filtered = hybrid;
  if (hybrid) g_tramp = map_trampoline();
  if (attach_log(logpath) == 0 && !g_pid_page && pthread_atfork(NULL, NULL, after_fork) != 0) g_log.hdr = NULL;
  t_busy = 0;
  if (!g_log.hdr) return;
  xb_log_flag(&g_log, XB_FLAG_USED_PRELOAD);
  if (!g_filtered) {
    /* No filter sees the loader: record the objects it mapped, and its cache (an approximation:
     * a program whose libraries all sit in default paths or RPATHs skips it). */
    if (xb_sys(SYS_faccessat, AT_FDCWD, (long)"/etc/ld.so.cache", F_OK, 0, 0) == 0)
      xb_log_set_result(record_call(XB_OP_OPEN, AT_FDCWD, "/etc/ld.so.cache", O_RDONLY, 0), 0);
    unsigned long long adds = 0;
    dl_iterate_phdr(note_adds, &adds);
    record_objects();
    g_seen_adds = adds;
  }
  /* The image now running (an interpreter started through #!, or a program spawned by libc
   * internals that bypass the exec wrappers). */
  xb_log_set_result(record_link(XB_OP_PROC, "/proc/self/exe", (uint32_t)xb_sys(SYS_getppid, 0, 0, 0, 0, 0)), 0);
}

/*
 * Another library's constructor can run before this one (ld.so initializes the objects loaded
 * after the shim first: libselinux reads /proc/filesystems and /etc/selinux/config there). The
 * first call recorded sets the shim up then, instead of letting those accesses go unseen.
 */
static int init_early(void) {
  if (g_init_ran || t_busy) return 0;
  xbench_preload_init();
  return g_log.hdr != NULL;
}
