/*
 * The floor of any shared-memory recorder on this machine: argv[2] records of a 56-byte path,
 * each one atomic add on a tail and a memcpy, into a fresh MAP_SHARED mapping of a sparse file
 * in the directory argv[1] (where trace logs go). Every page is new, as for a tracer writing
 * distinct paths, so each first touch's fault is in the figure. Prints ns per record.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: record-floor DIR N\n"), 2;
  long n = atol(argv[2]);
  const size_t record = 8 + 32 + 56; /* frame header + fixed fields + path, like log.h's */
  size_t size = (size_t)n * record + 4096;
  char file[4096];
  snprintf(file, sizeof file, "%s/record-floor-%d", argv[1], (int)getpid());
  int fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return perror(file), 1;
  unlink(file);
  if (ftruncate(fd, (off_t)size) != 0) return perror("ftruncate"), 1;
  char *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) return perror("mmap"), 1;
  static const char path[56] = "/tmp/xbench-tracer-bench-XXXXXX/some-source-file-0001.c";
  uint64_t tail = 0;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < n; i++) {
    uint64_t off = __atomic_fetch_add(&tail, record, __ATOMIC_RELAXED);
    memcpy(base + off + 40, path, sizeof path);
    __atomic_store_n((uint32_t *)(base + off), 1u, __ATOMIC_RELEASE);
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
  return 0;
}
