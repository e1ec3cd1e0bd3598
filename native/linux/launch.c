/*
 * xbench-supervisor: the launcher (static: musl on x86-64, glibc on arm64; runs on any Linux of
 * its architecture). This file is the start-up and the command's launch; the other concerns live
 * in their own files, each with its rules at the top: filter.c (the seccomp filter, installed in
 * the command's vfork child), notify.c and its role files (the notification server, notify.h),
 * tree.c (keepers of the tree, signals, CPU), log.c.
 *
 * Rules here: libc is fine in S before the command starts (errors end in exit 125 with one
 * line); after the split, L runs only tree.c; between vfork and exec the command's process
 * shares S's memory: async-signal-safe calls only, writing nothing of S's but `env` and
 * top_exec_errno (S reports a failed exec once vfork returns).
 *
 * LAUNCHER CLI CONTRACT (stable; the tracer-overhead suite and src/tracer/ depend on it)
 *
 *   xbench-supervisor [--backend auto|preload|seccomp] [--preload PATH.so] [--detach-ok] --log FILE -- CMD [ARGS...]
 *
 *   Runs CMD (searched on PATH when it has no '/') with the caller's stdin, stdout, stderr,
 *   environment and cwd, traces its whole process tree and writes the record log (log.h) to
 *   FILE (created or truncated; sparse, read it only up to the header's `tail`).
 *   --backend  auto (default): the preload shim in every dynamic program, and a seccomp filter on
 *              the whole tree that lets the shim's own calls through (from its trampoline page,
 *              trampoline.h) and reports the rest: ld.so's and glibc's internal calls, static and
 *              Go programs. preload: the shim alone. seccomp: the filter alone, every call
 *              reported. When the kernel or a sandbox refuses seccomp, auto and seccomp fall
 *              back to the shim alone and the log says so (XB_FLAG_SECCOMP_REFUSED).
 *   --preload  the shim; default `libxbench-preload.so` next to this binary.
 *   --ignore-signals N,N  signals (numbers) to ignore for the whole tree and never forward: the
 *              ones the caller was started with ignored (nohup's HUP), which its runtime's spawn
 *              reset to the default for this process.
 *   --detach-ok  end with CMD's own process: when it exits while descendants run on (a daemon),
 *              the supervisor exits with its status at once, the log says so (XB_FLAG_DETACHED)
 *              and takes no more records, and the descendants run on, their calls still served.
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
 *   Environment: XBENCH_TRACE_LOG_CAPACITY=BYTES sizes the (sparse) log, default 1 GiB, at most
 *   what its file system has free at start (a write past a full tmpfs would be a SIGBUS in the
 *   traced program); records that do not fit are counted in the header's `dropped` and mark the
 *   trace incomplete. Read the log with readAccessLog() from src/tracer (or follow log.h).
 *
 *   xbench-supervisor --version      prints "xbench-supervisor log vN".
 *
 * Processes: launcher L (the pid the caller sees, a child subreaper) -> supervisor S (child
 * subreaper, serves the seccomp listener on a thread) -> CMD. If L dies, S gets a parent-death
 * signal and kills every descendant; if S dies, its orphans reparent to L, which kills them. CMD
 * has PR_SET_PDEATHSIG(SIGKILL) on S. L and S share memory (tree.h: L runs raw system calls
 * only), so the split costs no page-table copy.
 *
 * Seccomp: the listener travels from CMD's vfork child to S over a socketpair S made: no name
 * anyone else could take or connect to.
 */
#define _GNU_SOURCE
#include "../common/args.h"
#include "../common/env.h"
#include "filter.h"
#include "../common/log.h"
#include "../unix/capacity.h"
#include "../unix/logfile.h"
#include "notify.h"
#include "progkind.h"
#include "tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#define EXIT_LAUNCHER 125
#define XB_RSS_REPORT_TAIL (1u << 20) /* log bytes past which S reports its peak RSS */

enum backend { BACKEND_AUTO, BACKEND_PRELOAD, BACKEND_SECCOMP };

static struct xb_log g_log;

static void die(const char *what, int err) {
  fprintf(stderr, "xbench-supervisor: %s: %s\n", what, strerror(err));
  _exit(EXIT_LAUNCHER);
}

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

/*
 * 1 if the loader will run `path` securely for this process (setuid or setgid to another id, or
 * file capabilities for a user other than root): it then leaves out a preload with a '/' in it,
 * without a word. The shim's exec wrappers tell so of what the command runs (shim-exec.c); this
 * is the command itself.
 */
static int runs_securely(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  int caps = getxattr(path, "security.capability", NULL, 0) > 0;
  return ((st.st_mode & S_ISUID) && st.st_uid != geteuid()) || ((st.st_mode & S_ISGID) && st.st_gid != getegid()) ||
         (caps && geteuid() != 0);
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
    if (dlen)
      sprintf(cand, "%.*s/%s", (int)dlen, p, cmd);
    else
      strcpy(cand, cmd);
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

static int owned(const char *entry) {
#define XB_OWNED_MATCH(name)                                                                                           \
  if (has_name(entry, name)) return 1;
  XB_ENV_OWNED(XB_OWNED_MATCH)
#undef XB_OWNED_MATCH
  return 0;
}

static char *env_pair(const char *name, const char *value) {
  size_t len = strlen(name) + strlen(value) + 2;
  char *s = malloc(len);
  if (!s) die("malloc", ENOMEM);
  snprintf(s, len, "%s=%s", name, value);
  return s;
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
    if (owned(*e)) continue;
    if (has_name(*e, XB_ENV_PRELOAD)) {
      old_preload = *e + sizeof XB_ENV_PRELOAD;
      continue;
    }
    out[k++] = *e;
  }
  for (size_t i = 0; i < m; i++) out[k++] = extra[i];
  if (shim) {
    char *v = env_pair(XB_ENV_PRELOAD, shim);
    if (old_preload && *old_preload) {
      free(v);
      size_t len = strlen(shim) + strlen(old_preload) + 2;
      char *joined = malloc(len);
      if (!joined) die("malloc", ENOMEM);
      snprintf(joined, len, "%s:%s", shim, old_preload);
      v = env_pair(XB_ENV_PRELOAD, joined);
      free(joined);
    }
    out[k++] = v;
  } else if (old_preload) {
    out[k++] = (char *)old_preload - sizeof XB_ENV_PRELOAD;
  }
  out[k] = NULL;
  return out;
}

static void usage(void) {
  fprintf(
      stderr,
      "usage: xbench-supervisor [--backend auto|preload|seccomp] [--preload PATH.so] --log FILE -- CMD [ARGS...]\n");
  _exit(EXIT_LAUNCHER);
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

/* --ignore-signals N,N...: the signals the caller's own caller ignored, which the caller's
 * runtime reset when it spawned this (Bun, libuv): ignored again, the command inherits them as
 * it would untraced (nohup's HUP), and nothing forwards them. */
static void ignore_signals(const char *list) {
  for (const char *p = list; *p;) {
    char *end;
    long sig = strtol(p, &end, 10);
    if (end == p || sig <= 0 || sig >= NSIG || (*end && *end != ',')) usage();
    if (signal((int)sig, SIG_IGN) == SIG_ERR) die("signal", errno);
    p = *end ? end + 1 : end;
  }
}

/* Orphans of the tree reparent to a subreaper, which waits for them. qemu-user (an arm64 binary
 * on an x86-64 host through binfmt_misc) refuses it with EINVAL: then the tree is waited for
 * through its parents, and a process orphaned in it (a daemon) may outlive the trace. */
static void become_subreaper(void) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 && errno != EINVAL) die("PR_SET_CHILD_SUBREAPER", errno);
}

/* L after the split: shares S's memory, so raw system calls only (tree.h). */
static char g_launcher_stack[32 * 1024] __attribute__((aligned(16)));
static void launcher_main(long s) {
  xb_sys(SYS_set_tid_address, 0, 0, 0, 0, 0); /* L's exit must not clear S's libc thread-list lock */
  xb_launcher.child = (pid_t)s;
  xb_signals_restore(); /* on L's own stack now: a forwarded signal finds its child */
  xb_exit_like(xb_reap_all(&xb_launcher, (pid_t)s, 1));
}

/* The command line. Static: read in S after vfork (-Wclobbered). */
static struct {
  enum backend backend;
  const char *logpath, *preload;
  int die_with_parent, detach_ok;
  char **cmd_argv;
} g_opt;
static int g_top_exec_errno; /* set by CMD if its exec fails, read by S once vfork returns */
static int g_top_secure; /* CMD runs securely (runs_securely): the shim cannot be in it */

/* The options, in the order of the switch below. */
enum { OPT_VERSION, OPT_BACKEND, OPT_PRELOAD, OPT_IGNORE_SIGNALS, OPT_DIE_WITH_PARENT, OPT_DETACH_OK, OPT_LOG };
static const struct xb_opt OPTIONS[] = {
    [OPT_VERSION] = {"--version", 0},
    [OPT_BACKEND] = {"--backend", 1},
    [OPT_PRELOAD] = {"--preload", 1},
    [OPT_IGNORE_SIGNALS] = {"--ignore-signals", 1},
    [OPT_DIE_WITH_PARENT] = {"--die-with-parent", 0},
    [OPT_DETACH_OK] = {"--detach-ok", 0},
    [OPT_LOG] = {"--log", 1},
};

/* The options into g_opt; --version prints and exits; anything else wrong ends in usage(). */
static void parse_args(int argc, char **argv) {
  struct xb_args s = XB_ARGS_START(argc, argv);
  for (int opt; (opt = xb_next_opt(&s, OPTIONS, sizeof OPTIONS / sizeof OPTIONS[0])) != XB_ARGS_DONE;) {
    switch (opt) {
    case OPT_VERSION:
      printf("xbench-supervisor log v%d\n", XBENCH_LOG_VERSION);
      exit(0);
    case OPT_BACKEND:
      if (strcmp(s.value, "auto") == 0)
        g_opt.backend = BACKEND_AUTO;
      else if (strcmp(s.value, "preload") == 0)
        g_opt.backend = BACKEND_PRELOAD;
      else if (strcmp(s.value, "seccomp") == 0)
        g_opt.backend = BACKEND_SECCOMP;
      else
        usage();
      break;
    case OPT_PRELOAD:
      g_opt.preload = s.value;
      break;
    case OPT_IGNORE_SIGNALS:
      ignore_signals(s.value);
      break;
    case OPT_DIE_WITH_PARENT:
      g_opt.die_with_parent = 1;
      break;
    case OPT_DETACH_OK:
      g_opt.detach_ok = 1;
      break;
    case OPT_LOG:
      g_opt.logpath = s.value;
      break;
    default: /* XB_ARGS_BAD */
      usage();
    }
  }
  if (!g_opt.logpath) usage();
  g_opt.cmd_argv = argv + s.i;
}

/* L's set-up, then the split: L waits for S and reproduces its status; this returns in S. Split
 * before any other set-up: S's writes then land on fresh pages of their own. Signals are held
 * from before their handlers exist until each side's child does (L: S; S: the command). */
static void split_launcher(void) {
  xb_keep_to_this_cpu();
  if (g_opt.die_with_parent) {
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) die("PR_SET_PDEATHSIG", errno);
    if (getppid() != parent) _exit(EXIT_LAUNCHER);
  }
  xb_launcher.self = getpid();
  become_subreaper();
  long held = xb_signals_hold(); /* before the handlers: nothing they could drop arrives unheld */
  if (held) die("sigprocmask", (int)-held);
  int err = xb_install_forwarding();
  if (err) die("sigaction", -err);
  if (g_opt.detach_ok && (err = xb_install_detach())) die("sigaction", -err);

  pid_t launcher = xb_launcher.self;
  long split = xb_split(launcher_main, g_launcher_stack + sizeof g_launcher_stack);
  if (split < 0) die("clone", (int)-split);

  /* S */
  xb_sup.self = getpid();
  if ((err = xb_install_parent_death())) die("parent-death signal", -err);
  if (getppid() != launcher) _exit(EXIT_LAUNCHER);
  become_subreaper();
}

/* The shim's absolute path into shim (PATH_MAX): --preload, or the one next to this binary.
 * Empty under seccomp when it is missing: only needed as a fallback if seccomp is refused. */
static void find_shim(char *shim) {
  char self[PATH_MAX];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) die("readlink /proc/self/exe", errno);
  self[sl] = 0;
  const char *preload = g_opt.preload;
  char shim_default[PATH_MAX + 32];
  if (!preload) {
    snprintf(shim_default, sizeof shim_default, "%.*s/libxbench-preload.so", (int)(strrchr(self, '/') - self), self);
    preload = shim_default;
  }
  if (!realpath(preload, shim)) {
    if (g_opt.backend != BACKEND_SECCOMP) {
      fprintf(stderr, "xbench-supervisor: preload library %s: %s\n", preload, strerror(errno));
      _exit(EXIT_LAUNCHER);
    }
    shim[0] = 0;
  }
}

/* Creates the log (g_log); its absolute path into log_abs (PATH_MAX). */
static void open_log(char *log_abs) {
  const char *logpath = g_opt.logpath;
  int err = xb_log_create(&g_log, logpath, xb_log_capacity("xbench-supervisor", logpath, EXIT_LAUNCHER));
  if (err) die(logpath, -err);
  if (!realpath(logpath, log_abs)) die(logpath, errno);
}

/* CMD's path (malloc'd); exits 127/126 as a shell would when it is not found or not executable. */
static char *command_path(void) {
  const char *cmd = g_opt.cmd_argv[0];
  char *path = resolve_command(cmd);
  if (!path) {
    int e = errno;
    fprintf(stderr, "xbench-supervisor: %s: %s\n", cmd, e == ENOENT ? "command not found" : strerror(e));
    _exit(e == ENOENT ? 127 : 126);
  }
  if (g_opt.backend == BACKEND_PRELOAD && xb_needs_seccomp(path)) xb_log_flag(&g_log, XB_FLAG_STATIC_UNTRACED);
  return path;
}

/* The filter and its server, before the command exists (its own exec is then already reported).
 * The command's end of the socketpair that carries the listener into sv; {-1, -1} without seccomp. */
static void start_server(int sv[2]) {
  if (g_opt.backend == BACKEND_PRELOAD) return;
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) die("socketpair", errno);
  xb_filter_build(g_opt.backend == BACKEND_AUTO);
  int err = xb_notify_start(&g_log, sv[0]);
  if (err) die("pthread_create", err);
}

/* The command's environments: env as planned, fallback if seccomp is refused (the shim alone). */
struct envs {
  char **env, **fallback;
};
static struct envs make_envs(const char *log_abs, const char *shim) {
  enum backend backend = g_opt.backend;
  char *traced[3] = {env_pair(XB_ENV_LOG, log_abs), NULL, NULL};
  traced[1] = env_pair(XB_ENV_MODE, backend == BACKEND_AUTO ? XB_MODE_HYBRID : XB_MODE_PRELOAD);
  char *fallback[3] = {traced[0], env_pair(XB_ENV_MODE, XB_MODE_PRELOAD), NULL};
  struct envs e;
  const char *preload = shim[0] ? shim : NULL;
  e.env = backend == BACKEND_SECCOMP ? make_env(traced, NULL) : make_env(traced, preload);
  e.fallback = backend == BACKEND_PRELOAD ? e.env : make_env(fallback, preload);
  return e;
}

/* CMD, sharing S's memory until exec: async-signal-safe calls only, no writes to S's variables
 * except `env`, which S no longer reads, and g_top_exec_errno. Never returns. */
static __attribute__((noreturn)) void exec_command(const char *path, char **env, char **env_fallback,
                                                   int listener_end) {
  xb_sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (xb_sys(SYS_getppid, 0, 0, 0, 0, 0) != xb_sup.self) xb_sys(SYS_exit, EXIT_LAUNCHER, 0, 0, 0, 0);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(XB_PARENT_DEATH_SIGNAL, &dfl, NULL);
  if (g_opt.backend != BACKEND_PRELOAD) {
    int e = xb_filter_install(listener_end);
    if (e) {
      xb_log_flag(&g_log, XB_FLAG_SECCOMP_REFUSED);
      __atomic_store_n(&g_log.hdr->seccomp_errno, e, __ATOMIC_RELAXED);
      env = env_fallback; /* use what works */
      if (g_top_secure) xb_log_flag(&g_log, XB_FLAG_SHIM_DROPPED);
    }
  }
  xb_signals_restore();
  xb_restore_cpus();
  execve(path, g_opt.cmd_argv, env);
  int e = errno;
  g_top_exec_errno = e; /* S says why, once vfork returns: strerror is no call for here */
  _exit(e == ENOENT ? 127 : 126);
}

/* The top command's own exec (the shim only sees the execs it makes), timed at exec_tsc. */
static void record_top_exec(pid_t c, const char *path, uint64_t exec_tsc) {
  struct xb_rec top = {.op = XB_OP_EXEC,
                       .src = XB_SRC_SECCOMP,
                       .pid = (uint32_t)c,
                       .result = g_top_exec_errno,
                       .path_len = (uint32_t)strnlen(path, PATH_MAX),
                       .tsc = exec_tsc};
  if (path[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) {
      top.base_len = (uint16_t)strlen(cwd);
      xb_log_append(&g_log, &top, cwd, path);
    } else { /* a cwd too long to name (or removed): say so, no bare name */
      xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED);
    }
  } else {
    xb_log_append(&g_log, &top, NULL, path);
  }
}

/* The tree is gone, every call of it answered: the last records, the log's fate, S's peak RSS;
 * then S ends as the command did (`st`). */
static __attribute__((noreturn)) void finish(int st, const char *log_abs) {
  xb_notify_drain();
  if (g_opt.die_with_parent && xb_sup.parent_died) remove_log(log_abs);
  /* S allocates nothing per call: its memory grows only with the log pages it touches, so a
   * small log says enough (and a /proc read, 7-50 us by VM, would tax every short launch). */
  if (g_log.hdr->tail > XB_RSS_REPORT_TAIL) g_log.hdr->supervisor_maxrss_kb = peak_rss_kb();
  xb_exit_like(st);
}

/* Starts CMD; returns its pid once it has exec'd (or failed to). Not inlined: only this frame
 * lives across vfork (-Wclobbered). vfork: no copy of S's page tables (fork+exec is the launch
 * cost on slow-VM kernels). */
static __attribute__((noinline)) pid_t launch(const char *path, struct envs envs, int listener_end) {
  pid_t c = vfork();
  if (c < 0) die("vfork", errno);
  if (c == 0) exec_command(path, envs.env, envs.fallback, listener_end);
  xb_sup.child = c;
  xb_signals_restore(); /* pending forwarded signals now reach the command */
  if (listener_end >= 0 && close(listener_end) != 0) die("close", errno); /* the server sees EOF if no listener came */
  return c;
}

/*
 * --detach-ok, the command gone and descendants left: the trace ends here. The log is closed
 * (every record begun is finished first), L exits with the command's status, and S stays, no
 * longer tied to L, to serve the tree's calls until it is gone.
 */
static __attribute__((noreturn)) void detach(int st) {
  /* The caller's stdin, stdout and stderr are the caller's again: a pipe it reads to its end
   * (`xbench trace ... | tee`) must not wait for S. */
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) die("/dev/null", errno);
  for (int fd = 0; fd < 3; fd++)
    if (dup2(null, fd) != fd) die("dup2", errno);
  if (close(null) != 0) die("close", errno);
  xb_notify_close();
  xb_log_flag(&g_log, XB_FLAG_DETACHED);
  if (prctl(PR_SET_PDEATHSIG, 0) != 0) die("PR_SET_PDEATHSIG", errno);
  xb_detach_status = st;
  if (getppid() != xb_launcher.self) _exit(EXIT_LAUNCHER); /* L is gone: nobody to tell */
  if (kill(xb_launcher.self, XB_DETACH_SIGNAL) != 0) die("kill", errno);
  xb_reap_all(&xb_sup, 0, 0);
  _exit(0);
}

int main(int argc, char **argv) {
  parse_args(argc, argv);
  split_launcher(); /* from here on, S */
  char shim[PATH_MAX], log_abs[PATH_MAX];
  find_shim(shim);
  open_log(log_abs);
  char *path = command_path();
  /* ld.so listing libraries (ldd's, `ld.so --list`) would list the shim among them: as the shim
   * does at an exec (progkind.h), it is left out, as that process runs nothing it could trace. */
  if (xb_lists_objects(path, g_opt.cmd_argv, environ)) shim[0] = 0;
  /* Without a filter's no_new_privs (preload, or auto where seccomp is refused), a program run
   * securely drops the shim: the trace says so, and under preload the shim is left out, as the
   * shim does at an exec it cannot follow. */
  g_top_secure = runs_securely(path);
  if (g_top_secure && g_opt.backend == BACKEND_PRELOAD) {
    xb_log_flag(&g_log, XB_FLAG_SHIM_DROPPED);
    shim[0] = 0;
  }
  int sv[2] = {-1, -1};
  start_server(sv);
  struct envs envs = make_envs(log_abs, shim);

  uint64_t exec_tsc = xb_now(); /* before the command can record anything */
  pid_t c = launch(path, envs, sv[1]);
  if (g_top_exec_errno) fprintf(stderr, "xbench-supervisor: %s: %s\n", path, strerror(g_top_exec_errno));
  record_top_exec(c, path, exec_tsc);
  if (g_opt.detach_ok) {
    int left;
    int st = xb_reap_main(&xb_sup, c, &left);
    if (left) detach(st);
    finish(st, log_abs);
  }
  finish(xb_reap_all(&xb_sup, c, 0), log_abs);
}
