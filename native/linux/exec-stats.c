/*
 * xbench-exec-stats --out FILE -- CMD [ARGS...]
 *
 * Times one launch of CMD and reads its peak RSS, for the command rows of bench files. Why a
 * static program of a few pages: a child's peak RSS starts from the image its process had
 * before exec, and a vfork-style spawn (posix_spawn) shares the parent's, so a launch from a
 * Bun or node process reports that runtime (~35 MB) for any small command. From here it starts
 * near nothing.
 *
 * CMD inherits stdin, stdout and stderr. FILE gets one JSON object:
 *   {"wallNs":N,"maxRssBytes":N,"exitCode":N|null,"signal":"SIGx"|null}
 * or, when CMD cannot be started, {"error":"CMD: reason"} (exit 127 or 126).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *const k_signals[] = {
    [SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",       [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
    [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",     [SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",
    [SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1",     [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
    [SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM",     [SIGTERM] = "SIGTERM", [SIGSTKFLT] = "SIGSTKFLT",
    [SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT",     [SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP",
    [SIGTTIN] = "SIGTTIN", [SIGTTOU] = "SIGTTOU",     [SIGURG] = "SIGURG",   [SIGXCPU] = "SIGXCPU",
    [SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF", [SIGWINCH] = "SIGWINCH",
    [SIGIO] = "SIGIO",     [SIGPWR] = "SIGPWR",       [SIGSYS] = "SIGSYS",
};

static int write_file(const char *path, const char *text, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  while (len > 0) {
    ssize_t n = write(fd, text, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      close(fd);
      return e;
    }
    text += n;
    len -= (size_t)n;
  }
  return close(fd) == 0 ? 0 : errno;
}

/* `s` as the inside of a JSON string, cut to fit `cap` (bytes >= 0x80 pass: valid UTF-8 stays so). */
static void json_escape(char *out, size_t cap, const char *s) {
  size_t k = 0;
  for (; *s && k + 7 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[k++] = '\\';
      out[k++] = (char)c;
    } else if (c < 0x20) {
      k += (size_t)snprintf(out + k, cap - k, "\\u%04x", c);
    } else {
      out[k++] = (char)c;
    }
  }
  out[k] = 0;
}

static int finish(const char *out, const char *json, int n, int code) {
  if (n < 0) return 2;
  int e = write_file(out, json, (size_t)n);
  if (e) {
    fprintf(stderr, "xbench-exec-stats: %s: %s\n", out, strerror(e));
    return 2;
  }
  return code;
}

int main(int argc, char **argv) {
  if (argc < 5 || strcmp(argv[1], "--out") != 0 || strcmp(argv[3], "--") != 0) {
    fprintf(stderr, "usage: xbench-exec-stats --out FILE -- CMD [ARGS...]\n");
    return 2;
  }
  const char *out = argv[2];
  char **cmd = argv + 4;
  char json[8192];

  struct timespec start, end;
  if (clock_gettime(CLOCK_MONOTONIC, &start) != 0) return finish(out, json, -1, 2);
  pid_t pid;
  int err = posix_spawnp(&pid, cmd[0], NULL, NULL, cmd, environ);
  if (err) {
    char name[4096];
    json_escape(name, sizeof name, cmd[0]);
    const char *why = err == ENOENT ? "command not found" : strerror(err);
    return finish(out, json, snprintf(json, sizeof json, "{\"error\":\"%s: %s\"}\n", name, why),
                  err == ENOENT ? 127 : 126);
  }
  int status;
  struct rusage usage;
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "xbench-exec-stats: wait4: %s\n", strerror(errno));
      return 2;
    }
  }
  if (clock_gettime(CLOCK_MONOTONIC, &end) != 0) return 2;
  long long wall_ns = (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
  long long rss = (long long)usage.ru_maxrss * 1024; /* Linux reports KiB */
  int n;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char *name = sig > 0 && sig < (int)(sizeof k_signals / sizeof k_signals[0]) ? k_signals[sig] : NULL;
    n = name ? snprintf(json, sizeof json,
                        "{\"wallNs\":%lld,\"maxRssBytes\":%lld,\"exitCode\":null,\"signal\":\"%s\"}\n", wall_ns, rss,
                        name)
             : snprintf(json, sizeof json,
                        "{\"wallNs\":%lld,\"maxRssBytes\":%lld,\"exitCode\":null,\"signal\":\"SIG%d\"}\n", wall_ns, rss,
                        sig);
  } else {
    n = snprintf(json, sizeof json, "{\"wallNs\":%lld,\"maxRssBytes\":%lld,\"exitCode\":%d,\"signal\":null}\n", wall_ns,
                 rss, WEXITSTATUS(status));
  }
  return finish(out, json, n, 0);
}
