/* Benchmark target of `xbench bench tracer` (built twice: dynamic glibc and static musl).
 *
 *   xbench-target THREADS OPENS PATH
 *
 * Starts THREADS threads that wait at one barrier, so they begin together. Each thread
 * then opens its own missing path (PATH, "-", the thread index) OPENS times, timing every
 * batch of 8 opens with CLOCK_MONOTONIC, and the program prints the median batch time over
 * all threads, in nanoseconds, as one number on stdout. Every open must fail with ENOENT:
 * a tracer records the attempt before the call, so a missing path costs the tracer exactly
 * as much as a present one, and the target never has to close anything.
 *
 * With OPENS 0 the threads only start, meet at the barrier and the program exits quietly:
 * that is the `launch` row's workload.
 *
 * Nothing is allocated, printed or formatted while timing; any failing call ends the
 * program with exit code 1 and one line on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH 8
#define MAX_THREADS 256
#define MAX_OPENS (1L << 24)

struct worker {
  pthread_t thread;
  int index;
  long batches;
  uint64_t *times; /* this thread's slice of the shared array, one entry per batch */
  char path[PATH_MAX];
  /* First failure seen by the thread: the call's name and its errno (0: none). */
  const char *failed_call;
  int failed_errno;
};

static pthread_barrier_t start_barrier;

static void die(const char *what, int err) {
  fprintf(stderr, "xbench-target: %s: %s\n", what, strerror(err));
  exit(1);
}

static void usage(void) {
  fprintf(stderr, "usage: xbench-target THREADS OPENS PATH (OPENS a multiple of %d)\n", BATCH);
  exit(2);
}

static long parse_count(const char *text, long max) {
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0 || value > max) usage();
  return value;
}

static int now_ns(uint64_t *out) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return errno;
  *out = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return 0;
}

static void *run_worker(void *arg) {
  struct worker *w = arg;
  int rc = pthread_barrier_wait(&start_barrier);
  if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD) {
    w->failed_call = "pthread_barrier_wait";
    w->failed_errno = rc;
    return NULL;
  }
  for (long b = 0; b < w->batches; b++) {
    uint64_t start = 0, end = 0;
    int err = now_ns(&start);
    if (err != 0) {
      w->failed_call = "clock_gettime";
      w->failed_errno = err;
      return NULL;
    }
    for (int i = 0; i < BATCH; i++) {
      int fd = open(w->path, O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        /* The path must stay missing; an existing file would change the workload. */
        if (close(fd) != 0) {
          w->failed_call = "close";
          w->failed_errno = errno;
          return NULL;
        }
        w->failed_call = "open (the path exists; it must be missing)";
        w->failed_errno = EEXIST;
        return NULL;
      }
      if (errno != ENOENT) {
        w->failed_call = "open";
        w->failed_errno = errno;
        return NULL;
      }
    }
    err = now_ns(&end);
    if (err != 0) {
      w->failed_call = "clock_gettime";
      w->failed_errno = err;
      return NULL;
    }
    w->times[b] = end - start;
  }
  return NULL;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Writes all of `text` to stdout, retrying short writes and EINTR. */
static void write_all(const char *text, size_t len) {
  while (len > 0) {
    ssize_t n = write(STDOUT_FILENO, text, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("write", errno);
    }
    text += n;
    len -= (size_t)n;
  }
}

int main(int argc, char **argv) {
  if (argc != 4) usage();
  long threads = parse_count(argv[1], MAX_THREADS);
  long opens = parse_count(argv[2], MAX_OPENS);
  const char *base = argv[3];
  if (threads < 1 || opens % BATCH != 0 || base[0] == '\0') usage();

  static struct worker workers[MAX_THREADS];
  long batches = opens / BATCH;
  uint64_t *times = NULL;
  if (batches > 0) {
    times = calloc((size_t)(threads * batches), sizeof *times);
    if (times == NULL) die("calloc", errno);
  }

  int rc = pthread_barrier_init(&start_barrier, NULL, (unsigned)threads);
  if (rc != 0) die("pthread_barrier_init", rc);
  for (long t = 0; t < threads; t++) {
    struct worker *w = &workers[t];
    w->index = (int)t;
    w->batches = batches;
    w->times = times ? times + t * batches : NULL;
    int n = snprintf(w->path, sizeof w->path, "%s-%ld", base, t);
    if (n < 0 || (size_t)n >= sizeof w->path) die("PATH", ENAMETOOLONG);
  }
  for (long t = 0; t < threads; t++) {
    rc = pthread_create(&workers[t].thread, NULL, run_worker, &workers[t]);
    if (rc != 0) die("pthread_create", rc);
  }
  for (long t = 0; t < threads; t++) {
    rc = pthread_join(workers[t].thread, NULL);
    if (rc != 0) die("pthread_join", rc);
  }
  for (long t = 0; t < threads; t++) {
    if (workers[t].failed_errno != 0) die(workers[t].failed_call, workers[t].failed_errno);
  }
  rc = pthread_barrier_destroy(&start_barrier);
  if (rc != 0) die("pthread_barrier_destroy", rc);
  if (batches == 0) return 0;

  size_t count = (size_t)(threads * batches);
  qsort(times, count, sizeof *times, compare_u64);
  /* Median; for an even count the mean of the two middle batches. */
  uint64_t median = count % 2 ? times[count / 2] : (times[count / 2 - 1] + times[count / 2]) / 2;
  char line[32];
  int len = snprintf(line, sizeof line, "%llu\n", (unsigned long long)median);
  if (len < 0 || (size_t)len >= sizeof line) die("snprintf", EOVERFLOW);
  write_all(line, (size_t)len);
  free(times);
  return 0;
}
