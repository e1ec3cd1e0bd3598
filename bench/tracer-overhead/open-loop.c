/*
 * open+close of argv[1] in a loop, argv[2] iterations after a warm-up.
 *
 *   open-loop PATH N        prints "wall_ns cpu_ns" per iteration. CPU time is this
 *                           process's only (immune to waiting for a busy machine); wall time
 *                           includes the seccomp supervisor's share.
 *   open-loop PREFIX N ab K cycles through the K files PREFIX0..PREFIX<K-1> instead of one
 *                           path, so every open is a first-time record for the shim (it skips
 *                           repeats of a path a thread accessed recently).
 *   open-loop PATH N ab     interleaves blocks of 200 opens through libc's open() (which the
 *                           preload shim interposes) with blocks of raw openat system calls
 *                           (inline, no libc: the shim decodes openat made through syscall(2)); prints the fastest
 * block of each, "libc_ns raw_ns" per open+close (the fastest block is the one nothing else interrupted). Their
 * difference, minus the same difference untraced, is the shim's own cost, measured in one process under one set of
 *                           conditions: robust on a noisy machine.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "../../native/linux/sys.h"

#include <unistd.h>

static double clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static char g_paths[4096][64]; /* with K files: the names to cycle through */
static long g_k, g_next;

static const char *next_path(const char *path) {
  if (!g_k) return path;
  const char *p = g_paths[g_next];
  g_next = (g_next + 1) % g_k;
  return p;
}

static int via_libc(const char *path, long n) {
  for (long i = 0; i < n; i++) {
    int fd = open(next_path(path), O_RDONLY);
    if (fd < 0) return 1;
    close(fd);
  }
  return 0;
}

static int via_syscall(const char *path, long n) {
  for (long i = 0; i < n; i++) {
    int fd = (int)xb_sys(SYS_openat, AT_FDCWD, (long)next_path(path), O_RDONLY, 0, 0);
    if (fd < 0) return 1;
    close(fd);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  const char *path = argv[1];
  long n = atol(argv[2]);
  if (argc > 4) {
    g_k = atol(argv[4]);
    if (g_k < 1 || g_k > 4096) return 2;
    for (long i = 0; i < g_k; i++)
      if (snprintf(g_paths[i], sizeof g_paths[i], "%s%ld", path, i) >= (int)sizeof g_paths[i]) return 2;
  }
  if (via_libc(path, n / 10 + 1)) return 1;
  if (argc > 3 && strcmp(argv[3], "ab") == 0) {
    enum { BLOCK = 200, MAX_BLOCKS = 20000 };
    static double libc[MAX_BLOCKS], raw[MAX_BLOCKS];
    long blocks = n / BLOCK;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    if (blocks < 1) blocks = 1;
    for (long b = 0; b < blocks; b++) {
      double t0 = clock_ns(CLOCK_MONOTONIC);
      if (via_libc(path, BLOCK)) return 1;
      double t1 = clock_ns(CLOCK_MONOTONIC);
      if (via_syscall(path, BLOCK)) return 1;
      double t2 = clock_ns(CLOCK_MONOTONIC);
      libc[b] = (t1 - t0) / BLOCK;
      raw[b] = (t2 - t1) / BLOCK;
    }
    /* The fastest blocks are the ones nothing else interrupted. */
    double min_libc = libc[0], min_raw = raw[0];
    for (long b = 1; b < blocks; b++) {
      if (libc[b] < min_libc) min_libc = libc[b];
      if (raw[b] < min_raw) min_raw = raw[b];
    }
    printf("%.1f %.1f\n", min_libc, min_raw);
    return 0;
  }
  double t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  if (via_libc(path, n)) return 1;
  double wall = clock_ns(CLOCK_MONOTONIC) - t0, cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
  printf("%.1f %.1f\n", wall / (double)n, cpu / (double)n);
  return 0;
}
