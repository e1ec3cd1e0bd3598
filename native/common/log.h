/*
 * Shared record format between the preload shim, the seccomp supervisor and the
 * TypeScript reader (src/tracer/log.ts). Little-endian, LP64: the same bytes on x86-64 and arm64
 * (open flags are stored in x86-64's numbering, see xb_rec_open_flags).
 *
 * The log is one file, created and sized (sparse) by the supervisor, mapped MAP_SHARED by
 * every writer. Its path travels in the environment (XBENCH_TRACE_LOG); each process opens
 * it with O_CLOEXEC, maps it and closes the fd, so nothing leaks into the traced program.
 *
 *   [0, 4096)  struct xb_log_header
 *   [4096, tail)  frames, each 8-byte aligned:
 *       u32 commit   XB_FRAME_COMMIT, stored last with release order
 *       u32 len      payload bytes (excluding this 8-byte frame header and padding)
 *       payload      struct xb_rec, then base bytes, then path bytes (no NULs)
 *
 * Appending is lock-free: one atomic fetch-add on `tail` reserves a frame, the writer fills
 * len, then the payload, then the commit word. The shim reserves a thread-local chunk of
 * XB_CHUNK bytes at a time instead (one atomic per chunk, and no touch of the header page per
 * record, which costs a TLB miss after every syscall on PTI kernels); an unused chunk tail is
 * zeros, which the reader skips as padding. A writer killed half-way leaves a frame whose
 * commit word is not XB_FRAME_COMMIT: the reader skips it by `len` when that is plausible,
 * else scans forward 8 bytes at a time for the next committed frame. A frame that would end
 * beyond `capacity` is not written; `dropped` counts it (the trace is then incomplete).
 */
#ifndef XBENCH_LOG_H
#define XBENCH_LOG_H

#include <stddef.h>
#include <stdint.h>

#define XBENCH_LOG_VERSION 2
#define XB_LOG_MAGIC 0x00314f4c4e525458ULL /* "XTRNLO1\0" */
#define XB_LOG_HEADER_SIZE 4096u
#define XB_LOG_DEFAULT_CAPACITY (1ULL << 30) /* sparse: only written pages cost anything */
#define XB_FRAME_COMMIT 0x31434258u /* "XBC1" */
#define XB_REC_MAX (64u * 1024u) /* longest payload; longer paths are truncated */

/* Header flags (atomic OR). Any of the INCOMPLETE ones marks the trace incomplete. */
#define XB_FLAG_USED_PRELOAD 0x1u
#define XB_FLAG_USED_SECCOMP 0x2u
#define XB_FLAG_USED_DLL 0x4u /* Windows: the injected hook DLL (native/win/) recorded */
#define XB_FLAG_SECCOMP_REFUSED 0x10u /* seccomp unavailable: static programs untraced */
#define XB_FLAG_STATIC_UNTRACED 0x20u /* preload-only mode ran a static program */
#define XB_FLAG_FOREIGN_ARCH 0x40u /* a syscall ABI not the helper's own was used (i386/x32; AArch32) */
#define XB_FLAG_UNREADABLE 0x80u /* a path could not be read from a tracee */
#define XB_FLAG_LAUNCHER_ERROR 0x100u /* the supervisor hit an internal error */
#define XB_FLAG_SHIM_DROPPED 0x200u /* preload mode: an exec the shim could not follow (setuid, user change) */
#define XB_FLAG_SIP_STRIPPED 0x400u /* macOS: a SIP-protected program ran with DYLD_* removed, untraced */
#define XB_FLAG_CHILD_UNTRACED 0x800u /* Windows: a child process could not be injected */
#define XB_FLAG_PATH_UNRESOLVED 0x1000u /* a relative path's folder was too long to name (over 4,096 bytes) */
#define XB_FLAG_IO_URING_UNTRACED 0x2000u /* preload mode: io_uring_setup made (through syscall(2)) */
#define XB_FLAG_SETUID_UNPRIVILEGED 0x4000u /* a setuid/setgid/capability program ran without (no_new_privs) */
#define XB_FLAG_RAW_UNTRACED 0x8000u /* preload mode: a file call made through syscall(2) the shim does not decode */
#define XB_FLAG_SPAWN_UNREAD 0x20000u /* preload mode: a posix_spawn's file actions could not be read */
/* The command's own process ended while descendants ran on (--detach-ok): the trace ended with it,
 * and the log takes no more records (a writer stops at its next chunk). */
#define XB_FLAG_DETACHED 0x40000u
#define XB_FLAG_CHROOT_UNTRACED 0x80000u /* preload mode: a program changed its root (chroot) */
#define XB_FLAG_HANDLE_UNNAMED 0x100000u /* a file opened by handle (open_by_handle_at) could not be named */
#define XB_FLAG_FIFO_UNTOLD 0x200000u /* a FIFO opened O_WRONLY|O_NONBLOCK: ENXIO or not, untold */
/* preload mode: code ran in a link-map namespace of its own (an LD_AUDIT or DT_AUDIT audit module,
 * dlmopen), whose own C library the shim does not interpose */
#define XB_FLAG_NAMESPACE_UNTRACED 0x400000u
/* a program changed its root in a mount namespace of its own (pivot_root): the host cannot name
 * what it names */
#define XB_FLAG_ROOT_UNNAMED 0x800000u
#define XB_FLAGS_INCOMPLETE 0xfefff0u
/* Header flags that say the command ran differently from an untraced run (what ran was traced). */
#define XB_FLAG_CHANGED_IO_URING 0x10000u /* the filter refused io_uring_setup (ENOSYS) */

struct xb_log_header {
  uint64_t magic;
  uint32_t version;
  uint32_t header_size;
  uint64_t capacity;
  uint64_t tail; /* atomic: offset of the next free byte */
  uint64_t dropped; /* atomic: frames that did not fit */
  uint64_t flags; /* atomic OR of XB_FLAG_* */
  int32_t seccomp_errno; /* why seccomp was refused, 0 if it was not */
  uint32_t reserved0;
  uint64_t supervisor_maxrss_kb; /* the supervisor's peak RSS, written at exit when the log
                                   passed 1 MiB (else 0) */
  uint64_t notifications; /* seccomp notifications handled */
};

/* Operations. The reader maps op + arg + result to modes. */
enum xb_op {
  XB_OP_OPEN = 1, /* arg = open flags, x86-64 numbering (xb_rec_open_flags) */
  XB_OP_STAT = 2, /* stat family, statx, statfs */
  XB_OP_ACCESS = 3,
  XB_OP_READLINK = 4,
  XB_OP_OPENDIR = 5, /* scandir: opened and listed (opendir alone is an O_DIRECTORY open) */
  XB_OP_EXEC = 6, /* exec family, posix_spawn, or the running image at process start */
  XB_OP_RENAME_FROM = 7,
  XB_OP_RENAME_TO = 8,
  XB_OP_UNLINK = 9,
  XB_OP_MKDIR = 10,
  XB_OP_RMDIR = 11,
  XB_OP_CHDIR = 12,
  XB_OP_PROC = 13, /* process start: path = /proc/self/exe target, arg = ppid */
  XB_OP_TRUNCATE = 14,
  XB_OP_LINK = 15, /* new name of link/symlink */
  XB_OP_READDIR = 16, /* getdents on an fd, a stream's first readdir: path = the fd's directory (absolute) */
  XB_OP_MKNOD = 17, /* a new node: mknod, mkfifo, bind of an AF_UNIX path socket */
  /* a metadata change: chmod, chown, utime and setxattr families (arg: AT_SYMLINK_NOFOLLOW, and
   * XB_SETATTR_MODE for a change of mode, which a symlink cannot take) */
  XB_OP_SETATTR = 18,
};
#define XB_SETATTR_MODE 0x1u
/* for seccomp's look (the reader takes no mode from it): a user.* extended attribute set or
 * removed, which only a regular file or a folder can hold (EPERM on a symlink, a device, a FIFO) */
#define XB_SETATTR_USER_XATTR 0x2u

enum xb_src { XB_SRC_PRELOAD = 1, XB_SRC_SECCOMP = 2, XB_SRC_DLL = 3 };

#define XB_RESULT_PENDING INT32_MIN /* the call had not returned (or exec succeeded) */
#define XB_RESULT_UNKNOWN (INT32_MIN + 1) /* seccomp: continued in the kernel, result not seen */
/* Seccomp records carry, instead of the call's outcome (never seen), what a look just before
 * the call says it will be: ENOENT / ENOTDIR for a missing path, EEXIST for a creating call on
 * a path that exists, EACCES for an exec of something not a regular file, else 0 (the path
 * exists) or XB_RESULT_UNKNOWN. */

#define XB_RF_TRUNCATED 0x1u /* path longer than recorded */
#define XB_RF_UNREADABLE 0x2u /* path could not be read */
#define XB_RF_BASE_DIRFD 0x4u /* base is the directory of a dirfd, not the cwd */

struct xb_rec {
  uint8_t op;
  uint8_t src;
  uint16_t base_len; /* bytes of base (absolute dir the path is relative to), 0 if none */
  uint32_t pid;
  uint32_t arg;
  int32_t result;
  uint32_t path_len;
  uint32_t rflags;
  uint64_t tsc; /* time stamp counter when recorded: orders records across chunks (first pid) */
};

/* The time stamp counter (invariant on current x86-64): ~10 ns, no syscall, no vDSO page. On
 * arm64 the virtual counter, readable from user space on Linux and macOS alike. */
static inline uint64_t xb_now(void) {
#if defined(__aarch64__)
  uint64_t v;
  __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  return __builtin_ia32_rdtsc();
#endif
}

/* Open flags as the log stores them: x86-64's numbering, so one reader serves every helper.
 * arm64 numbers four bits differently (DIRECTORY, NOFOLLOW, DIRECT, LARGEFILE); the rest agree. */
static inline uint32_t xb_rec_open_flags(uint32_t f) {
#if defined(__aarch64__)
  const uint32_t dir = 040000u, nofollow = 0100000u, direct = 0200000u, large = 0400000u; /* arm64 */
  uint32_t out = f & ~(dir | nofollow | direct | large);
  if (f & dir) out |= 0200000u;
  if (f & nofollow) out |= 0400000u;
  if (f & direct) out |= 040000u;
  if (f & large) out |= 0100000u;
  return out;
#else
  return f;
#endif
}

struct xb_log {
  struct xb_log_header *hdr;
  char *base; /* mapping start (== hdr) */
  uint64_t capacity; /* mapped bytes */
};

/* Fills a new log's header (mapped, zeroed); the magic goes last, so a reader never sees half. */
static inline void xb_log_init_header(struct xb_log_header *h, uint64_t capacity) {
  h->version = XBENCH_LOG_VERSION;
  h->header_size = XB_LOG_HEADER_SIZE;
  h->capacity = capacity;
  h->tail = XB_LOG_HEADER_SIZE;
  __atomic_store_n(&h->magic, XB_LOG_MAGIC, __ATOMIC_RELEASE);
}

/* A thread's reserved chunk of the log (see xb_log_append_local). Zero = none. */
struct xb_cursor {
  uint64_t pos, end;
};
#define XB_CHUNK 4096u

static inline __attribute__((always_inline)) void xb_copy(char *dst, const char *src, size_t n) {
  __builtin_memcpy(dst, src, n); /* measured: libc's memcpy beats an inline byte loop here */
}

#ifdef XBENCH_SLOW_NS
#include <time.h>
/* Calibration builds only (`XBENCH_CFLAGS=-DXBENCH_SLOW_NS=2000`): a fixed busy delay per
 * recorded access, so `xbench bench tracer` can show that a slower tracer moves its rows. */
static inline void xb_slow(void) {
  struct timespec t0, t;
  if (clock_gettime(CLOCK_MONOTONIC, &t0) != 0) return;
  do {
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return;
  } while ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) < (XBENCH_SLOW_NS));
}
#else
static inline __attribute__((always_inline)) void xb_slow(void) {}
#endif

static inline __attribute__((always_inline)) int32_t *
xb_frame_write(char *frame, uint32_t len, const struct xb_rec *rec, const char *base, const char *path) {
  xb_slow();
  __atomic_store_n((uint32_t *)(frame + 4), len, __ATOMIC_RELAXED);
  struct xb_rec *out = (struct xb_rec *)(frame + 8);
  *out = *rec;
  char *data = frame + 8 + sizeof *rec;
  if (rec->base_len) xb_copy(data, base, rec->base_len); /* absolute paths have none: no call for nothing */
  xb_copy(data + rec->base_len, path, rec->path_len);
  __atomic_store_n((uint32_t *)frame, XB_FRAME_COMMIT, __ATOMIC_RELEASE);
  return &out->result;
}

/*
 * Appends one record. Returns a pointer to its result field, which the caller may set with
 * xb_log_set_result once the call returns, or NULL if the log is absent or full.
 * Async-signal-safe: no allocation, no locks. Atomics only, so every OS's writer shares it.
 */
static inline int32_t *xb_log_append(struct xb_log *log, const struct xb_rec *rec, const char *base, const char *path) {
  struct xb_log_header *h = log->hdr;
  if (!h) return (int32_t *)0;
  uint32_t len = (uint32_t)sizeof *rec + rec->base_len + rec->path_len;
  uint64_t size = (8u + (uint64_t)len + 7u) & ~7ull;
  if (__atomic_load_n(&h->flags, __ATOMIC_RELAXED) & XB_FLAG_DETACHED) return (int32_t *)0;
  uint64_t off = __atomic_fetch_add(&h->tail, size, __ATOMIC_RELAXED);
  if (off + size > log->capacity) {
    __atomic_fetch_add(&h->dropped, 1, __ATOMIC_RELAXED);
    return (int32_t *)0;
  }
  return xb_frame_write(log->base + off, len, rec, base, path);
}

/*
 * 1 if the calling thread's chunk `cur` has `size` bytes free (at most XB_CHUNK), reserving a new
 * chunk when it has not; 0 if the log is full or closed.
 */
static inline __attribute__((always_inline)) int xb_log_room_local(struct xb_log *log, struct xb_cursor *cur,
                                                                   uint64_t size) {
  if (cur->pos + size <= cur->end) return 1;
  if (__atomic_load_n(&log->hdr->flags, __ATOMIC_RELAXED) & XB_FLAG_DETACHED) return 0;
  uint64_t off = __atomic_fetch_add(&log->hdr->tail, XB_CHUNK, __ATOMIC_RELAXED);
  if (off + XB_CHUNK > log->capacity) {
    __atomic_fetch_add(&log->hdr->dropped, 1, __ATOMIC_RELAXED);
    cur->pos = cur->end = 0;
    return 0;
  }
  cur->pos = off;
  cur->end = off + XB_CHUNK;
  return 1;
}

/*
 * A frame of `size` bytes (8-aligned, at most XB_CHUNK / 4) from the calling thread's chunk
 * `cur` (see xb_log_room_local): its address, or NULL if the log is full or closed. Inline,
 * touching only the chunk's page in the common case.
 */
static inline __attribute__((always_inline)) char *xb_log_reserve_local(struct xb_log *log, struct xb_cursor *cur,
                                                                        uint64_t size) {
  if (!xb_log_room_local(log, cur, size)) return (char *)0;
  uint64_t off = cur->pos;
  cur->pos += size;
  return log->base + off;
}

/* Like xb_log_append, from the calling thread's chunk `cur` (see xb_log_reserve_local). */
static inline __attribute__((always_inline)) int32_t *xb_log_append_local(struct xb_log *log, struct xb_cursor *cur,
                                                                          const struct xb_rec *rec, const char *base,
                                                                          const char *path) {
  uint32_t len = (uint32_t)sizeof *rec + rec->base_len + rec->path_len;
  uint64_t size = (8u + (uint64_t)len + 7u) & ~7ull;
  if (size > XB_CHUNK / 4) return xb_log_append(log, rec, base, path);
  char *frame = xb_log_reserve_local(log, cur, size);
  return frame ? xb_frame_write(frame, len, rec, base, path) : (int32_t *)0;
}
static inline void xb_log_set_result(int32_t *slot, int32_t result) {
  if (slot) __atomic_store_n(slot, result, __ATOMIC_RELEASE);
}
static inline void xb_log_flag(struct xb_log *log, uint64_t flag) {
  if (log->hdr) __atomic_fetch_or(&log->hdr->flags, flag, __ATOMIC_RELAXED);
}

#endif
