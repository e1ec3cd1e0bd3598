/*
 * xbench-mac-launch: runs a command with libxbench-interpose.dylib inserted (macOS).
 * EXPERIMENTAL: built and checked (test/integration/macos-helpers.test.ts), never run on a Mac yet.
 *
 * LAUNCHER CLI CONTRACT (src/tracer/platform.ts builds this argv)
 *
 *   xbench-mac-launch [--dylib PATH.dylib] --log FILE [--die-with-parent] -- CMD [ARGS...]
 *
 *   Creates the record log FILE (../log.h, the same format as on Linux), then posix_spawns CMD
 *   (searched on PATH when it has no '/') with the caller's stdin, stdout, stderr, cwd and
 *   environment plus DYLD_INSERT_LIBRARIES=the dylib and XBENCH_TRACE_LOG=FILE, waits for it
 *   and exits as it did: its exit code, or the same signal re-raised (core dumps off). 125: the
 *   launcher itself could not start; 126/127: CMD not executable / not found. It prints
 *   nothing else. A `#!/usr/bin/env NAME` script is started as NAME (found on PATH) with the
 *   script as its first argument, as env would: env is SIP-protected, and NAME would run
 *   untraced under it. When macOS will strip DYLD_* from CMD (SIP: /usr/bin, /bin, ..., or a
 *   script whose interpreter lives there), CMD still runs and the log's XB_FLAG_SIP_STRIPPED
 *   says the trace is incomplete. --dylib defaults to libxbench-interpose.dylib beside this program.
 *   --die-with-parent: when the launcher's parent dies, kill CMD and delete the log (and its
 *   folder if left empty). Signals sent with kill() (TERM, HUP, INT, QUIT, USR1, USR2) are
 *   forwarded to CMD; terminal-generated ones are not (CMD gets its own copy).
 *   XBENCH_TRACE_LOG_CAPACITY=BYTES sizes the (sparse) log as on Linux.
 *
 * Differences from the Linux supervisor, for lack of a subreaper on macOS: the launcher waits
 * for CMD only, not for its whole tree, and on parent death kills CMD only.
 *
 * Rules: libc freely (this is not the traced process); every error before CMD starts ends in
 * exit 125 with one line on stderr.
 */
#include "../common/args.h"
#include "../common/env.h"
#include "../common/log.h"
#include "../unix/capacity.h"
#include "../unix/logfile.h"
#include "policy.h"
#include "search.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mach-o/dyld.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/event.h>
#include <sys/param.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_LAUNCHER 125
#define DYLIB_NAME "libxbench-interpose.dylib"

extern char **environ;

static pid_t g_child;

static void die(const char *what, int err) {
  fprintf(stderr, "xbench-mac-launch: %s: %s\n", what, strerror(err));
  _exit(EXIT_LAUNCHER);
}

static void usage(void) {
  fprintf(stderr, "usage: xbench-mac-launch [--dylib PATH] --log FILE [--die-with-parent] -- CMD [ARGS...]\n");
  _exit(EXIT_LAUNCHER);
}

/* The folder of `path` into dir (cap bytes): "." when it has no '/'. */
static void dirname_of(const char *path, char *dir, size_t cap) {
  snprintf(dir, cap, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, cap, ".");
  else if (slash == dir)
    dir[1] = 0;
  else
    *slash = 0;
}

/* Nobody is left to read the log: remove it, and its folder if that is now empty. */
static void remove_log(const char *log) {
  unlink(log);
  char dir[PATH_MAX];
  dirname_of(log, dir, sizeof dir);
  rmdir(dir);
}

/* Forwards kill()-sent signals to CMD (a terminal's reach CMD directly, in the same group).
 * TERM, USR1 and USR2 never come from a terminal: forwarded whatever si_code says (a signal
 * that was pending while blocked may arrive without its sender's details). */
static void forward(int sig, siginfo_t *info, void *uc) {
  (void)uc;
  int from_kill = (info && info->si_code == SI_USER) || sig == SIGTERM || sig == SIGUSR1 || sig == SIGUSR2;
  if (g_child > 0 && from_kill) kill(g_child, sig);
}

static const int FORWARDED[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2};

static void install_forwarding(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof FORWARDED / sizeof FORWARDED[0]; i++)
    if (sigaction(FORWARDED[i], &sa, NULL) != 0) die("sigaction", errno);
}

/* Exits the way CMD did: its code, or its signal re-raised on this process. */
static void exit_like(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  if (!WIFSIGNALED(status)) _exit(EXIT_LAUNCHER);
  int sig = WTERMSIG(status);
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  kill(getpid(), sig);
  _exit(128 + sig);
}

/*
 * Waits for CMD; with `parent` > 0 also watches the launcher's parent, and when it dies first
 * kills CMD and removes the log. Returns CMD's wait status.
 */
static int wait_child(pid_t child, pid_t parent, const char *log) {
  int status;
  if (parent > 0) {
    int kq = kqueue();
    if (kq < 0) die("kqueue", errno);
    struct kevent ev[2];
    EV_SET(&ev[0], child, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
    EV_SET(&ev[1], parent, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
    /* A parent already gone (ESRCH) is handled like one that dies now; a child already gone
     * (ESRCH) needs no waiting for. */
    int parent_gone = kevent(kq, &ev[1], 1, NULL, 0, NULL) != 0 || getppid() != parent;
    int child_gone = kevent(kq, &ev[0], 1, NULL, 0, NULL) != 0;
    if (child_gone && errno != ESRCH) die("kevent", errno);
    while (!parent_gone && !child_gone) {
      struct kevent got;
      int n = kevent(kq, NULL, 0, &got, 1, NULL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) die("kevent", errno);
      child_gone = (pid_t)got.ident == child;
      parent_gone = (pid_t)got.ident == parent;
    }
    close(kq);
    if (parent_gone) {
      kill(child, SIGKILL);
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
      remove_log(log);
      _exit(EXIT_LAUNCHER);
    }
  }
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) die("waitpid", errno);
  return status;
}

/* The caller's environment less the tracer's own variables (a nested trace gets this log). */
static char **caller_env(void) {
  size_t n = xb_env_count(environ), k = 0;
  char **env = calloc(n + 1, sizeof *env);
  if (!env) die("calloc", errno);
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], XB_ENV_LOG "=", sizeof XB_ENV_LOG) != 0 &&
        strncmp(environ[i], XB_ENV_MODE "=", sizeof XB_ENV_MODE) != 0)
      env[k++] = environ[i];
  return env;
}

enum { OPT_VERSION, OPT_DYLIB, OPT_LOG, OPT_DIE_WITH_PARENT };
static const struct xb_opt OPTIONS[] = {
    [OPT_VERSION] = {"--version", 0},
    [OPT_DYLIB] = {"--dylib", 1},
    [OPT_LOG] = {"--log", 1},
    [OPT_DIE_WITH_PARENT] = {"--die-with-parent", 0},
};

int main(int argc, char **argv) {
  const char *logpath = NULL, *dylib = NULL;
  int die_with_parent = 0;
  struct xb_args s = XB_ARGS_START(argc, argv);
  for (int opt; (opt = xb_next_opt(&s, OPTIONS, sizeof OPTIONS / sizeof OPTIONS[0])) != XB_ARGS_DONE;) {
    switch (opt) {
    case OPT_VERSION:
      printf("xbench-mac-launch log v%d\n", XBENCH_LOG_VERSION);
      return 0;
    case OPT_DYLIB:
      dylib = s.value;
      break;
    case OPT_LOG:
      logpath = s.value;
      break;
    case OPT_DIE_WITH_PARENT:
      die_with_parent = 1;
      break;
    default: /* XB_ARGS_BAD */
      usage();
    }
  }
  if (!logpath) usage();
  char **cmd_argv = argv + s.i;
  pid_t parent = die_with_parent ? getppid() : 0;

  char self[PATH_MAX], self_dir[PATH_MAX], dylib_default[PATH_MAX + sizeof DYLIB_NAME + 1];
  uint32_t size = sizeof self;
  if (!dylib) {
    if (_NSGetExecutablePath(self, &size) != 0) die("_NSGetExecutablePath", ENAMETOOLONG);
    dirname_of(self, self_dir, sizeof self_dir);
    snprintf(dylib_default, sizeof dylib_default, "%s/%s", self_dir, DYLIB_NAME);
    dylib = dylib_default;
  }
  char dylib_abs[PATH_MAX];
  if (!realpath(dylib, dylib_abs)) {
    fprintf(stderr, "xbench-mac-launch: interpose library %s: %s\n", dylib, strerror(errno));
    _exit(EXIT_LAUNCHER);
  }

  struct xb_log log;
  int err = xb_log_create(&log, logpath, xb_log_capacity("xbench-mac-launch", logpath, EXIT_LAUNCHER));
  if (err) die(logpath, -err);
  char log_abs[PATH_MAX];
  if (!realpath(logpath, log_abs)) die(logpath, errno);

  char found[PATH_MAX];
  const char *path = cmd_argv[0];
  if (!strchr(path, '/')) {
    if (!xb_search_path(getenv("PATH"), path, found, sizeof found, NULL, NULL)) {
      fprintf(stderr, "xbench-mac-launch: %s: command not found\n", path);
      _exit(127);
    }
    path = found;
  }
  /* A `#!/usr/bin/env NAME` script runs as NAME directly, as env would: env is SIP-protected. */
  char prog[PATH_MAX], name[NAME_MAX + 1];
  const char *run = path;
  char **run_argv = cmd_argv;
  if (xb_env_script(path, getenv("PATH"), prog, sizeof prog, name, sizeof name)) {
    size_t cap = xb_env_count(cmd_argv) + 3;
    char **av = calloc(cap, sizeof *av);
    if (!av) die("calloc", errno);
    if (xb_env_script_argv(name, path, cmd_argv, av, cap)) {
      run = prog;
      run_argv = av;
    }
  }
  if (run == path && xb_sip_strips(path)) xb_log_flag(&log, XB_FLAG_SIP_STRIPPED);

  char log_kv[PATH_MAX + sizeof XB_ENV_LOG + 1];
  snprintf(log_kv, sizeof log_kv, "%s=%s", XB_ENV_LOG, log_abs);
  char **base_env = caller_env();
  size_t cap = xb_env_count(base_env) + 3, bufcap = 2 * PATH_MAX + 64 * 1024;
  char **env = calloc(cap, sizeof *env), *buf = malloc(bufcap);
  if (!env || !buf) die("malloc", errno);
  if (xb_env_merge(base_env, dylib_abs, log_kv, env, cap, buf, bufcap) < 0) die("environment", E2BIG);

  /* Forwarded signals wait (blocked) until CMD exists. CMD gets the caller's signal mask and
   * ignored signals; the launcher's handlers are not inherited (exec resets caught signals). */
  sigset_t forwarded, caller_mask;
  sigemptyset(&forwarded);
  for (size_t k = 0; k < sizeof FORWARDED / sizeof FORWARDED[0]; k++) sigaddset(&forwarded, FORWARDED[k]);
  if (sigprocmask(SIG_BLOCK, &forwarded, &caller_mask) != 0) die("sigprocmask", errno);
  install_forwarding();
  posix_spawnattr_t attr;
  if ((err = posix_spawnattr_init(&attr)) || (err = posix_spawnattr_setsigmask(&attr, &caller_mask)) ||
      (err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK)))
    die("posix_spawnattr", err);
  struct xb_rec top = {.op = XB_OP_EXEC,
                       .src = XB_SRC_PRELOAD,
                       .result = XB_RESULT_PENDING,
                       .path_len = (uint32_t)strnlen(path, PATH_MAX),
                       .tsc = xb_now()};
  char cwd[PATH_MAX];
  if (path[0] != '/' && getcwd(cwd, sizeof cwd)) top.base_len = (uint16_t)strlen(cwd);
  pid_t child;
  err = posix_spawn(&child, run, NULL, &attr, run_argv, env);
  top.pid = err ? (uint32_t)getpid() : (uint32_t)child;
  top.result = err;
  xb_log_append(&log, &top, cwd, path);
  if (err) {
    fprintf(stderr, "xbench-mac-launch: %s: %s\n", path, strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  g_child = child;
  if (sigprocmask(SIG_SETMASK, &caller_mask, NULL) != 0) die("sigprocmask", errno); /* pending ones go to CMD */
  exit_like(wait_child(child, parent, log_abs));
}
