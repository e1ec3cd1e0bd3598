/*
 * What installing the supervisor's seccomp filter costs (native/linux/filter.c, built here as it
 * is), against a one-number filter (notify openat, allow the rest): the floor of any filter with
 * a listener. Each install runs in a fresh child (a filter cannot be removed); the kernel checks
 * and compiles the filter and runs it once per call number to cache the numbers whose answer
 * needs no argument. Prints "xbench_ns floor_ns": the median over N children of each, alternating.
 *
 *   filter-install N
 */
#include "../../native/linux/filter.c"
#include "floor-filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

static double clock_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Installs `prog` in a child; the nanoseconds the seccomp() call took, or -1. */
static double install_once(const struct sock_fprog *prog) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    double took = -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
      double t0 = clock_ns();
      long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
      if (fd >= 0) took = clock_ns() - t0;
    }
    _exit(write(pipefd[1], &took, sizeof took) == sizeof took ? 0 : 1);
  }
  double took = -1;
  if (read(pipefd[0], &took, sizeof took) != sizeof took) took = -1;
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) took = -1;
  close(pipefd[0]);
  close(pipefd[1]);
  return took;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 2 || atoi(argv[1]) < 1) return fprintf(stderr, "usage: filter-install N\n"), 2;
  int n = atoi(argv[1]);
  xb_filter_build(1); /* auto's filter, the longer of the two */
  double *ours = calloc((size_t)n, sizeof *ours), *base = calloc((size_t)n, sizeof *base);
  if (!ours || !base) return fprintf(stderr, "out of memory\n"), 1;
  for (int i = 0; i < n; i++) {
    ours[i] = install_once(&g_prog);
    base[i] = install_once(&g_floor_prog);
    if (ours[i] < 0 || base[i] < 0) return fprintf(stderr, "seccomp: cannot install a filter here\n"), 1;
  }
  qsort(ours, (size_t)n, sizeof *ours, by_value);
  qsort(base, (size_t)n, sizeof *base, by_value);
  printf("%.0f %.0f\n", ours[n / 2], base[n / 2]);
  return 0;
}
