/*
 * xbench-supervisor: launcher and seccomp supervisor (static musl, runs on any Linux x86-64).
 *
 * LAUNCHER CLI CONTRACT (stable; the tracer-overhead suite and src/tracer/ depend on it)
 *
 *   xbench-supervisor [--backend auto|preload|seccomp] [--preload PATH.so] --log FILE -- CMD [ARGS...]
 *
 *   Runs CMD (searched on PATH when it has no '/') with the caller's stdin, stdout, stderr,
 *   environment and cwd, traces its whole process tree and writes the record log (log.h) to
 *   FILE (created or truncated; sparse, read it only up to the header's `tail`).
 *   --backend  auto (default): preload for programs with an ELF interpreter, seccomp for
 *              static ones and Go programs (raw syscalls), decided per exec.
 *              preload / seccomp: that backend for the whole tree (seccomp falls back to
 *              preload, flagged, when the kernel or a sandbox refuses it).
 *   --preload  the shim; default `libxbench-preload.so` next to this binary.
 *   --die-with-parent  also kill the traced tree when the supervisor's parent dies, then
 *              delete the log and its folder if that is left empty: nobody is left to read
 *              them (xbench's own trace() passes it, with the log in a folder of its own).
 *   Exit status: CMD's exit code; if CMD died of a signal the supervisor re-raises it (core
 *   dumps off), so its parent sees the same signal (shells report 128+n). The supervisor waits
 *   for the whole tree (like strace -f) before it exits. 125: the supervisor itself could not
 *   start (bad arguments, unwritable log, missing shim); 126/127: CMD not executable / not found.
 *   It prints nothing on success; refusals (seccomp unavailable, EBUSY, EPERM) are recorded
 *   as header flags in the log (XB_FLAG_*), never printed, so CMD's stderr stays byte-identical.
 *   Killing the supervisor (even with SIGKILL) kills the traced tree. Signals sent to it with
 *   kill() (TERM, HUP, INT, QUIT, USR1, USR2) are forwarded to CMD; terminal-generated ones are
 *   not forwarded, since CMD receives its own copy from the terminal.
 *
 *   Environment: XBENCH_TRACE_LOG_CAPACITY=BYTES sizes the (sparse) log, default 1 GiB; records
 *   that do not fit are counted in the header's `dropped` and mark the trace incomplete.
 *   Read the log with readAccessLog() from src/tracer (or follow log.h: version 2).
 *
 *   xbench-supervisor --version      prints "xbench-supervisor log vN".
 *   xbench-supervisor --attach -- PATH ARGV0 [ARGS...]   internal: used by the shim to run a
 *              static program under seccomp inside an auto-mode trace.
 *
 * Processes: launcher L (the pid the caller sees, a child subreaper) -> supervisor S (child
 * subreaper, serves seccomp listeners on one thread each) -> CMD. If L dies, S gets a
 * parent-death signal and kills every descendant; if S dies, its orphans reparent to L, which
 * kills them. CMD has PR_SET_PDEATHSIG(SIGKILL) on S. L and S share memory (tree.h: L runs
 * raw system calls only), so the split costs no page-table copy.
 *
 * Seccomp: the filter is installed in the child (no_new_privs, NEW_LISTENER), the listener
 * fd goes to S over an abstract unix datagram socket (SCM_RIGHTS). The filter checks the audit
 * arch, notifies only file syscalls, lets AT_EMPTY_PATH stats pass, refuses io_uring_setup
 * (ENOSYS, it would bypass the filter). S reads paths with process_vm_readv page by page,
 * resolves dirfd and cwd through /proc/<tid>/, probes existence, answers with FLAG_CONTINUE and
 * records once the answer succeeded (its success is the ID_VALID check: see read_call).
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP is set where the kernel has it (6.6+).
 */
#define _GNU_SOURCE
#include "progkind.h"
#include "fdpass.h"
#include "log.h"
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* Debian's headers lack these (Linux 6.6+). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

#define EXIT_LAUNCHER 125
#define PAGE 4096u
#define XB_RSS_REPORT_TAIL (1u << 20) /* log bytes past which S reports its peak RSS */

enum backend { BACKEND_AUTO, BACKEND_PRELOAD, BACKEND_SECCOMP };

static struct xb_log g_log;
static struct xb_keeper g_launcher; /* L: see tree.h */
static struct xb_keeper g_sup;      /* S */
static sigset_t g_orig_mask;

/*
 * L and S wait on the command most of their lives; spread over idle CPUs, every start and exit
 * in the chain L -> S -> CMD is a cross-CPU wake-up (an IPI; ~0.8 ms of a launch on slow VMs).
 * So L and S's main thread keep to the CPU L started on, and everything the command or the
 * seccomp service runs gets the caller's own affinity back before it starts.
 */
static cpu_set_t g_orig_cpus;
static int g_pinned;

static void keep_to_this_cpu(void) {
  if (sched_getaffinity(0, sizeof g_orig_cpus, &g_orig_cpus) != 0) return; /* > 1024 CPUs: leave it */
  int cpu = sched_getcpu();
  if (cpu < 0 || cpu >= CPU_SETSIZE) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  g_pinned = sched_setaffinity(0, sizeof one, &one) == 0;
}

/* The caller's affinity for the calling thread. Raw: runs in the vfork child too. */
static void restore_cpus(void) {
  if (g_pinned) syscall(SYS_sched_setaffinity, 0, sizeof g_orig_cpus, &g_orig_cpus);
}

static void die(const char *what, int err) {
  fprintf(stderr, "xbench-supervisor: %s: %s\n", what, strerror(err));
  _exit(EXIT_LAUNCHER);
}

/* ---------------------------------------------------------------- seccomp filter */

static const int k_notified[] = {
    __NR_open, __NR_creat, __NR_openat, __NR_openat2, __NR_stat, __NR_lstat, __NR_access, __NR_faccessat,
    __NR_faccessat2, __NR_readlink, __NR_readlinkat, __NR_execve, __NR_execveat, __NR_rename, __NR_renameat,
    __NR_renameat2, __NR_unlink, __NR_unlinkat, __NR_mkdir, __NR_mkdirat, __NR_rmdir, __NR_chdir, __NR_truncate,
    __NR_link, __NR_linkat, __NR_symlink, __NR_symlinkat,
};

static struct sock_filter g_filter[128];
static struct sock_fprog g_prog;

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

static void build_filter(void) {
  unsigned n = 0;
#define STMT(c, k) g_filter[n++] = (struct sock_filter)BPF_STMT(c, k)
#define JUMP(c, k, t, f) g_filter[n++] = (struct sock_filter)BPF_JUMP(c, k, t, f)
  STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF); /* foreign ABI: S flags the trace */
  STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
  JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1); /* x32 */
  STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
  JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
  /* newfstatat(fd, "", buf, AT_EMPTY_PATH) is glibc's fstat: let it pass. */
  JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_newfstatat, 0, 4);
  STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3));
  JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 0, 1);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
  JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_statx, 0, 4);
  STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2));
  JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 0, 1);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
  for (size_t i = 0; i < sizeof k_notified / sizeof k_notified[0]; i++) {
    JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)k_notified[i], 0, 1);
    STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
  }
  STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
#undef STMT
#undef JUMP
  g_prog.len = (unsigned short)n;
  g_prog.filter = g_filter;
}

/* Fills an abstract socket address for `name` (from XBENCH_TRACE_SOCK, "@..." form). */
static socklen_t sock_addr(struct sockaddr_un *addr, const char *name) {
  memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  size_t len = strlen(name);
  if (len >= sizeof addr->sun_path) len = sizeof addr->sun_path - 1;
  memcpy(addr->sun_path, name, len);
  if (addr->sun_path[0] == '@') addr->sun_path[0] = 0;
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
}

/* Seccomp filters on this thread (the "Seccomp_filters:" line), -1 if unknown. Raw syscalls. */
static int count_filters(void) {
  int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[4096];
  long n = syscall(SYS_read, fd, buf, sizeof buf - 1);
  syscall(SYS_close, fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  const char *p = strstr(buf, "Seccomp_filters:");
  return p ? atoi(p + 16) : -1;
}

/* Filters the supervisor itself runs under: an EBUSY with no more than these is a foreign
 * listener (a sandbox), not ours. Passed to --attach in XBENCH_TRACE_BASE_FILTERS; -1 for the
 * top command, which no filter of ours can be above yet. */
static int g_base_filters = -1;

/*
 * Installs the filter in the calling process and hands the listener to the supervisor at
 * `sock_name`. Async-signal-safe (runs in a fork of a threaded process). 0 when traced (or
 * already traced by a listener in the ancestry), else a positive errno: the caller runs on
 * untraced-by-seccomp.
 */
static int install_filter(const char *sock_name) {
  struct sockaddr_un addr;
  socklen_t alen = sock_addr(&addr, sock_name);
  int s = (int)syscall(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return errno;
  /* Connect first: once the filter exists, losing its listener would break the program. */
  if (syscall(SYS_connect, s, &addr, alen) != 0) {
    int e = errno;
    syscall(SYS_close, s);
    return e;
  }
  if (syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    int e = errno;
    syscall(SYS_close, s);
    return e;
  }
  long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &g_prog);
  if (fd < 0) {
    int e = errno;
    syscall(SYS_close, s);
    /* EBUSY: a listener in the ancestry. Ours if filters were added since the supervisor
     * started (a static program's child), else someone else's: refused. */
    if (e == EBUSY && g_base_filters >= 0 && count_filters() > g_base_filters) return 0;
    return e;
  }
  int lfd = (int)fd;
  int e = xb_send_fd(s, lfd);
  syscall(SYS_close, lfd);
  syscall(SYS_close, s);
  /* A failed send after a successful connect leaves file syscalls failing with ENOSYS;
   * nothing better is possible, and it has not been seen to happen. */
  return e;
}

/* ---------------------------------------------------------------- notification handling */

static uint64_t g_trimmed = XB_LOG_HEADER_SIZE; /* log bytes below this are unmapped from S */

/* Keeps S's resident set bounded: drop log pages far behind the tail (they stay in the file). */
static void trim_log(void) {
  uint64_t tail = __atomic_load_n(&g_log.hdr->tail, __ATOMIC_RELAXED);
  const uint64_t keep = 4u << 20;
  if (tail > g_log.capacity) tail = g_log.capacity;
  if (tail < keep + XB_LOG_HEADER_SIZE) return;
  uint64_t upto = (tail - keep) & ~(uint64_t)(PAGE - 1);
  uint64_t from = __atomic_load_n(&g_trimmed, __ATOMIC_RELAXED);
  if (upto < from + (1u << 20)) return;
  if (!__atomic_compare_exchange_n(&g_trimmed, &from, upto, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
  if (madvise(g_log.base + from, upto - from, MADV_DONTNEED) != 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
}

struct path_read {
  char path[PATH_MAX + 1];
  char base[PATH_MAX];
  uint32_t path_len, base_len, rflags;
  int present;
  int32_t result; /* existence() before the call */
};

/* Reads a NUL-terminated string from the tracee, page by page (a later page may be unmapped). */
static void read_remote(pid_t pid, uint64_t addr, struct path_read *out) {
  size_t got = 0;
  out->path_len = 0;
  while (got < PATH_MAX) {
    size_t chunk = PAGE - (size_t)((addr + got) % PAGE);
    if (chunk > PATH_MAX - got) chunk = PATH_MAX - got;
    struct iovec local = {.iov_base = out->path + got, .iov_len = chunk};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)(addr + got), .iov_len = chunk};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) {
      if (got == 0) out->rflags |= XB_RF_UNREADABLE;
      break;
    }
    char *nul = memchr(out->path + got, 0, (size_t)n);
    if (nul) {
      out->path_len = (uint32_t)(nul - out->path);
      return;
    }
    got += (size_t)n;
  }
  out->path_len = (uint32_t)got;
  if (got == PATH_MAX) out->rflags |= XB_RF_TRUNCATED;
}

static void read_path(pid_t pid, int dirfd, uint64_t addr, struct path_read *out) {
  out->rflags = 0;
  out->base_len = 0;
  out->present = 1;
  read_remote(pid, addr, out);
  if (out->path_len == 0 || out->path[0] == '/') return;
  char link[64];
  if (dirfd == AT_FDCWD) {
    snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
  } else {
    snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
    out->rflags |= XB_RF_BASE_DIRFD;
  }
  ssize_t k = readlink(link, out->base, sizeof out->base);
  if (k > 0 && out->base[0] == '/') out->base_len = (uint32_t)k;
}

/* Each serving thread appends into its own chunk of the log (see xb_log_append_local). */
static __thread struct xb_cursor t_cur;

/*
 * FLAG_CONTINUE means the supervisor never sees a call's outcome. For the accesses where it
 * matters (a probe of a missing path), look before the kernel does: 0 if the path exists now,
 * ENOENT/ENOTDIR if not, XB_RESULT_UNKNOWN when it cannot tell (or for creating calls).
 */
static int32_t existence(int op, uint32_t arg, const struct path_read *p) {
  int probe = op == XB_OP_STAT || op == XB_OP_ACCESS || op == XB_OP_READLINK || op == XB_OP_EXEC || op == XB_OP_CHDIR ||
              (op == XB_OP_OPEN && !(arg & (O_CREAT | O_TRUNC)) && (arg & O_ACCMODE) == O_RDONLY);
  if (!probe || p->path_len == 0 || (p->rflags & (XB_RF_TRUNCATED | XB_RF_UNREADABLE))) return XB_RESULT_UNKNOWN;
  char full[2 * PATH_MAX + 2];
  const char *q = p->path;
  if (p->path[0] != '/') {
    if (!p->base_len) return XB_RESULT_UNKNOWN;
    memcpy(full, p->base, p->base_len);
    full[p->base_len] = '/';
    memcpy(full + p->base_len + 1, p->path, p->path_len + 1);
    q = full;
  }
  int nofollow = op == XB_OP_READLINK || (op == XB_OP_STAT && (arg & AT_SYMLINK_NOFOLLOW));
  struct stat st;
  if (fstatat(AT_FDCWD, q, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0) == 0) return 0;
  return errno == ENOENT || errno == ENOTDIR ? errno : XB_RESULT_UNKNOWN;
}

/* A notified call, read and probed while its thread waits; recorded once the reply let it go. */
struct call {
  pid_t pid;
  int op, op2;
  uint32_t arg;
  uint64_t tsc;
  struct path_read a, b;
};

static void append(const struct call *c, int op, const struct path_read *p) {
  if (!p->present) return;
  if (p->path_len == 0 && !(p->rflags & XB_RF_UNREADABLE)) return; /* "" with AT_EMPTY_PATH: an fd op */
  if (p->rflags & XB_RF_UNREADABLE) xb_log_flag(&g_log, XB_FLAG_UNREADABLE);
  struct xb_rec r = {.op = (uint8_t)op, .src = XB_SRC_SECCOMP, .base_len = (uint16_t)p->base_len, .pid = (uint32_t)c->pid,
                     .arg = c->arg, .result = p->result, .path_len = p->path_len, .rflags = p->rflags, .tsc = c->tsc};
  xb_log_append_local(&g_log, &t_cur, &r, p->base, p->path);
}

/*
 * Decodes a notification, reads its paths and probes them while the caller waits. 1 if there
 * is something to record once the reply succeeds: that success proves the caller was still in
 * this call, so the memory read was its own (what SECCOMP_IOCTL_NOTIF_ID_VALID would tell,
 * one ioctl less per call).
 */
static int read_call(const struct seccomp_notif *req, struct call *c) {
  const struct seccomp_data *d = &req->data;
  pid_t pid = (pid_t)req->pid;
  struct path_read *a = &c->a, *b = &c->b;
  a->present = b->present = 0;
  if (d->arch != AUDIT_ARCH_X86_64 || d->nr >= 0x40000000) {
    xb_log_flag(&g_log, XB_FLAG_FOREIGN_ARCH);
    return 0;
  }
  c->tsc = xb_now();
  const __u64 *x = d->args;
  int op = 0, op2 = 0;
  uint32_t arg = 0;
#define FD(i) ((int)(int32_t)x[i])
  switch (d->nr) {
  case __NR_open: op = XB_OP_OPEN; arg = (uint32_t)x[1]; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_creat: op = XB_OP_OPEN; arg = O_WRONLY | O_CREAT | O_TRUNC; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_openat: op = XB_OP_OPEN; arg = (uint32_t)x[2]; read_path(pid, FD(0), x[1], a); break;
  case __NR_openat2: {
    uint64_t flags = 0;
    struct iovec l = {.iov_base = &flags, .iov_len = sizeof flags};
    struct iovec r = {.iov_base = (void *)(uintptr_t)x[2], .iov_len = sizeof flags};
    if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof flags) flags = 0;
    op = XB_OP_OPEN; arg = (uint32_t)flags; read_path(pid, FD(0), x[1], a); break;
  }
  case __NR_stat: op = XB_OP_STAT; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_lstat: op = XB_OP_STAT; arg = AT_SYMLINK_NOFOLLOW; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_newfstatat: op = XB_OP_STAT; arg = (uint32_t)x[3]; read_path(pid, FD(0), x[1], a); break;
  case __NR_statx: op = XB_OP_STAT; arg = (uint32_t)x[2]; read_path(pid, FD(0), x[1], a); break;
  case __NR_access: op = XB_OP_ACCESS; arg = (uint32_t)x[1]; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_faccessat: case __NR_faccessat2: op = XB_OP_ACCESS; arg = (uint32_t)x[2]; read_path(pid, FD(0), x[1], a); break;
  case __NR_readlink: op = XB_OP_READLINK; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_readlinkat: op = XB_OP_READLINK; read_path(pid, FD(0), x[1], a); break;
  case __NR_execve: op = XB_OP_EXEC; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_execveat: op = XB_OP_EXEC; read_path(pid, FD(0), x[1], a); break;
  case __NR_rename:
    op = XB_OP_RENAME_FROM; op2 = XB_OP_RENAME_TO;
    read_path(pid, AT_FDCWD, x[0], a); read_path(pid, AT_FDCWD, x[1], b); break;
  case __NR_renameat: case __NR_renameat2:
    op = XB_OP_RENAME_FROM; op2 = XB_OP_RENAME_TO;
    read_path(pid, FD(0), x[1], a); read_path(pid, FD(2), x[3], b); break;
  case __NR_unlink: op = XB_OP_UNLINK; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_unlinkat:
    op = (x[2] & AT_REMOVEDIR) ? XB_OP_RMDIR : XB_OP_UNLINK; read_path(pid, FD(0), x[1], a); break;
  case __NR_mkdir: op = XB_OP_MKDIR; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_mkdirat: op = XB_OP_MKDIR; read_path(pid, FD(0), x[1], a); break;
  case __NR_rmdir: op = XB_OP_RMDIR; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_chdir: op = XB_OP_CHDIR; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_truncate: op = XB_OP_TRUNCATE; read_path(pid, AT_FDCWD, x[0], a); break;
  case __NR_link: case __NR_symlink: op = XB_OP_LINK; read_path(pid, AT_FDCWD, x[1], a); break;
  case __NR_linkat: op = XB_OP_LINK; read_path(pid, FD(2), x[3], a); break;
  case __NR_symlinkat: op = XB_OP_LINK; read_path(pid, FD(1), x[2], a); break;
  default: return 0;
  }
#undef FD
  c->pid = pid;
  c->op = op;
  c->op2 = op2;
  c->arg = arg;
  a->result = existence(op, arg, a);
  b->result = op2 ? existence(op2, arg, b) : XB_RESULT_UNKNOWN;
  return 1;
}

/* Calls answered but not yet recorded: S exits only when none is left. */
static int g_unrecorded;

/* The listener hangs up once no process is left under its filter. */
static int listener_orphaned(int listener) {
  struct pollfd p = {.fd = listener, .events = POLLIN};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

static void *serve(void *arg) {
  restore_cpus(); /* notifications come from every CPU the tree runs on */
  int listener = (int)(intptr_t)arg;
  __u64 flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
  (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags); /* older kernels: default wake-ups */
  xb_log_flag(&g_log, XB_FLAG_USED_SECCOMP);
  struct seccomp_notif_sizes sizes = {0};
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) sizes.seccomp_notif = sizeof(struct seccomp_notif);
  union {
    struct seccomp_notif n;
    char raw[512];
  } req;
  union {
    struct seccomp_notif_resp r;
    char raw[512];
  } resp;
  if (sizes.seccomp_notif > sizeof req || sizes.seccomp_notif_resp > sizeof resp) {
    xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    sizes.seccomp_notif = sizeof req; /* cannot happen with today's kernels; keep serving */
  }
  static __thread struct call call;
  uint64_t since_trim = 0;
  for (;;) {
    memset(&req, 0, sizeof req);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req.n) != 0) {
      if (errno == EINTR) continue;
      if (errno == ENOENT) {
        /* A caller interrupted, or (Linux 6.6+ answers at once from then on) no process is
         * left under the filter: it can never get one back, so stop instead of spinning. */
        if (listener_orphaned(listener)) break;
        continue;
      }
      xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
      break;
    }
    __atomic_fetch_add(&g_unrecorded, 1, __ATOMIC_SEQ_CST); /* before the reply can let the tree end */
    int pending = read_call(&req.n, &call);
    memset(&resp, 0, sizeof resp);
    resp.r.id = req.n.id;
    resp.r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp.r) == 0) {
      if (pending) {
        append(&call, call.op, &call.a);
        if (call.op2) append(&call, call.op2, &call.b);
      }
    } else if (errno != ENOENT) { /* ENOENT: the caller is gone (killed, interrupted): no record */
      xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    }
    __atomic_fetch_sub(&g_unrecorded, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&g_log.hdr->notifications, 1, __ATOMIC_RELAXED);
    if (++since_trim >= 4096) {
      since_trim = 0;
      trim_log();
    }
  }
  close(listener);
  return NULL;
}

/* Serves a listener on a thread of its own. */
static void start_serving(int fd) {
  pthread_attr_t attr;
  pthread_t t;
  int err = pthread_attr_init(&attr);
  if (!err) err = pthread_attr_setstacksize(&attr, 256 * 1024);
  if (!err) err = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (!err) err = pthread_create(&t, &attr, serve, (void *)(intptr_t)fd);
  pthread_attr_destroy(&attr);
  if (err) {
    /* Serving on this thread beats leaving the tracee blocked forever. */
    xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    serve((void *)(intptr_t)fd);
  }
}

/* Receives one datagram of listener fds (from install_filter, in CMD or `--attach`) and starts
 * serving them, each on a thread of its own; with `first`, the first one is left there for the
 * caller to serve. 1 if a datagram was handled, 0 if none was waiting (MSG_DONTWAIT), -1 on error. */
static int accept_one(int s, int flags, int *first) {
  char byte;
  char cbuf[CMSG_SPACE(sizeof(int) * 4)];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  ssize_t n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC | flags);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return 0;
    xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    return -1;
  }
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; i++) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      if (first && *first < 0) *first = fd;
      else start_serving(fd);
    }
  }
  return 1;
}

/*
 * The thread that serves the top command's listener, which S's main thread cannot take itself:
 * while it is suspended in vfork, CMD's own exec already waits on its new filter. Every process
 * of the tree inherits that one filter (a static program's --attach then finds it and adds
 * none), so once the listener has arrived this thread serves it: no second thread to start
 * while the command waits.
 */
static void *serve_top(void *arg) {
  int s = (int)(intptr_t)arg, fd = -1;
  while (fd < 0 && accept_one(s, 0, &fd) >= 0) {
  }
  if (fd >= 0) serve((void *)(intptr_t)fd);
  return NULL;
}

/* ---------------------------------------------------------------- process tree */

static void on_parent_death(int sig) {
  (void)sig;
  g_sup.parent_died = 1;
  xb_kill_children(g_sup.self);
}

/* Installed in L before the split, so S inherits it: each relays to its own child. */
static void forward(int sig, siginfo_t *info, void *ctx) {
  (void)ctx;
  /* Terminal signals reach the whole foreground group; only relay ones sent with kill(). */
  if (info && info->si_code > 0) return;
  pid_t to = xb_sys(SYS_getpid, 0, 0, 0, 0, 0) == g_launcher.self ? g_launcher.child : g_sup.child;
  if (to > 0) xb_sys(SYS_kill, to, sig, 0, 0, 0);
}

static const int k_forwarded[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2};

static void install_forwarding(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof k_forwarded / sizeof k_forwarded[0]; i++)
    if (sigaction(k_forwarded[i], &sa, NULL) != 0) die("sigaction", errno);
}

/*
 * xb_reap_all for auto mode with a dynamic top command: S's main thread also takes listener fds
 * from `sock` (static programs started later), so no thread exists until one is needed.
 * SIGCHLD and the parent-death signal arrive on `sfd` (a signalfd; both are blocked).
 */
static int reap_and_accept(pid_t main_pid, int sock, int sfd) {
  int main_status = -1;
  for (;;) {
    for (;;) {
      int st;
      pid_t p = waitpid(-1, &st, __WALL | WNOHANG);
      if (p > 0) {
        if (p == main_pid) main_status = st;
        if (g_sup.parent_died) xb_kill_children(g_sup.self);
        continue;
      }
      if (p == 0) break;
      if (errno == EINTR) continue;
      if (errno == ECHILD) return main_status;
      die("waitpid", errno);
    }
    struct pollfd fds[2] = {{.fd = sock, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll", errno);
    }
    if (fds[0].revents & POLLIN)
      while (accept_one(sock, MSG_DONTWAIT, NULL) > 0) {
      }
    if (fds[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
        if (si.ssi_signo == SIGPWR) {
          g_sup.parent_died = 1;
          xb_kill_children(g_sup.self);
        }
    }
  }
}

/* ---------------------------------------------------------------- launch */

/* Peak resident set in KiB: VmHWM (getrusage's ru_maxrss reads the lazily-summed per-CPU
 * counters and says 0 for a small forked process on recent kernels). */
static uint64_t peak_rss_kb(void) {
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  const char *p = strstr(buf, "VmHWM:");
  return p ? strtoull(p + 6, NULL, 10) : 0;
}

/* Resolves CMD like execvp; returns a malloc'd path or NULL with errno set. */
static char *resolve_command(const char *cmd) {
  if (strchr(cmd, '/')) return strdup(cmd);
  const char *p = getenv("PATH");
  if (!p) p = "/usr/local/bin:/bin:/usr/bin";
  int err = ENOENT;
  for (;;) {
    const char *end = strchrnul(p, ':');
    size_t dlen = (size_t)(end - p);
    char *cand = malloc(dlen + strlen(cmd) + 2);
    if (!cand) die("malloc", ENOMEM);
    if (dlen) sprintf(cand, "%.*s/%s", (int)dlen, p, cmd);
    else strcpy(cand, cmd);
    struct stat st;
    if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
      if (access(cand, X_OK) == 0) return cand;
      err = EACCES;
    }
    free(cand);
    if (!*end) break;
    p = end + 1;
  }
  errno = err;
  return NULL;
}

static int has_name(const char *entry, const char *name) {
  size_t n = strlen(name);
  return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* environ minus our variables, plus `extra` (NULL-terminated); LD_PRELOAD merged with `shim`. */
static char **make_env(char **extra, const char *shim) {
  size_t n = 0;
  for (char **e = environ; *e; e++) n++;
  size_t m = 0;
  while (extra[m]) m++;
  char **out = calloc(n + m + 2, sizeof *out);
  if (!out) die("malloc", ENOMEM);
  size_t k = 0;
  const char *old_preload = NULL;
  for (char **e = environ; *e; e++) {
    if (has_name(*e, XB_ENV_LOG) || has_name(*e, XB_ENV_MODE) || has_name(*e, XB_ENV_SUPERVISOR) ||
        has_name(*e, XB_ENV_SOCK) || has_name(*e, "XBENCH_TRACE_BASE_FILTERS"))
      continue;
    if (has_name(*e, "LD_PRELOAD")) {
      old_preload = *e + 11;
      continue;
    }
    out[k++] = *e;
  }
  for (size_t i = 0; i < m; i++) out[k++] = extra[i];
  if (shim) {
    size_t len = strlen(shim) + (old_preload ? strlen(old_preload) : 0) + 16;
    char *v = malloc(len);
    if (!v) die("malloc", ENOMEM);
    if (old_preload && *old_preload) snprintf(v, len, "LD_PRELOAD=%s:%s", shim, old_preload);
    else snprintf(v, len, "LD_PRELOAD=%s", shim);
    out[k++] = v;
  } else if (old_preload) {
    out[k++] = (char *)old_preload - 11;
  }
  out[k] = NULL;
  return out;
}

static char *env_pair(const char *name, const char *value) {
  size_t len = strlen(name) + strlen(value) + 2;
  char *s = malloc(len);
  if (!s) die("malloc", ENOMEM);
  snprintf(s, len, "%s=%s", name, value);
  return s;
}

static void usage(void) {
  fprintf(stderr,
          "usage: xbench-supervisor [--backend auto|preload|seccomp] [--preload PATH.so] --log FILE -- CMD [ARGS...]\n");
  _exit(EXIT_LAUNCHER);
}

/* `--attach -- PATH ARGV0 ARGS...`: put this process under seccomp, then become PATH. */
static int attach_main(int argc, char **argv, int i) {
  if (i + 2 > argc) usage();
  const char *path = argv[i];
  build_filter();
  const char *sock = getenv(XB_ENV_SOCK);
  const char *base = getenv("XBENCH_TRACE_BASE_FILTERS");
  g_base_filters = base ? atoi(base) : 0;
  int err = sock ? install_filter(sock) : ENOTCONN;
  if (err) {
    const char *logpath = getenv(XB_ENV_LOG);
    if (logpath && xb_log_attach(&g_log, logpath) == 0) {
      xb_log_flag(&g_log, XB_FLAG_SECCOMP_REFUSED);
      __atomic_store_n(&g_log.hdr->seccomp_errno, err, __ATOMIC_RELAXED);
      munmap(g_log.base, g_log.capacity);
    }
  }
  execve(path, argv + i + 1, environ);
  int e = errno;
  fprintf(stderr, "xbench-supervisor: %s: %s\n", path, strerror(e));
  return e == ENOENT ? 127 : 126;
}

/* The log and its folder, once the caller who would have read them is gone (a log in /dev/shm
 * would hold memory until reboot). rmdir only removes a folder the log had to itself. */
static void remove_log(const char *log) {
  unlink(log);
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", log);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) {
    *slash = 0;
    rmdir(dir);
  }
}

/* L after the split: shares S's memory, so raw system calls only (tree.h). */
static char g_launcher_stack[32 * 1024] __attribute__((aligned(16)));
static void launcher_main(long s) {
  xb_sys(SYS_set_tid_address, 0, 0, 0, 0, 0); /* L's exit must not clear S's libc thread-list lock */
  g_launcher.child = (pid_t)s;
  xb_exit_like(xb_reap_all(&g_launcher, (pid_t)s, 1));
}

int main(int argc, char **argv) {
  static enum backend backend = BACKEND_AUTO; /* static: survives vfork (-Wclobbered) */
  const char *logpath = NULL, *preload = NULL;
  static int die_with_parent; /* static: read after vfork (-Wclobbered) */
  static int top_exec_errno;  /* set by CMD if its exec fails, read by S once vfork returns */
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (strcmp(a, "--version") == 0) {
      printf("xbench-supervisor log v%d\n", XBENCH_LOG_VERSION);
      return 0;
    } else if (strcmp(a, "--attach") == 0) {
      if (i + 1 >= argc || strcmp(argv[i + 1], "--") != 0) usage();
      return attach_main(argc, argv, i + 2);
    } else if (strcmp(a, "--backend") == 0 && i + 1 < argc) {
      const char *b = argv[++i];
      if (strcmp(b, "auto") == 0) backend = BACKEND_AUTO;
      else if (strcmp(b, "preload") == 0) backend = BACKEND_PRELOAD;
      else if (strcmp(b, "seccomp") == 0) backend = BACKEND_SECCOMP;
      else usage();
    } else if (strcmp(a, "--preload") == 0 && i + 1 < argc) {
      preload = argv[++i];
    } else if (strcmp(a, "--die-with-parent") == 0) {
      die_with_parent = 1;
    } else if (strcmp(a, "--log") == 0 && i + 1 < argc) {
      logpath = argv[++i];
    } else {
      usage();
    }
  }
  if (!logpath || i >= argc) usage();
  char **cmd_argv = argv + i;

  if (sigprocmask(SIG_SETMASK, NULL, &g_orig_mask) != 0) die("sigprocmask", errno);
  keep_to_this_cpu();
  if (die_with_parent) {
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) die("PR_SET_PDEATHSIG", errno);
    if (getppid() != parent) _exit(EXIT_LAUNCHER);
  }
  g_launcher.self = getpid();
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) die("PR_SET_CHILD_SUBREAPER", errno);
  install_forwarding();

  /* L: split off S, wait, reproduce its status. Split before any other set-up: S's writes then
   * land on fresh pages of their own. */
  pid_t launcher = g_launcher.self;
  long split = xb_split(launcher_main, g_launcher_stack + sizeof g_launcher_stack);
  if (split < 0) die("clone", (int)-split);

  /* S */
  g_sup.self = getpid();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_parent_death;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPWR, &sa, NULL) != 0) die("sigaction", errno);
  if (prctl(PR_SET_PDEATHSIG, SIGPWR) != 0) die("PR_SET_PDEATHSIG", errno);
  if (getppid() != launcher) _exit(EXIT_LAUNCHER);
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) die("PR_SET_CHILD_SUBREAPER", errno);

  char self[PATH_MAX];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) die("readlink /proc/self/exe", errno);
  self[sl] = 0;
  char shim_default[PATH_MAX + 32];
  if (!preload) {
    snprintf(shim_default, sizeof shim_default, "%.*s/libxbench-preload.so", (int)(strrchr(self, '/') - self), self);
    preload = shim_default;
  }
  char shim[PATH_MAX];
  if (backend != BACKEND_SECCOMP) {
    if (!realpath(preload, shim)) {
      fprintf(stderr, "xbench-supervisor: preload library %s: %s\n", preload, strerror(errno));
      _exit(EXIT_LAUNCHER);
    }
  } else if (!realpath(preload, shim)) {
    shim[0] = 0; /* only needed as a fallback if seccomp is refused */
  }

  uint64_t capacity = XB_LOG_DEFAULT_CAPACITY;
  const char *cap_env = getenv("XBENCH_TRACE_LOG_CAPACITY");
  if (cap_env) capacity = strtoull(cap_env, NULL, 0);
  if (capacity < 2 * XB_LOG_HEADER_SIZE) capacity = 2 * XB_LOG_HEADER_SIZE;
  int err = xb_log_create(&g_log, logpath, capacity);
  if (err) die(logpath, -err);
  char log_abs[PATH_MAX];
  if (!realpath(logpath, log_abs)) die(logpath, errno);

  char *path = resolve_command(cmd_argv[0]);
  if (!path) {
    int e = errno;
    fprintf(stderr, "xbench-supervisor: %s: %s\n", cmd_argv[0], e == ENOENT ? "command not found" : strerror(e));
    _exit(e == ENOENT ? 127 : 126);
  }
  int top_static = xb_needs_seccomp(path);
  int top_seccomp = backend == BACKEND_SECCOMP || (backend == BACKEND_AUTO && top_static);
  if (backend == BACKEND_PRELOAD && top_static) xb_log_flag(&g_log, XB_FLAG_STATIC_UNTRACED);

  char sock_name[64] = "";
  int sock = -1, sfd = -1;
  /* auto with a dynamic top command: S's main thread takes listeners itself, lazily. */
  int lazy = backend == BACKEND_AUTO && !top_seccomp;
  if (backend != BACKEND_PRELOAD) {
    snprintf(sock_name, sizeof sock_name, "@xbench-trace-%d-%ld", (int)g_sup.self, (long)time(NULL));
    sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0) die("socket", errno);
    struct sockaddr_un addr;
    socklen_t alen = sock_addr(&addr, sock_name);
    if (bind(sock, (struct sockaddr *)&addr, alen) != 0) die("bind", errno);
    build_filter();
    if (lazy) {
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SIGCHLD);
      sigaddset(&set, SIGPWR);
      if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) die("sigprocmask", errno);
      sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
      if (sfd < 0) die("signalfd", errno);
      if (getppid() != launcher) _exit(EXIT_LAUNCHER); /* a parent death before the block went to the handler */
    } else {
      pthread_t t;
      pthread_attr_t attr;
      if ((err = pthread_attr_init(&attr)) || (err = pthread_attr_setstacksize(&attr, 256 * 1024)) ||
          (err = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED)) ||
          (err = pthread_create(&t, &attr, serve_top, (void *)(intptr_t)sock)))
        die("pthread_create", err);
    }
  }

  if (backend == BACKEND_AUTO) { /* for --attach (a /proc read costs ~50 us on slow VMs) */
    g_base_filters = count_filters();
    if (g_base_filters < 0) g_base_filters = 0;
  }
  char *extra_traced[8] = {0}, *extra_plain[8] = {0};
  int ne = 0;
  extra_traced[ne++] = env_pair(XB_ENV_LOG, log_abs);
  if (backend == BACKEND_AUTO) {
    extra_traced[ne++] = env_pair(XB_ENV_MODE, "auto");
    extra_traced[ne++] = env_pair(XB_ENV_SUPERVISOR, self);
    extra_traced[ne++] = env_pair(XB_ENV_SOCK, sock_name);
    char nbuf[16];
    snprintf(nbuf, sizeof nbuf, "%d", g_base_filters);
    extra_traced[ne++] = env_pair("XBENCH_TRACE_BASE_FILTERS", nbuf);
  } else {
    extra_traced[ne++] = env_pair(XB_ENV_MODE, "preload");
  }
  extra_plain[0] = extra_traced[0];
  char **env_preload = make_env(extra_traced, shim[0] ? shim : NULL);
  char **env_seccomp_only = make_env(extra_plain, NULL);
  char **env = backend == BACKEND_SECCOMP ? env_seccomp_only : env_preload;

  uint64_t exec_tsc = xb_now(); /* before the command can record anything */
  /* vfork: no copy of S's page tables (fork+exec is the launch cost on slow-VM kernels). */
  pid_t c = vfork();
  if (c < 0) die("vfork", errno);
  if (c == 0) {
    /* CMD, sharing S's memory until exec: async-signal-safe calls only, no writes to S's
     * variables except `env`, which S no longer reads, and top_exec_errno. */
    syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (syscall(SYS_getppid) != g_sup.self) _exit(EXIT_LAUNCHER);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGPWR, &dfl, NULL);
    if (top_seccomp) {
      int e = install_filter(sock_name);
      if (e) {
        xb_log_flag(&g_log, XB_FLAG_SECCOMP_REFUSED);
        __atomic_store_n(&g_log.hdr->seccomp_errno, e, __ATOMIC_RELAXED);
        if (backend == BACKEND_SECCOMP && shim[0]) env = env_preload; /* use what works */
      }
    }
    sigprocmask(SIG_SETMASK, &g_orig_mask, NULL);
    restore_cpus();
    execve(path, cmd_argv, env);
    int e = errno;
    top_exec_errno = e;
    const char *msg = strerror(e);
    struct iovec v[5] = {{(void *)"xbench-supervisor: ", 19}, {path, strlen(path)}, {(void *)": ", 2},
                         {(void *)msg, strlen(msg)}, {(void *)"\n", 1}};
    (void)!writev(2, v, 5);
    _exit(e == ENOENT ? 127 : 126);
  }
  g_sup.child = c;
  /* The top command's own exec (the shim only sees the execs it makes). */
  struct xb_rec top = {.op = XB_OP_EXEC, .src = XB_SRC_SECCOMP, .pid = (uint32_t)c, .result = top_exec_errno,
                       .path_len = (uint32_t)strnlen(path, PATH_MAX), .tsc = exec_tsc};
  if (path[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) {
      top.base_len = (uint16_t)strlen(cwd);
      xb_log_append(&g_log, &top, cwd, path);
    }
  } else {
    xb_log_append(&g_log, &top, NULL, path);
  }
  int st = lazy ? reap_and_accept(c, sock, sfd) : xb_reap_all(&g_sup, c, 0);
  /* The tree is gone, every call of it answered: wait for the last records to be written. */
  while (__atomic_load_n(&g_unrecorded, __ATOMIC_ACQUIRE) > 0) sched_yield();
  if (die_with_parent && g_sup.parent_died) remove_log(log_abs);
  /* Only where S's memory could grow (a /proc read costs ~50 us on slow VMs). */
  if ((g_log.hdr->flags & XB_FLAG_USED_SECCOMP) || g_log.hdr->tail > XB_RSS_REPORT_TAIL)
    g_log.hdr->supervisor_maxrss_kb = peak_rss_kb();
  xb_exit_like(st);
}
