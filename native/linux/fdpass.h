/* Handing a file descriptor to another process over a unix socket (SCM_RIGHTS): how a seccomp
 * listener travels from the filtered process to its supervisor. */
#ifndef XBENCH_FDPASS_H
#define XBENCH_FDPASS_H

#include "sys.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Sends `fd` with a one-byte message on `sock`. 0 or an errno. Async-signal-safe (it runs in
 * a vfork child): a stack buffer and the raw system call, retried on EINTR; errno untouched. */
static inline int xb_send_fd(int sock, int fd) {
  char cbuf[CMSG_SPACE(sizeof fd)];
  memset(cbuf, 0, sizeof cbuf);
  char byte = 'L';
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof fd);
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  long sent;
  do sent = xb_sys(SYS_sendmsg, sock, (long)&msg, 0, 0, 0);
  while (sent == -EINTR);
  return sent < 0 ? (int)-sent : 0;
}

#endif
