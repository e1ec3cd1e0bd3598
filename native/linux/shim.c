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
 * (trampoline.h). The wrappers then make their calls there, raw, instead of calling libc: they are
 * recorded here at preload's cost, and the supervisor is notified only of what the shim cannot
 * see (ld.so's opens, glibc's internal calls, static programs). Preload mode: no filter, the
 * wrappers call libc.
 *
 * This file holds the system calls, the recording core, the objects the loader mapped and the
 * set-up; the wrappers live in the role files shim.h lists, one shared object with this one.
 */
#include "shim.h"

/* ---------------------------------------------------------------- state */

/* What the role files share is defined here, in this one file, and declared in shim.h: the hot
 * state then stays together (see g_log below). */

/* Strings kept from start-up, packed into one arena: they then share a page or two instead of
 * one PATH_MAX array each (every page first written costs a fault, ~12 us on slow VMs). */
#define XB_KEPT_MAX (PATH_MAX + 32)
static char g_kept[8 * XB_KEPT_MAX];
static size_t g_kept_used;
XB_HIDDEN const char *g_self = ""; /* this shim's path */
XB_HIDDEN const char *g_env_preload = "";
XB_HIDDEN const char *g_env_log = "";
XB_HIDDEN const char *g_env_mode = "";
XB_HIDDEN long g_euid = -1, g_egid = -1;
XB_HIDDEN const char *g_logpath = "";
__thread struct xb_thread t_self XB_TLS;
XB_HIDDEN uint64_t g_seen[XB_SEEN];
XB_HIDDEN int32_t g_skipped;

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
XB_HIDDEN xb_tramp_fn g_tramp;
XB_HIDDEN int g_filtered;

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

/* ---------------------------------------------------------------- real functions */

#define XB_DEFINE_REAL(name) XB_HIDDEN __typeof__(name) *real_##name;
XB_INTERPOSED(XB_DEFINE_REAL)

/* Hot state, defined after the real-function pointers so they share a page: on a PTI kernel
 * without PCID each page touched after a syscall costs a TLB miss. */
XB_HIDDEN struct xb_log g_log;
XB_HIDDEN int g_chrooted;
/*
 * This process's pid, in a page of its own marked MADV_WIPEONFORK: a child made by a raw clone or
 * _Fork (which skip pthread_atfork) reads 0 there, and its first record then takes a chunk of its
 * own instead of writing into its parent's.
 */
XB_HIDDEN pid_t g_pid_fallback; /* kept by pthread_atfork where the page could not be set up */
XB_HIDDEN volatile pid_t *g_pid_page = &g_pid_fallback;

/* ---------------------------------------------------------------- recording */

/* The hot path is inline in shim.h; these are its out-of-line calls. */

XB_HIDDEN size_t fmt_fd_link(char *out, int fd) {
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
 * The folder a relative path is relative to (the cwd, or the dirfd's) into buf (cap bytes, at
 * most PATH_MAX): its length, or -ERANGE when it needs more room than cap, -ENAMETOOLONG when
 * it is too long to name at all, another -errno when it cannot be had (the path is then recorded
 * without it). A removed folder's name is looked for only in a PATH_MAX buffer.
 */
static inline __attribute__((always_inline)) long folder_name(int dirfd, char *buf, size_t cap, uint32_t *rflags) {
  long k;
  if (dirfd == AT_FDCWD) {
    k = XSYS(SYS_getcwd, buf, cap, 0, 0, 0);
    if (__builtin_expect(k == -ENOENT, 0)) k = cap < PATH_MAX ? -ERANGE : removed_cwd(buf);
    return k > 0 ? k - 1 : k; /* the kernel counts the NUL */
  }
  char link[40];
  fmt_fd_link(link, dirfd);
  *rflags |= XB_RF_BASE_DIRFD;
  k = XSYS(SYS_readlinkat, AT_FDCWD, link, buf, cap, 0);
  if (k >= (long)cap) return cap < PATH_MAX ? -ERANGE : -ENAMETOOLONG; /* cut short */
  if (k <= 0 || buf[0] != '/') return k < 0 ? k : -ENOENT;
  if (buf[k - 1] != ')') return k;
  return cap < PATH_MAX ? -ERANGE : unmark_removed(buf, k);
}

/* The room a relative path's record leaves for its folder's name in a thread's chunk, which
 * takes a new chunk when it has less. */
#define XB_FOLDER_ROOM 256u

/*
 * A relative path's record, with the folder it is relative to, whose name is read straight into
 * the record; a folder with a longer name (or one removed) is named into a base buffer, then
 * copied.
 */
static inline __attribute__((always_inline)) int32_t *relative_record(struct xb_thread *t, struct xb_what w, int dirfd,
                                                                      const char *path, size_t n) {
  const uint64_t head = 8 + sizeof(struct xb_rec);
  if (head + n + XB_FOLDER_ROOM <= XB_CHUNK && xb_log_room_local(&g_log, &t->cur, head + n + XB_FOLDER_ROOM)) {
    uint64_t room = t->cur.end - t->cur.pos;
    char *frame = g_log.base + t->cur.pos;
    size_t cap = room - head - n < PATH_MAX ? room - head - n : PATH_MAX;
    long k = folder_name(dirfd, frame + head, cap, &w.rflags);
    if (k > 0) {
      uint32_t len = (uint32_t)(sizeof(struct xb_rec) + (size_t)k + n);
      t->cur.pos += (8u + (uint64_t)len + 7u) & ~7ull;
      __atomic_store_n((uint32_t *)(frame + 4), len, __ATOMIC_RELAXED);
      struct xb_rec *out = (struct xb_rec *)(frame + 8);
      *out = rec_of(w, (size_t)k, n, XB_PATH_KEPT);
      xb_copy(frame + head + k, path, n);
      __atomic_store_n((uint32_t *)frame, XB_FRAME_COMMIT, __ATOMIC_RELEASE);
      return &out->result;
    }
    if (k == -ENAMETOOLONG) goto unnamed;
    w.rflags &= ~(uint32_t)XB_RF_BASE_DIRFD; /* set again below */
  }
  char *base = base_get(w.pid);
  long k = base ? folder_name(dirfd, base, PATH_MAX, &w.rflags) : -ENOMEM;
  if (__builtin_expect(k == -ENAMETOOLONG, 0)) {
    base_put(base);
    goto unnamed;
  }
  int32_t *slot = put_record(t, w, base ? base : path, k > 0 ? (size_t)k : 0, path, n);
  base_put(base);
  return slot;
unnamed: /* a folder too long to name: say so, no bare name */
  xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED);
  return NULL;
}

XB_HIDDEN int32_t *record_relative(struct xb_thread *t, struct xb_what w, int dirfd, const char *path, size_t n) {
  return relative_record(t, w, dirfd, path, n);
}

/*
 * A path through a process's magic /proc link (sys.h: /proc/PID/cwd/..., /proc/self/fd/N, /dev/fd/N)
 * is recorded as the file it reaches, which the link names (a link alone only where the call
 * follows it); a link to no file by name (a pipe, a socket, a file removed) keeps the name given. Returns
 * the record's slot, or &g_not_linked when the path is not so recorded; never skipped as a repeat
 * (an fd number names another file once reused).
 */
static int32_t g_not_linked;
__attribute__((cold, noinline)) static int32_t *record_through_link(int op, const char *path, uint32_t arg) {
  size_t link = xb_magic_link(path);
  if (!link || (path[link] != '/' && !xb_follows_last(op, arg))) return &g_not_linked;
  struct xb_thread *t = &t_self;
  if (t->busy) return &g_not_linked;
  t->busy = 1;
  char name[XB_MAGIC_MAX + 1];
  memcpy(name, path, link);
  name[link] = 0;
  char *target = base_get(current_pid());
  long k = target ? XSYS(SYS_readlinkat, AT_FDCWD, name, target, PATH_MAX - 1, 0) : -ENOMEM;
  size_t rest = strlen(path + link);
  int named = k > 0 && k < PATH_MAX - 1 && target[0] == '/';
  /* A file removed, or made with O_TMPFILE, has no name to give: the link's own stays. */
  if (named && target[k - 1] == ')') named = unmark_removed(target, k) == k;
  named = named && (size_t)k + rest < PATH_MAX;
  int32_t *slot = &g_not_linked;
  if (named) {
    memcpy(target + k, path + link, rest + 1);
    slot = record_held(t, op, AT_FDCWD, target, arg);
  }
  base_put(target);
  t->busy = 0;
  return slot;
}

__attribute__((hot, noinline)) XB_HIDDEN struct xb_call record_access(int op, int dirfd, const char *path, uint32_t arg,
                                                                      int may_skip) {
  struct xb_call c = {NULL, 0};
  if (!may_record() || unmappable(path) || !path[0]) return c;
  pid_t pid = current_pid();
  uint64_t h;
  size_t n = scan_path_from(path, XB_PATH_KEPT, &h, path_seed(pid));
  if (path[0] == '/') {
    /* Before the repeats: an fd number names another file once reused. */
    if (__builtin_expect(path[1] == 'p' || path[1] == 'd', 0)) {
      int32_t *slot = record_through_link(op, path, arg);
      if (slot != &g_not_linked) return (struct xb_call){slot, 0};
    }
    if (cacheable(op)) {
      c.key = access_key(h, n, op, arg);
      /* A skip writes nothing: it needs neither this thread's state nor its guard. */
      if (may_skip && __atomic_load_n(&g_seen[c.key % XB_SEEN], __ATOMIC_RELAXED) == c.key) {
        c.slot = &g_skipped;
        return c;
      }
    }
  }
  struct xb_thread *t = &t_self;
  __asm__("" : "+r"(t)); /* computed once: a TLS descriptor call is no cheaper to redo than to keep */
  if (t->busy) return (struct xb_call){NULL, 0};
  t->busy = 1;
  struct xb_what w = {op, pid, arg, 0};
  own_chunk(t, pid);
  c.slot = path[0] == '/' ? put_record(t, w, path, 0, path, n) : relative_record(t, w, dirfd, path, n);
  t->busy = 0;
  return c;
}

__attribute__((cold, noinline)) XB_HIDDEN void record_failed_repeat(int op, int dirfd, const char *path, uint32_t arg) {
  int e = errno;
  xb_log_set_result(record_call(op, dirfd, path, arg, 0), e);
  errno = e;
}

/* The base buffers (see XB_BASES) and the pid holding each, 0 when free. */
static char g_bases[XB_BASES][PATH_MAX];
static uint32_t g_base_owner[XB_BASES];

/*
 * A free base buffer, or NULL when every one stays held by another thread of this process
 * (yielding to them between tries): the path is then recorded without its folder, which the
 * reader leaves out and says so.
 */
XB_HIDDEN char *base_get(pid_t pid) {
  for (int round = 0; round < 1000; round++) {
    for (unsigned i = 0; i < XB_BASES; i++) {
      uint32_t v = __atomic_load_n(&g_base_owner[i], __ATOMIC_RELAXED);
      if (v == (uint32_t)pid) continue;
      if (__atomic_compare_exchange_n(&g_base_owner[i], &v, (uint32_t)pid, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return g_bases[i];
    }
    xsys(SYS_sched_yield, 0, 0, 0, 0, 0);
  }
  return NULL;
}

XB_HIDDEN void base_put(char *base) {
  if (base) __atomic_store_n(&g_base_owner[(base - g_bases[0]) / PATH_MAX], 0, __ATOMIC_RELEASE);
}

__attribute__((cold, noinline)) XB_HIDDEN int32_t *put_long_record(struct xb_what w, const char *base, size_t base_len,
                                                                   const char *path, size_t n) {
  struct xb_rec r = rec_of(w, base_len, n, XB_PATH_KEPT);
  return xb_log_append(&g_log, &r, base, path);
}

#define XB_MARK_LEN ((long)XB_REMOVED_MARK_LEN)

/* The name the /proc link `link` gives something removed, into out (PATH_MAX bytes), without the
 * kernel's mark: its length, or -errno (-ENOENT when it bears no such mark). */
XB_HIDDEN long read_removed(const char *link, char *out) {
  long k = XSYS(SYS_readlinkat, AT_FDCWD, link, out, PATH_MAX - 1, 0);
  if (k < 0) return k;
  if (k >= PATH_MAX - 1) return -ENAMETOOLONG; /* cut short */
  if (out[0] != '/' || !xb_marked_removed(out, (size_t)k)) return -ENOENT;
  out[k - XB_MARK_LEN] = 0;
  return k - XB_MARK_LEN;
}

/*
 * A dirfd's folder, named by its /proc link (n bytes of base, shorter than PATH_MAX), that may
 * bear the kernel's mark of a removed folder: the mark is taken off (the name it had, as the
 * supervisor names it) unless a folder of that very name exists. Returns the length kept.
 */
__attribute__((cold, noinline)) XB_HIDDEN long unmark_removed(char *base, long n) {
  if (!xb_marked_removed(base, (size_t)n)) return n;
  struct stat st;
  base[n] = 0;
  if (XSYS(SYS_newfstatat, AT_FDCWD, base, &st, AT_SYMLINK_NOFOLLOW, 0) != -ENOENT) return n;
  base[n - XB_MARK_LEN] = 0;
  return n - XB_MARK_LEN;
}

/*
 * The name of a cwd that was removed (getcwd fails with ENOENT): the one it had, as the
 * supervisor names it. Counted as getcwd counts (the NUL included); -errno when even that fails:
 * the path is then recorded without its folder, left out when the trace is read, and the trace
 * says so.
 */
__attribute__((cold, noinline)) XB_HIDDEN long removed_cwd(char *base) {
  long k = read_removed("/proc/self/cwd", base);
  return k > 0 ? k + 1 : k;
}

/* Records `op` on the file the /proc symlink `link` names, with `arg`. */
XB_HIDDEN int32_t *record_link(int op, const char *link, uint32_t arg) {
  if (!may_record()) return NULL;
  struct xb_thread *t = &t_self;
  if (t->busy) return NULL;
  t->busy = 1;
  int32_t *slot = NULL;
  char *name = base_get(current_pid());
  long k = name ? XSYS(SYS_readlinkat, AT_FDCWD, link, name, PATH_MAX - 1, 0) : -ENOMEM;
  if (k == -ENAMETOOLONG || k >= PATH_MAX - 1) xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED); /* see record_held */
  if (k > 0 && k < PATH_MAX - 1 && name[0] == '/') {
    name[k] = 0;
    slot = record_held(t, op, AT_FDCWD, name, arg);
  }
  base_put(name);
  t->busy = 0;
  return slot;
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

static __typeof__(dlopen) *real_dlopen; /* resolved apart from XB_INTERPOSED, by the set-up below */

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
  if (h && g_log.hdr && !t_self.busy) {
    unsigned long long adds = 0;
    dl_iterate_phdr(note_adds, &adds);
    if (adds != g_seen_adds) {
      record_objects();
      g_seen_adds = adds;
    }
  }
  return h;
}

/*
 * Code in a link-map namespace of its own (an audit module of LD_AUDIT or of the program's
 * DT_AUDIT, which ld.so loads before the program; a library loaded with dlmopen) calls its own
 * copy of the C library, which no preload reaches: without a filter to see those calls, the trace
 * says so. glibc 2.35+ chains the namespaces' debug structures (r_version 2).
 */
struct xb_r_debug_ext {
  struct r_debug base;
  struct xb_r_debug_ext *next;
};

static void note_namespaces(void) {
  if (g_filtered || _r_debug.r_version < 2) return;
  const void *at = &_r_debug;
  __asm__("" : "+r"(at)); /* declared as the older, shorter struct: this one is ld.so's object */
  const struct xb_r_debug_ext *first = at;
  if (first->next) xb_log_flag(&g_log, XB_FLAG_NAMESPACE_UNTRACED);
}

static __typeof__(dlmopen) *real_dlmopen; /* resolved with dlopen's */

EXPORT void *dlmopen(Lmid_t lmid, const char *file, int mode) {
  if (!RESOLVE(dlmopen)) return NULL;
  void *h = real_dlmopen(lmid, file, mode);
  if (h && lmid != LM_ID_BASE && !g_filtered) xb_log_flag(&g_log, XB_FLAG_NAMESPACE_UNTRACED);
  return h;
}

/* ---------------------------------------------------------------- setup */

XB_HIDDEN void after_fork(void) {
  pid_t pid = (pid_t)xb_sys(SYS_getpid, 0, 0, 0, 0, 0);
  *g_pid_page = pid;
  g_pid_fallback = pid;
  /* The forking thread's chunk and the repeats table need no reset: both go by pid (record_held). */
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

/* progkind.c's look at an image, from the trampoline once there is one (see xb_progkind_open). */
static long open_image(const char *path) {
  return XSYS(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0, 0);
}

/* Set once the set-up below has run (or started), from its constructor or from init_early. */
static int g_init_ran;

__attribute__((constructor)) static void xbench_preload_init(void) {
  if (g_init_ran) return;
  g_init_ran = 1;
  const char *logpath = getenv(XB_ENV_LOG);
  if (!logpath) return;
  t_self.busy = 1; /* first touch: where the TLS block is dynamic, it is allocated here, not in a record */
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
  RESOLVE(dlmopen);
  g_filtered = hybrid;
  if (hybrid) g_tramp = map_trampoline();
  xb_progkind_open = open_image;
  if (attach_log(logpath) == 0 && g_pid_page == &g_pid_fallback && pthread_atfork(NULL, NULL, after_fork) != 0)
    g_log.hdr = NULL;
  t_self.busy = 0;
  if (!g_log.hdr) return;
  xb_log_flag(&g_log, XB_FLAG_USED_PRELOAD);
  note_namespaces();
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
XB_HIDDEN int init_early(void) {
  if (g_init_ran) return 0; /* a global, not t_self: no TLS is touched before the set-up */
  xbench_preload_init();
  return g_log.hdr != NULL;
}
