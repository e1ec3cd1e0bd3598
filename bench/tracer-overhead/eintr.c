/*
 * `eintr N USEC`: N stat+open+close of this program's own file while SIGALRM arrives every USEC
 * microseconds to a handler installed without SA_RESTART; prints "eintr E signals S". Untraced,
 * stat and open of a local file never fail with EINTR: each one that does was interrupted
 * while it waited for a tracer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t signals;

static void count(int sig) {
  (void)sig;
  signals++;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  long n = atol(argv[1]), usec = atol(argv[2]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = count;
  if (sigaction(SIGALRM, &sa, NULL) != 0) return perror("sigaction"), 1;
  struct itimerval every = {{0, usec}, {0, usec}};
  if (setitimer(ITIMER_REAL, &every, NULL) != 0) return perror("setitimer"), 1;
  long eintr = 0;
  struct stat st;
  for (long i = 0; i < n; i++) {
    if (stat("/proc/self/exe", &st) != 0 && errno == EINTR) eintr++;
    int fd = open(argv[0], O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == EINTR) eintr++;
    if (fd >= 0 && close(fd) != 0) return perror("close"), 1;
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  if (setitimer(ITIMER_REAL, &off, NULL) != 0) return perror("setitimer"), 1;
  printf("eintr %ld signals %ld\n", eintr, (long)signals);
  return 0;
}
