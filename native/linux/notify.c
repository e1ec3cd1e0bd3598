/*
 * The notification server (see notify-server.h): its thread, which takes the listener from the
 * command's process, and the loop that answers every notification. A call is decoded and probed
 * before its answer (the caller waits meanwhile) and recorded only after it, once the answer's
 * success proved the caller was still in that call.
 */
#define _GNU_SOURCE
#include "notify.h"
#include "notify-server.h"

#include "tree.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

/* Debian's headers lack these (Linux 6.6+). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif

/* Calls answered but not yet recorded: S exits only when none is left. */
static int g_unrecorded;
/* Set once the trace has ended while the tree runs on (--detach-ok): calls are served, not recorded. */
static int g_closed;

/* The listener hangs up once no process is left under its filter. */
static int listener_orphaned(int listener) {
  struct pollfd p = {.fd = listener, .events = POLLIN};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

static void *serve(void *arg) {
  xb_restore_cpus(); /* notifications come from every CPU the tree runs on */
  int listener = (int)(intptr_t)arg;
  __u64 flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
  (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags); /* older kernels: default wake-ups */
  xb_log_flag(&g_log, XB_FLAG_USED_SECCOMP);
  struct seccomp_notif_sizes sizes = {0};
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) sizes.seccomp_notif = sizeof(struct seccomp_notif);
  union {
    struct seccomp_notif n;
    char raw[512];
  } req;
  union {
    struct seccomp_notif_resp r;
    char raw[512];
  } resp;
  if (sizes.seccomp_notif > sizeof req || sizes.seccomp_notif_resp > sizeof resp) {
    xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    sizes.seccomp_notif = sizeof req; /* cannot happen with today's kernels; keep serving */
    sizes.seccomp_notif_resp = sizeof resp;
  }
  /* RECV wants its buffer zero over the kernel's struct, SEND reads the kernel's: zero just
   * those bytes per call (80 and 24 today), not the whole buffers. */
  const size_t req_size = sizes.seccomp_notif ? sizes.seccomp_notif : sizeof req.n;
  const size_t resp_size = sizes.seccomp_notif_resp > sizeof resp.r ? sizes.seccomp_notif_resp : sizeof resp.r;
  static __thread struct call call;
  uint64_t since_trim = 0;
  for (;;) {
    memset(&req, 0, req_size);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req.n) != 0) {
      if (errno == EINTR) continue;
      if (errno == ENOENT) {
        /* A caller interrupted, or (Linux 6.6+ answers at once from then on) no process is
         * left under the filter: it can never get one back, so stop instead of spinning. */
        if (listener_orphaned(listener)) break;
        continue;
      }
      xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
      break;
    }
    __atomic_fetch_add(&g_unrecorded, 1, __ATOMIC_SEQ_CST); /* before the reply can let the tree end */
    int pending = read_call(&req.n, &call);
    memset(&resp, 0, resp_size);
    resp.r.id = req.n.id;
    if (pending == CALL_REFUSE) {
      resp.r.error = -ENOSYS;
      pending = 0;
    } else {
      resp.r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp.r) == 0) {
      if (pending && !__atomic_load_n(&g_closed, __ATOMIC_ACQUIRE)) {
        append(&call, call.op, &call.a);
        if (call.op2) append(&call, call.op2, &call.b);
      }
    } else if (errno != ENOENT) { /* ENOENT: the caller is gone (killed, interrupted): no record */
      xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    }
    __atomic_fetch_sub(&g_unrecorded, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&g_log.hdr->notifications, 1, __ATOMIC_RELAXED);
    if (++since_trim >= 4096) {
      since_trim = 0;
      trim_log();
    }
  }
  close(listener);
  return NULL;
}

/* Receives the listener (one SCM_RIGHTS message; EOF if the command ran without a filter). */
static int receive_listener(int s) {
  char byte;
  char cbuf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  ssize_t n;
  do n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
  if (n <= 0) return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int))) {
    xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    return -1;
  }
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

/*
 * The server thread. S's main thread cannot take the listener itself: while it is suspended in
 * vfork, the command's own exec already waits on its new filter. Every process of the tree
 * inherits that one filter, so one listener serves the whole tree.
 */
static void *serve_top(void *arg) {
  int s = (int)(intptr_t)arg;
  int fd = receive_listener(s);
  close(s);
  if (fd >= 0) serve((void *)(intptr_t)fd);
  return NULL;
}

int xb_notify_start(struct xb_log *log, int sock) {
  g_log = *log;
  long page = sysconf(_SC_PAGESIZE);
  if (page > 0 && (page & (page - 1)) == 0) g_page = (uint64_t)page;
  pthread_t t;
  pthread_attr_t attr;
  int err = pthread_attr_init(&attr);
  if (err) return err;
  if (!(err = pthread_attr_setstacksize(&attr, 256 * 1024)) &&
      !(err = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED)))
    err = pthread_create(&t, &attr, serve_top, (void *)(intptr_t)sock);
  pthread_attr_destroy(&attr);
  return err;
}

void xb_notify_drain(void) {
  while (__atomic_load_n(&g_unrecorded, __ATOMIC_ACQUIRE) > 0) sched_yield();
}

void xb_notify_close(void) {
  __atomic_store_n(&g_closed, 1, __ATOMIC_SEQ_CST);
  xb_notify_drain(); /* a record begun before is finished; none starts after */
}
