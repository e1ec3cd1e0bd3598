/*
 * The preload shim's internal header: what its role files share, all of it hidden (nothing here
 * is exported from the shared object; only the interposed libc entry points, marked EXPORT, are).
 * The shim is one shared object built from these files (build/native-units.ts):
 *   shim.c         system calls (the trampoline), the real functions, the recording core, the
 *                  objects the loader mapped, and the set-up (constructor, fork, early calls)
 *   shim-open.c    the open family: open, openat, fopen, setmntent, creat, mkstemp, tmpfile,
 *                  mkdtemp, open by handle
 *   shim-stat.c    the stat family, access, readlink, statfs, watches, handles
 *   shim-dirs.c    listings: opendir and readdir, getdents64, scandir(at), nftw, ftw, fts, glob
 *   shim-names.c   calls that change names or metadata (unlink, mkdir, rename, link, chmod...),
 *                  chdir and chroot, syscall(2)
 *   shim-exec.c    the exec family, and the environment and checks an exec or a spawn shares
 *   shim-spawn.c   posix_spawn and its file actions
 * The hot path (record, done and the helpers under them) is static inline here, so each wrapper
 * inlines it as it did in one file; its state is defined once, in shim.c. Its thread-local state
 * is one small struct (t_self) reached through a TLS descriptor: see XB_TLS.
 */
#ifndef XBENCH_SHIM_H
#define XBENCH_SHIM_H

#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include "../common/env.h"
#include "progkind.h"
#include "../common/log.h"
#include "../unix/logfile.h"
#include "sys.h"
#include "trampoline.h"

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
#include <mntent.h>
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

/* An interposed libc entry point: the only symbols the shim exports. */
#define EXPORT __attribute__((visibility("default"), hot))
/* Shared between the role files, never exported (whatever -fvisibility the build passes). */
#define XB_HIDDEN __attribute__((visibility("hidden")))
/*
 * Thread-locals (built with TLS descriptors, -mtls-dialect=gnu2 on x86-64, arm64's default).
 * Initial-exec TLS must sit in the static TLS block, and where an audit namespace (LD_AUDIT:
 * sotruss, latrace, profilers) or the program's own libraries have taken its reserve, ld.so
 * refuses the shim and the program does not start. A descriptor resolves to the same static
 * offset wherever there is room (always for a preloaded object without LD_AUDIT; under
 * LD_AUDIT, from ld.so's optional reserve, which the few bytes of t_self fit), and to glibc's
 * dynamic TLS where there is none: then a thread's first access allocates its block
 * (docs/tracer-overhead.md counts what each model costs an open).
 */
#define XB_TLS __attribute__((visibility("hidden")))

extern char **environ;

/* "NAME=value" strings re-inserted at exec ("" when absent), and this shim's path. */
extern XB_HIDDEN const char *g_self;
extern XB_HIDDEN const char *g_env_preload;
extern XB_HIDDEN const char *g_env_log;
extern XB_HIDDEN const char *g_env_mode;
/* Who this process was when the shim loaded and opened the log (so both were open to it). */
extern XB_HIDDEN long g_euid, g_egid;
extern XB_HIDDEN const char *g_logpath;

/* A thread's own state: the reentrancy guard and the chunk of the log it writes into. */
struct xb_thread {
  int busy; /* a record is being made (a signal handler's call inside it records nothing) */
  pid_t pid; /* the process whose chunk `cur` is: a forked child reserves its own */
  struct xb_cursor cur;
};
extern __thread struct xb_thread t_self XB_TLS;

/*
 * Buffers for a path's folder (getcwd, a dirfd's or an fd's /proc link), PATH_MAX each: a
 * signal handler's interposed call may run on a small sigaltstack, so none on the stack, and
 * none per thread (that would put 4 KiB in the TLS block). A record takes one for its own
 * duration, marked with its process's pid: held by a pid not this process's, it was held when
 * the process forked, by a thread the child does not have, and is free.
 */
#define XB_BASES 64
XB_HIDDEN char *base_get(pid_t pid);
XB_HIDDEN void base_put(char *base);

/* ---------------------------------------------------------------- system calls */

typedef long (*xb_tramp_fn)(long nr, long a, long b, long c, long d, long e, long f);
/* Set in hybrid mode once the trampoline page is mapped: then wrappers make their calls there. */
extern XB_HIDDEN xb_tramp_fn g_tramp;
/* Hybrid mode: a filter covers this process and reports every call not made from the trampoline
 * (so what the shim leaves unrecorded, it records). */
extern XB_HIDDEN int g_filtered;

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
  X(fopen) X(fopen64) X(freopen) X(freopen64) X(setmntent) X(tmpfile) X(tmpfile64) \
  X(stat) X(lstat) X(stat64) X(lstat64) X(fstatat) X(fstatat64) X(statx) \
  X(__xstat) X(__lxstat) X(__fxstatat) X(__xstat64) X(__lxstat64) X(__fxstatat64) \
  X(access) X(faccessat) X(euidaccess) X(eaccess) X(statfs) X(statfs64) X(statvfs) X(statvfs64) \
  X(readlink) X(readlinkat) X(opendir) X(fdopendir) X(closedir) X(readdir) X(readdir64) X(readdir_r) \
  X(readdir64_r) X(getdents64) X(scandir) X(scandir64) X(scandirat) X(scandirat64) \
  X(execve) X(execvpe) X(posix_spawn) X(posix_spawnp) \
  X(rename) X(renameat) X(renameat2) X(unlink) X(unlinkat) X(link) X(linkat) X(symlink) X(symlinkat) \
  X(mkdir) X(mkdirat) X(rmdir) X(chdir) X(chroot) X(truncate) X(truncate64) \
  X(mknod) X(mknodat) X(mkfifo) X(mkfifoat) X(bind) \
  X(chmod) X(lchmod) X(fchmodat) X(chown) X(lchown) X(fchownat) \
  X(utime) X(utimes) X(lutimes) X(futimesat) X(utimensat) X(futimens) X(futimes) X(fchmod) X(fchown) \
  X(setxattr) X(lsetxattr) X(fsetxattr) X(removexattr) X(lremovexattr) X(fremovexattr) \
  X(getxattr) X(lgetxattr) X(listxattr) X(llistxattr) \
  X(mkstemp) X(mkstemp64) X(mkostemp) X(mkostemp64) X(mkstemps) X(mkstemps64) X(mkostemps) X(mkostemps64) \
  X(mkdtemp) X(remove) X(ftw) X(ftw64) X(nftw) X(nftw64) X(fts_open) X(fts64_open) X(fts_read) X(fts64_read) X(fts_set) X(fts64_set) \
  X(glob) X(glob64) X(inotify_add_watch) X(fanotify_mark) X(name_to_handle_at) X(open_by_handle_at) \
  X(posix_spawn_file_actions_addopen) X(posix_spawn_file_actions_addchdir_np) X(posix_spawn_file_actions_addfchdir_np)
// clang-format on
#define XB_DECLARE_REAL(name) extern XB_HIDDEN __typeof__(name) *real_##name;
XB_INTERPOSED(XB_DECLARE_REAL)

static inline int missing_real(void) {
  errno = ENOSYS;
  return -1;
}

/* ---------------------------------------------------------------- recording */

extern XB_HIDDEN struct xb_log g_log;
/* Set once this process changed its root (chroot): its paths are no longer the host's, so the
 * shim records nothing more and leaves it to the filter, which names them from outside. */
extern XB_HIDDEN int g_chrooted;
/* This process's pid, in a page of its own marked MADV_WIPEONFORK (see shim.c); where the page
 * could not be set up, at g_pid_fallback, kept by pthread_atfork only. */
extern XB_HIDDEN volatile pid_t *g_pid_page;
extern XB_HIDDEN pid_t g_pid_fallback;

/* "/proc/self/fd/N" for `fd` into out (room for 40 bytes); returns its length. */
XB_HIDDEN size_t fmt_fd_link(char *out, int fd);

/*
 * Repeats: a process that opens or stats the same absolute path again (same kind of access)
 * after a successful first time adds nothing to the deduplicated output, so it skips the
 * record: hashing the path is cheaper than writing a record, which on VMs costs a fresh page
 * every ~50 records. If the repeat then fails, done() records it after the fact (the first
 * record already told the world the path was touched). One table per process, shared by its
 * threads (one 8-byte word an entry: a key whose call succeeded, written once it did); the key
 * holds the pid, so a forked child, which inherits the table, records its own first accesses.
 */
#define XB_SEEN 128
extern XB_HIDDEN uint64_t g_seen[XB_SEEN];
extern XB_HIDDEN int32_t g_skipped; /* the slot record() returns for a skipped repeat */

/* A record's result slot and, for a call whose success a repeat may skip on, its key (else 0). */
struct xb_call {
  int32_t *slot;
  uint64_t key;
};

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
/* The same, the hash begun from `seed`. */
static inline __attribute__((always_inline)) size_t scan_path_from(const char *path, size_t max, uint64_t *hash,
                                                                   uint64_t seed) {
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  uint64_t h = seed;
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

static inline __attribute__((always_inline)) size_t scan_path(const char *path, size_t max, uint64_t *hash) {
  return scan_path_from(path, max, hash, 0xcbf29ce484222325ull);
}

/* The dedup key of an access: the path's hash (begun from the process's pid), its length, the
 * kind of access (for an open its flags that change the modes; the other calls' arguments change
 * none, and a key that tells more apart only skips less). Never 0 (an empty entry of g_seen). */
static inline uint64_t access_key(uint64_t h, size_t n, int op, uint32_t arg) {
  uint32_t kind = arg & (O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | O_DIRECTORY | O_PATH);
  return (h ^ ((uint64_t)op << 56) ^ ((uint64_t)kind * 0x9e3779b97f4a7c15ull) ^ n) | 1;
}

/* A forked child's first call (see g_pid_page), and a call made before the shim's constructor ran. */
XB_HIDDEN void after_fork(void);
XB_HIDDEN int init_early(void);

static inline pid_t current_pid(void) {
  pid_t pid = *g_pid_page;
  if (__builtin_expect(pid == 0, 0)) { /* a fork that skipped the atfork handler */
    after_fork();
    pid = *g_pid_page;
  }
  return pid;
}

/* getcwd's answer for a cwd that was removed (getcwd fails with ENOENT), into base: see shim.c. */
XB_HIDDEN long removed_cwd(char *base);
/* The name a /proc link gives something removed, its " (deleted)" mark taken off: see shim.c. */
XB_HIDDEN long read_removed(const char *link, char *out);
/* A dirfd's folder name without the kernel's mark of a removed folder: see shim.c. */
XB_HIDDEN long unmark_removed(char *base, long n);
/* What a record says of its call, before its outcome is known. */
struct xb_what {
  int op;
  pid_t pid;
  uint32_t arg, rflags;
};
/* Records a relative path with its folder (see record_held). */
XB_HIDDEN int32_t *record_relative(struct xb_thread *t, struct xb_what w, int dirfd, const char *path, size_t n);
/* A record too long for a thread's chunk (put_record). */
XB_HIDDEN int32_t *put_long_record(struct xb_what w, const char *base, size_t base_len, const char *path, size_t n);

/* The record `w` of a path of `n` bytes (cut at `max`) after base_len bytes of its folder, its
 * outcome pending. */
static inline __attribute__((always_inline)) struct xb_rec rec_of(struct xb_what w, size_t base_len, size_t n,
                                                                  size_t max) {
  return (struct xb_rec){.op = (uint8_t)w.op,
                         .src = XB_SRC_PRELOAD,
                         .base_len = (uint16_t)base_len,
                         .pid = (uint32_t)w.pid,
                         .arg = w.op == XB_OP_OPEN ? xb_rec_open_flags(w.arg) : w.arg,
                         .result = XB_RESULT_PENDING,
                         .path_len = (uint32_t)n,
                         .rflags = w.rflags | (n == max ? XB_RF_TRUNCATED : 0),
                         .tsc = xb_now()};
}

/* The longest path a record holds whole (its folder may take up to PATH_MAX more). */
#define XB_PATH_KEPT (XB_REC_MAX - PATH_MAX - sizeof(struct xb_rec))

/*
 * Appends the record `w` of `path` (n bytes, after base_len bytes of `base`), its outcome
 * pending, into this thread's chunk: built where it goes, not on the stack and copied (a tenth
 * of a record's instructions). Returns its result slot, NULL if the log is full or closed.
 */
static inline __attribute__((always_inline)) int32_t *
put_record(struct xb_thread *t, struct xb_what w, const char *base, size_t base_len, const char *path, size_t n) {
  uint32_t len = (uint32_t)(sizeof(struct xb_rec) + base_len + n);
  uint64_t size = (8u + (uint64_t)len + 7u) & ~7ull;
  if (__builtin_expect(size > XB_CHUNK / 4, 0)) return put_long_record(w, base, base_len, path, n);
  char *frame = xb_log_reserve_local(&g_log, &t->cur, size);
  if (!frame) return NULL;
  xb_slow();
  __atomic_store_n((uint32_t *)(frame + 4), len, __ATOMIC_RELAXED);
  struct xb_rec *out = (struct xb_rec *)(frame + 8);
  *out = rec_of(w, base_len, n, XB_PATH_KEPT);
  char *data = frame + 8 + sizeof *out;
  if (base_len) xb_copy(data, base, base_len);
  xb_copy(data + base_len, path, n);
  __atomic_store_n((uint32_t *)frame, XB_FRAME_COMMIT, __ATOMIC_RELEASE);
  return &out->result;
}

/* This thread's chunk, checked against the process it writes for (a forked child's first record
 * in a thread its parent had reserved one in starts its own). */
static inline __attribute__((always_inline)) void own_chunk(struct xb_thread *t, pid_t pid) {
  if (__builtin_expect(t->pid != pid, 0)) {
    t->pid = pid;
    t->cur.pos = t->cur.end = 0;
  }
}

/* The hash seed of a process's paths: a forked child's keys (access_key) are not its parent's. */
static inline uint64_t path_seed(pid_t pid) {
  return 0xcbf29ce484222325ull ^ (uint64_t)(uint32_t)pid;
}

/* A record of `path` (n bytes, scanned) with its folder when relative; t->busy held. */
static inline __attribute__((always_inline)) int32_t *put_path(struct xb_thread *t, struct xb_what w, int dirfd,
                                                               const char *path, size_t n) {
  own_chunk(t, w.pid);
  return path[0] == '/' ? put_record(t, w, path, 0, path, n) : record_relative(t, w, dirfd, path, n);
}

/* A record of `op` on `path` (relative to dirfd), never skipped, with t->busy already held by the
 * caller (whose buffer `path` may be). */
static inline __attribute__((always_inline)) int32_t *record_held(struct xb_thread *t, int op, int dirfd,
                                                                  const char *path, uint32_t arg) {
  pid_t pid = current_pid();
  uint64_t h;
  size_t n = scan_path_from(path, XB_PATH_KEPT, &h, path_seed(pid));
  struct xb_what w = {op, pid, arg, 0};
  return put_path(t, w, dirfd, path, n);
}

/* Whether records may be made now: the log is open and this process has not changed its root. */
static inline int may_record(void) {
  if (__builtin_expect(!g_log.hdr, 0) && !init_early()) return 0;
  return !g_chrooted;
}

/* Appends a record for `path` (relative to dirfd) unless this thread is inside one already, and
 * returns its result slot (NULL if not recorded, or &g_skipped for a repeat: see above; only
 * when `may_skip`) with its key. */
XB_HIDDEN struct xb_call record_access(int op, int dirfd, const char *path, uint32_t arg, int may_skip);

/* The same, for a record whose outcome is stored at once or by finish(): its slot. */
static inline int32_t *record_call(int op, int dirfd, const char *path, uint32_t arg, int may_skip) {
  return record_access(op, dirfd, path, arg, may_skip).slot;
}

/*
 * A name no process can have mapped: in the first page, or past the top of user space ((char *)-1,
 * a kernel address). The kernel fails the call with EFAULT before any lookup; reading the name
 * here would fault instead. A bad pointer inside user space still faults here: telling those
 * apart would cost a system call per record.
 */
static inline int unmappable(const char *path) {
  uintptr_t a = (uintptr_t)path;
#ifdef __aarch64__
  a &= ~((uintptr_t)0xff << 56); /* top-byte-ignore: a tagged pointer is a valid one */
#endif
  return a < 4096 || a >= ((uintptr_t)1 << 56);
}

static inline struct xb_call record(int op, int dirfd, const char *path, uint32_t arg) {
  return record_access(op, dirfd, path, arg, 1);
}

/* Records a skipped repeat that failed after all, with errno as its outcome (see record_held). */
XB_HIDDEN void record_failed_repeat(int op, int dirfd, const char *path, uint32_t arg);

/* Stores the outcome of the real call whose record() was `c` (of `op` on `path` from `dirfd`,
 * with `arg`, as given to record); errno is left untouched. */
static inline __attribute__((always_inline)) void done(struct xb_call c, int failed, int op, int dirfd,
                                                       const char *path, uint32_t arg) {
  if (__builtin_expect(c.slot == &g_skipped, 0)) {
    if (failed) record_failed_repeat(op, dirfd, path, arg);
    return;
  }
  if (!c.slot) return;
  xb_log_set_result(c.slot, failed ? errno : 0);
  if (c.key && !failed) __atomic_store_n(&g_seen[c.key % XB_SEEN], c.key, __ATOMIC_RELAXED);
}

/* The same for a record that no repeat skips on (record_call, record_fd). */
static inline void finish(int32_t *slot, int failed) {
  xb_log_set_result(slot, failed ? errno : 0);
}

/* Records `op` on the file the /proc symlink `link` names, with `arg`. */
XB_HIDDEN int32_t *record_link(int op, const char *link, uint32_t arg);

/* Records `op` on the file open as `fd` (its path read back from /proc/self/fd), with `arg`. */
static inline int32_t *record_fd_arg(int op, int fd, uint32_t arg) {
  char link[40];
  fmt_fd_link(link, fd);
  return record_link(op, link, arg);
}

/* Records a listing of the directory open as `fd`. */
static inline int32_t *record_fd(int op, int fd) {
  return record_fd_arg(op, fd, 0);
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
    struct xb_call slot = record(op, dirfd_expr, path_expr, (uint32_t)(arg_expr));                                     \
    RAW_OR_REAL(ret, r, name, args, raw)                                                                               \
    done(slot, r < 0, op, dirfd_expr, path_expr, (uint32_t)(arg_expr));                                                \
    return r;                                                                                                          \
  }
/* The same for calls with no single system call behind them: always the real function (in
 * hybrid mode the supervisor also sees the calls it makes). */
#define DEF_LIBCALL(ret, name, op, params, args, path_expr, dirfd_expr, arg_expr)                                      \
  EXPORT ret name params {                                                                                             \
    struct xb_call slot = record(op, dirfd_expr, path_expr, (uint32_t)(arg_expr));                                     \
    if (!RESOLVE(name)) return missing_real();                                                                         \
    ret r = real_##name args;                                                                                          \
    done(slot, r < 0, op, dirfd_expr, path_expr, (uint32_t)(arg_expr));                                                \
    return r;                                                                                                          \
  }
#define T(nr, a, b, c, d) g_tramp(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define NOFOLLOW AT_SYMLINK_NOFOLLOW

/* ---------------------------------------------------------------- exec and spawn */

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
XB_HIDDEN const char *env_value(char *const env[], const char *name_eq);
/* Maps an exec's working memory for envp and argv (NULL: none); 0 or an errno. */
XB_HIDDEN int exec_buf_get(struct exec_buf *b, char *const envp[], char *const argv[]);
XB_HIDDEN void exec_buf_put(struct exec_buf *b);
/* envp with the tracing variables re-inserted, or the shim taken out of LD_PRELOAD (`secure`). */
XB_HIDDEN char **traced_env(char *const envp[], struct exec_buf *b, int secure);
/* 1 if the image `path` will run without a working shim (see shim-exec.c). */
XB_HIDDEN int shim_cannot_follow(const char *path);
/* The shim will not be in the image about to run: say so when nothing else sees it. */
XB_HIDDEN void note_secure(void);
/* In preload mode, a static program runs untraced: say so. */
XB_HIDDEN void note_static(const char *path);

#endif
