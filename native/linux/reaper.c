/*
 * xbench-reaper -- CMD [ARGS...]
 *
 * Runs CMD so that nothing it starts outlives it or xbench. Every process xbench starts on
 * Linux (bench processes, builds, installs, the bundler) goes through here, because a process
 * group is not enough: a bench may start a child in its own session, and a SIGKILL of xbench
 * runs no clean-up at all.
 *
 * - The reaper dies with xbench: PR_SET_PDEATHSIG(SIGTERM) on itself, handled like any stop
 *   request below. CMD gets PR_SET_PDEATHSIG(SIGKILL), so it dies with the reaper even when
 *   the reaper itself is SIGKILLed.
 * - It is a child subreaper: descendants orphaned by their parents (double forks, setsid
 *   daemons) are re-parented to it, not to init, so it can always find them.
 * - When CMD exits, or when the reaper gets SIGTERM, SIGINT, SIGHUP or SIGQUIT (a timeout,
 *   Ctrl-C or the death of xbench), it SIGKILLs every descendant and waits for all of them,
 *   then exits the way CMD did (or dies of the signal it got). So the round ends when CMD
 *   exits: no grandchild is left to hold its stdout open.
 *
 * CMD inherits stdin, stdout, stderr, the environment and the process group. When CMD cannot
 * be started the reaper prints "xbench-reaper: cannot start CMD: reason" and exits 127.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_REAPER 125

static void die(const char *what, int err) {
  fprintf(stderr, "xbench-reaper: %s: %s\n", what, strerror(err));
  exit(EXIT_REAPER);
}

/* The parent pid in /proc/<pid>/stat: the field after the state, after the last ')'. */
static pid_t parent_of(const char *pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%s/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1; /* exited meanwhile */
  ssize_t n;
  do n = read(fd, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  char *end = strrchr(buf, ')');
  if (!end) return -1;
  char state;
  int ppid;
  if (sscanf(end + 1, " %c %d", &state, &ppid) != 2) return -1;
  return (pid_t)ppid;
}

/* SIGKILLs every process whose parent is the reaper; returns how many it found. */
static int kill_children(pid_t self) {
  DIR *proc = opendir("/proc");
  if (!proc) die("opendir /proc", errno);
  int found = 0;
  for (;;) {
    errno = 0; /* readdir reports errors only through errno; the calls below set it too */
    struct dirent *entry = readdir(proc);
    if (!entry) {
      if (errno != 0) die("readdir /proc", errno);
      break;
    }
    const char *name = entry->d_name;
    if (name[0] < '1' || name[0] > '9') continue;
    if (parent_of(name) != self) continue;
    pid_t pid = (pid_t)strtol(name, NULL, 10);
    if (kill(pid, SIGKILL) != 0 && errno != ESRCH) die("kill", errno);
    found++;
  }
  if (closedir(proc) != 0) die("closedir /proc", errno);
  return found;
}

/*
 * Kills the whole tree below the reaper. A killed child's own children are re-parented to
 * the reaper (it is their subreaper) when it dies, so kill, wait for one death, look again,
 * until no child is left. A killed process can start nothing more, so this ends.
 */
static void kill_tree(pid_t self) {
  for (;;) {
    kill_children(self);
    pid_t p = waitpid(-1, NULL, __WALL);
    if (p < 0 && errno == ECHILD) return;
    if (p < 0 && errno != EINTR) die("waitpid", errno);
  }
}

/* Exits as CMD did, or dies of `sig` (core dumps off: the core would be the reaper's, not CMD's). */
static void exit_like(int status, int sig) {
  if (!sig && WIFEXITED(status)) exit(WEXITSTATUS(status));
  if (!sig) sig = WTERMSIG(status);
  struct rlimit none = {0, 0};
  if (setrlimit(RLIMIT_CORE, &none) != 0) die("setrlimit", errno);
  /* SIGKILL cannot be given a handler (signal() fails with EINVAL): it kills as it is. */
  if (sig != SIGKILL && signal(sig, SIG_DFL) == SIG_ERR) die("signal", errno);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  if (sigprocmask(SIG_UNBLOCK, &only, NULL) != 0) die("sigprocmask", errno);
  raise(sig);
  exit(128 + sig); /* a signal that does not kill by default */
}

int main(int argc, char **argv) {
  int first = argc > 1 && strcmp(argv[1], "--") == 0 ? 2 : 1;
  if (first >= argc) {
    fprintf(stderr, "usage: xbench-reaper -- CMD [ARGS...]\n");
    return 2;
  }
  char **cmd = argv + first;
  pid_t parent = getppid();
  pid_t self = getpid();

  /* Blocked before PR_SET_PDEATHSIG, so a death of xbench from here on waits in sigwaitinfo. */
  sigset_t waited, original;
  sigemptyset(&waited);
  int stops[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
  for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) sigaddset(&waited, stops[i]);
  sigaddset(&waited, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &waited, &original) != 0) die("sigprocmask", errno);
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) die("PR_SET_PDEATHSIG", errno);
  if (getppid() != parent) return EXIT_REAPER; /* xbench died before the line above */
  /* qemu-user (an arm64 xbench on an x86-64 host) refuses it with EINVAL: run on, reaching only
   * descendants whose parents are still alive, rather than fail every bench process. */
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 && errno != EINVAL) die("PR_SET_CHILD_SUBREAPER", errno);

  /* CMD reports a failed exec through a close-on-exec pipe: EOF means it started. */
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) die("pipe2", errno);
  pid_t child = fork();
  if (child < 0) die("fork", errno);
  if (child == 0) {
    int err = 0;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
      err = errno;
    else if (getppid() != self)
      _exit(EXIT_REAPER);
    else if (sigprocmask(SIG_SETMASK, &original, NULL) != 0)
      err = errno;
    else {
      execvp(cmd[0], cmd);
      err = errno;
    }
    ssize_t w;
    do w = write(report[1], &err, sizeof err);
    while (w < 0 && errno == EINTR);
    _exit(127);
  }
  if (close(report[1]) != 0) die("close", errno);
  int exec_error = 0;
  ssize_t got;
  do got = read(report[0], &exec_error, sizeof exec_error);
  while (got < 0 && errno == EINTR);
  if (got < 0) die("read", errno);
  if (close(report[0]) != 0) die("close", errno);
  if (got == (ssize_t)sizeof exec_error) {
    kill_tree(self);
    const char *why = exec_error == ENOENT ? "command not found" : strerror(exec_error);
    fprintf(stderr, "xbench-reaper: cannot start %s: %s\n", cmd[0], why);
    return 127;
  }

  int status = 0;
  int stop = 0;
  for (;;) {
    siginfo_t info;
    int sig = sigwaitinfo(&waited, &info);
    if (sig < 0) {
      if (errno == EINTR) continue;
      die("sigwaitinfo", errno);
    }
    if (sig != SIGCHLD) {
      stop = sig;
      break;
    }
    /* Reap whatever exited: CMD, or orphans re-parented here that died on their own. */
    int done = 0;
    for (;;) {
      int st;
      pid_t p = waitpid(-1, &st, WNOHANG | __WALL);
      if (p < 0 && errno == EINTR) continue;
      if (p <= 0) break;
      if (p == child) {
        status = st;
        done = 1;
      }
    }
    if (done) break;
  }
  kill_tree(self);
  exit_like(status, stop);
  return EXIT_REAPER;
}
