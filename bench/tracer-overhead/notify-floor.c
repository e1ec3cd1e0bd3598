/*
 * The floor of any seccomp user-notification tracer on this machine: the child opens and
 * closes argv[1] argv[2] times under a filter that notifies only openat; the parent answers
 * each notification at once (RECV, then SEND with FLAG_CONTINUE; SYNC_WAKE_UP where the
 * kernel has it), reading nothing and recording nothing. Prints "wall_ns cpu_ns" per open+close
 * like open-loop, so it can be set against open-loop's untraced and traced figures.
 */
#define _GNU_SOURCE
#include "fdpass.h" /* native/linux/: the supervisor's own way of passing the listener */
#include "floor-filter.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

static double clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int opens(const char *path, long n) {
  for (long i = 0; i < n; i++) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 1;
    close(fd);
  }
  return 0;
}

static int child(int sock, const char *path, long n) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 1;
  int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &g_floor_prog);
  if (fd < 0) return perror("seccomp"), 1;
  int err = xb_send_fd(sock, fd);
  if (err) return fprintf(stderr, "sendmsg: %s\n", strerror(err)), 1;
  close(fd);
  if (opens(path, n / 10 + 1)) return 1; /* warm-up */
  double w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  if (opens(path, n)) return 1;
  double w1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  printf("%.1f %.1f\n", (w1 - w0) / n, (c1 - c0) / n);
  return fflush(stdout) != 0;
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: notify-floor PATH N\n"), 2;
  long n = atol(argv[2]);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0) return perror("socketpair"), 1;
  pid_t pid = fork();
  if (pid < 0) return perror("fork"), 1;
  if (pid == 0) _exit(child(sv[0], argv[1], n));
  char byte, cbuf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  if (recvmsg(sv[1], &msg, 0) != 1 || !CMSG_FIRSTHDR(&msg)) return perror("recvmsg"), 1;
  int listener;
  memcpy(&listener, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof listener);
  (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, (__u64)1); /* SYNC_WAKE_UP; older kernels: default */
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  for (;;) {
    memset(&req, 0, sizeof req);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
      if (errno == EINTR) continue;
      break; /* the child is gone */
    }
    memset(&resp, 0, sizeof resp);
    resp.id = req.id;
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno != ENOENT) return perror("SEND"), 1;
  }
  int st;
  if (waitpid(pid, &st, 0) != pid) return perror("waitpid"), 1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
