/* open+close of argv[1], argv[2] times after a warm-up; prints nanoseconds per iteration. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  long n = atol(argv[2]);
  for (long i = 0; i < n / 10 + 1; i++) {
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) return 1;
    close(fd);
  }
  double t0 = now_ns();
  for (long i = 0; i < n; i++) {
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) return 1;
    close(fd);
  }
  printf("%.1f\n", (now_ns() - t0) / (double)n);
  return 0;
}
