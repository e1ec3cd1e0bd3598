/*
 * The traced tree's keepers, signals and CPU (see tree.h). Rules: raw system calls only (this runs
 * in L after the split, and in signal handlers): no errno, no libc state, stack buffers only.
 */
#define _GNU_SOURCE
#include "tree.h"

#include <dirent.h>
#include <errno.h> /* constants only: nothing here reads or writes errno */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

struct xb_keeper xb_launcher, xb_sup;
uint64_t xb_orig_sigmask;
volatile int xb_detach_status = -1;

#define SYS0(n) xb_sys(n, 0, 0, 0, 0, 0)
#define SYS1(n, a) xb_sys(n, (long)(a), 0, 0, 0, 0)
#define SYS2(n, a, b) xb_sys(n, (long)(a), (long)(b), 0, 0, 0)
#define SYS3(n, a, b, c) xb_sys(n, (long)(a), (long)(b), (long)(c), 0, 0)
#define SYS4(n, a, b, c, d) xb_sys(n, (long)(a), (long)(b), (long)(c), (long)(d), 0)

/* Decimal digits at `s` (stops at the first non-digit); -1 if there are none. */
static long parse_pid(const char *s) {
  long v = -1;
  for (; *s >= '0' && *s <= '9'; s++) v = (v < 0 ? 0 : v * 10) + (*s - '0');
  return v;
}

/* The parent pid in a /proc/<pid>/stat line: the field after "(comm) S ". comm may hold ')'. */
static long stat_ppid(const char *stat, long len) {
  long rp = -1;
  for (long i = 0; i < len; i++)
    if (stat[i] == ')') rp = i;
  if (rp < 0 || rp + 4 >= len || stat[rp + 1] != ' ' || stat[rp + 3] != ' ') return -1;
  return parse_pid(stat + rp + 4);
}

int xb_kill_children(pid_t self) {
  long proc = SYS4(SYS_openat, AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (proc < 0) return 0;
  int killed = 0;
  char buf[4096];
  for (;;) {
    long n = SYS3(SYS_getdents64, proc, buf, sizeof buf);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      struct dirent64 *de = (struct dirent64 *)(buf + off);
      off += de->d_reclen;
      const char *name = de->d_name;
      if (name[0] < '1' || name[0] > '9') continue;
      char path[48] = "/proc/";
      unsigned k = 6;
      for (const char *c = name; *c && k < sizeof path - 6; c++) path[k++] = *c;
      for (const char *c = "/stat"; *c; c++) path[k++] = *c;
      path[k] = 0;
      long fd = SYS4(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
      if (fd < 0) continue;
      char stat[512];
      long len = SYS3(SYS_read, fd, stat, sizeof stat);
      SYS1(SYS_close, fd);
      if (len > 0 && stat_ppid(stat, len) == self && SYS2(SYS_kill, parse_pid(name), SIGKILL) == 0) killed++;
    }
  }
  SYS1(SYS_close, proc);
  return killed;
}

int xb_reap_all(struct xb_keeper *k, pid_t main_pid, int kill_orphans) {
  int main_status = -1;
  for (;;) {
    int st = 0;
    int flags = __WALL | (kill_orphans && main_status != -1 ? WNOHANG : 0);
    long p = SYS4(SYS_wait4, -1, &st, flags, 0);
    if (p == 0) { /* orphans remain */
      xb_kill_children(k->self);
      kill_orphans = 0;
      k->parent_died = 1; /* keep killing what reparents here until none is left */
      continue;
    }
    if (p == -EINTR) {
      if (k->parent_died) xb_kill_children(k->self);
      continue;
    }
    if (p < 0) break; /* ECHILD: the tree is gone */
    if (p == main_pid) main_status = st;
    if (k->parent_died) xb_kill_children(k->self);
  }
  return main_status;
}

int xb_reap_main(struct xb_keeper *k, pid_t main_pid, int *left) {
  int main_status = -1;
  long p;
  do {
    int st = 0;
    p = SYS4(SYS_wait4, -1, &st, __WALL, 0);
    if (p == main_pid) main_status = st;
    if (k->parent_died) xb_kill_children(k->self);
  } while (p != main_pid && (p > 0 || p == -EINTR));
  do p = SYS4(SYS_wait4, -1, 0, __WALL | WNOHANG, 0);
  while (p > 0 || p == -EINTR);
  *left = p == 0;
  return main_status;
}

/* The kernel's struct sigaction (x86-64; arm64's is the same: it has SA_RESTORER too). */
struct kernel_sigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)(void);
  uint64_t mask;
};

void xb_exit_like(int status) {
  if (status == -1) SYS1(SYS_exit_group, 125);
  if (WIFEXITED(status)) SYS1(SYS_exit_group, WEXITSTATUS(status));
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  struct rlimit no_core = {0, 0};
  SYS4(SYS_prlimit64, 0, RLIMIT_CORE, &no_core, 0);
  struct kernel_sigaction dfl = {.handler = SIG_DFL};
  SYS4(SYS_rt_sigaction, sig, &dfl, 0, sizeof dfl.mask);
  uint64_t unblock = 1ull << (sig - 1);
  SYS4(SYS_rt_sigprocmask, SIG_UNBLOCK, &unblock, 0, sizeof unblock);
  SYS2(SYS_kill, SYS0(SYS_getpid), sig);
  SYS1(SYS_exit_group, 128 + sig);
  __builtin_unreachable();
}

void xb_signals_restore(void) {
  SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &xb_orig_sigmask, 0, sizeof xb_orig_sigmask);
}

/*
 * clone(flags) with no new stack: the child returns here like fork's; the parent moves to
 * `stack_top` and runs `launcher(child pid)`. With CLONE_VM the parent touches no memory before
 * moving to its own stack, so the child's stack stays intact.
 */
__attribute__((noinline)) static long split_with(long flags, void (*launcher)(long), void *stack_top) {
  long ret;
#if defined(__aarch64__)
  register long x8 __asm__("x8") = SYS_clone;
  register long x0 __asm__("x0") = flags;
  register long x1 __asm__("x1") = 0; /* newsp: 0 keeps the caller's */
  register long x2 __asm__("x2") = 0;
  register long x3 __asm__("x3") = 0;
  register long x4 __asm__("x4") = 0;
  __asm__ volatile("svc #0\n\t"
                   "cmp x0, #0\n\t"
                   "b.le 1f\n\t"
                   "mov sp, %[stack]\n\t"
                   "blr %[launcher]\n\t"
                   "udf #0\n"
                   "1:"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), [stack] "r"(stack_top), [launcher] "r"(launcher)
                   : "cc", "memory");
  ret = x0;
#else
  register long r10 __asm__("r10") = 0;
  register long r8 __asm__("r8") = 0;
  __asm__ volatile("syscall\n\t"
                   "test %%rax, %%rax\n\t"
                   "jle 1f\n\t"
                   "mov %[stack], %%rsp\n\t"
                   "mov %%rax, %%rdi\n\t"
                   "call *%[launcher]\n\t"
                   "ud2\n"
                   "1:"
                   : "=a"(ret)
                   : "a"((long)SYS_clone), "D"(flags), "S"(0L), "d"(0L), "r"(r10),
                     "r"(r8), [stack] "r"(stack_top), [launcher] "r"(launcher)
                   : "rcx", "r11", "memory");
#endif
  return ret;
}

long xb_signals_hold(void) {
  uint64_t all = ~0ull;
  return SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &all, &xb_orig_sigmask, sizeof all);
}

long xb_split(void (*launcher)(long), void *stack_top) {
  long ret = split_with(CLONE_VM | SIGCHLD, launcher, stack_top);
  /* qemu-user (an arm64 xbench on an x86-64 host through binfmt_misc) refuses CLONE_VM without
   * CLONE_THREAD: then a plain fork, which costs a copy of the page tables and nothing else. */
  if (ret == -EINVAL) ret = split_with(SIGCHLD, launcher, stack_top);
  if (ret < 0) xb_signals_restore();
  return ret;
}

/* ---------------------------------------------------------------- signals */

static void on_parent_death(int sig, siginfo_t *info, void *ctx) {
  (void)sig;
  (void)info;
  (void)ctx;
  xb_sup.parent_died = 1;
  xb_kill_children(xb_sup.self);
}

/* Installed in L before the split, so S inherits it: each relays to its own child. */
static void forward(int sig, siginfo_t *info, void *ctx) {
  (void)ctx;
  /* Terminal signals reach the whole foreground group; only relay ones sent with kill(). */
  if (info && info->si_code > 0) return;
  pid_t to = SYS0(SYS_getpid) == xb_launcher.self ? xb_launcher.child : xb_sup.child;
  if (to > 0) SYS2(SYS_kill, to, sig);
}

/* Installed before the split (libc is fine there); the handlers themselves are raw. */
static int set_handler(int sig, void (*fn)(int, siginfo_t *, void *), int flags) {
  struct sigaction sa;
  for (unsigned i = 0; i < sizeof sa; i++) ((char *)&sa)[i] = 0;
  sa.sa_sigaction = fn;
  sa.sa_flags = flags | SA_SIGINFO;
  return sigaction(sig, &sa, 0) == 0 ? 0 : -EINVAL;
}

static const int k_forwarded[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2};

/* A signal ignored when the supervisor starts (nohup's HUP, a script's `&` INT and QUIT) stays
 * ignored: the command inherits that through exec, as it would untraced, and nothing forwards it. */
int xb_install_forwarding(void) {
  for (unsigned i = 0; i < sizeof k_forwarded / sizeof k_forwarded[0]; i++) {
    struct sigaction old;
    if (sigaction(k_forwarded[i], 0, &old) != 0) return -EINVAL;
    if (old.sa_handler == SIG_IGN) continue;
    int err = set_handler(k_forwarded[i], forward, SA_RESTART);
    if (err) return err;
  }
  return 0;
}

/* In L: S detached from the command's status (see tree.h); a signal from anyone else is ignored. */
static void on_detach(int sig, siginfo_t *info, void *ctx) {
  (void)sig;
  (void)ctx;
  if (info && info->si_pid == xb_launcher.child && xb_detach_status != -1) xb_exit_like(xb_detach_status);
}

int xb_install_detach(void) {
  return set_handler(XB_DETACH_SIGNAL, on_detach, SA_RESTART);
}

int xb_install_parent_death(void) {
  int err = set_handler(XB_PARENT_DEATH_SIGNAL, on_parent_death, SA_RESTART);
  if (err) return err;
  return (int)SYS2(SYS_prctl, PR_SET_PDEATHSIG, XB_PARENT_DEATH_SIGNAL);
}

/* ---------------------------------------------------------------- CPU */

static uint64_t g_orig_cpus[16]; /* 1024 CPUs */
static int g_pinned;

void xb_keep_to_this_cpu(void) {
  if (SYS3(SYS_sched_getaffinity, 0, sizeof g_orig_cpus, g_orig_cpus) <= 0) return; /* > 1024 CPUs: leave it */
  unsigned cpu = 0;
  if (SYS3(SYS_getcpu, &cpu, 0, 0) != 0 || cpu >= 1024) return;
  uint64_t one[16] = {0};
  one[cpu / 64] = 1ull << (cpu % 64);
  g_pinned = SYS3(SYS_sched_setaffinity, 0, sizeof one, one) == 0;
}

void xb_restore_cpus(void) {
  if (g_pinned) SYS3(SYS_sched_setaffinity, 0, sizeof g_orig_cpus, g_orig_cpus);
}
