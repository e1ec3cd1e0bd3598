/*
 * The paths a notified call names, as the server reads them (see notify-server.h): from the caller's
 * memory with process_vm_readv, a page at a time, and named as the caller would reach them,
 * from outside: a relative name from its cwd or dirfd, an absolute one from its root once the
 * tree used chroot, a magic /proc link as the file it leads to. S's own cwd, root and fds are
 * not the caller's, so each is read through /proc/PID.
 */
#define _GNU_SOURCE
#include "notify-server.h"

#include "sys.h"

#include <sys/socket.h>
#include <sys/un.h>

/*
 * Reads a NUL-terminated string from the tracee, page by page (a later page may be unmapped).
 * Returns -1 when the string runs into memory the tracee has not mapped before its NUL: the
 * kernel then fails the call with EFAULT before any lookup, so the call names nothing.
 */
static int read_remote(pid_t pid, uint64_t addr, struct path_read *out) {
  size_t got = 0;
  out->path_len = 0;
  while (got < PATH_MAX) {
    size_t chunk = PAGE - (size_t)((addr + got) % PAGE);
    if (chunk > PATH_MAX - got) chunk = PATH_MAX - got;
    struct iovec local = {.iov_base = out->path + got, .iov_len = chunk};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)(addr + got), .iov_len = chunk};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n < 0 && errno == EFAULT) return -1;
    if (n <= 0) {
      if (got == 0) out->rflags |= XB_RF_UNREADABLE;
      break;
    }
    char *nul = memchr(out->path + got, 0, (size_t)n);
    if (nul) {
      out->path_len = (uint32_t)(nul - out->path);
      return 0;
    }
    got += (size_t)n;
  }
  out->path_len = (uint32_t)got;
  if (got == PATH_MAX) out->rflags |= XB_RF_TRUNCATED;
  return 0;
}

/*
 * readlink of a /proc link into `buf` (PATH_MAX bytes): its length, or 0. A folder whose name is
 * longer than the kernel gives out (ENAMETOOLONG past a page) cannot be named: a path under it
 * would be recorded as a bare relative name, so the trace says it is incomplete instead.
 */
size_t read_proc_link(const char *link, char *buf) {
  ssize_t k = readlink(link, buf, PATH_MAX);
  if ((k < 0 && errno == ENAMETOOLONG) || k >= (ssize_t)PATH_MAX) {
    xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED);
    return 0;
  }
  return k > 0 && buf[0] == '/' ? (size_t)k : 0;
}

/* Set once a process of the tree called chroot: absolute paths may then be named from another
 * root than S's, which each such path's record looks up. */
int g_rooted;

/*
 * Set once a process of the tree mounted or unmounted something, or entered a mount namespace:
 * its paths may then lead elsewhere than from S (`unshare -m` and a bind mount), so a look is made
 * through the caller's own root (/proc/PID/root) when its mount namespace is not S's.
 */
int g_mounts;

/* 1 if `pid`'s mount namespace is not S's (only looked at once g_mounts is set). */
int other_mounts(pid_t pid) {
  if (!__atomic_load_n(&g_mounts, __ATOMIC_RELAXED)) return 0;
  static ino_t own; /* serving threads may race here: each finds the same */
  struct stat st;
  if (!__atomic_load_n(&own, __ATOMIC_RELAXED)) {
    if (stat("/proc/self/ns/mnt", &st) != 0) return 0;
    __atomic_store_n(&own, st.st_ino, __ATOMIC_RELAXED);
  }
  char ns[64];
  snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", (int)pid);
  return stat(ns, &st) == 0 && st.st_ino != __atomic_load_n(&own, __ATOMIC_RELAXED);
}

/*
 * A process that changed its root (chroot) names absolute paths from there: the host's name for
 * that root, read from outside it, becomes the base, and the path is taken relative to it.
 */
static void in_root(pid_t pid, struct path_read *out) {
  char link[64];
  snprintf(link, sizeof link, "/proc/%d/root", (int)pid);
  size_t n = read_proc_link(link, out->base);
  if (n == 0) {
    xb_log_flag(&g_log, XB_FLAG_UNREADABLE);
    out->present = 0;
    return;
  }
  if (n == 1) return; /* "/": the same root as S's */
  size_t skip = 0;
  while (skip < out->path_len && out->path[skip] == '/') skip++;
  if (skip == out->path_len) { /* the root itself */
    memcpy(out->path, ".", 2);
    out->path_len = 1;
  } else {
    memmove(out->path, out->path + skip, out->path_len - skip + 1);
    out->path_len -= (uint32_t)skip;
  }
  out->base_len = (uint32_t)n;
}

/* The base a path read into `out` is relative to: the caller's cwd or `dirfd`'s folder for a
 * relative path, its root for an absolute one (see in_root). */
void place(pid_t pid, int dirfd, struct path_read *out) {
  if (out->path_len == 0) return;
  if (out->path[0] == '/') {
    if (__atomic_load_n(&g_rooted, __ATOMIC_RELAXED)) in_root(pid, out);
    return;
  }
  char link[64];
  if (dirfd == AT_FDCWD) {
    snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
  } else {
    snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
    out->rflags |= XB_RF_BASE_DIRFD;
  }
  out->base_len = (uint32_t)read_proc_link(link, out->base);
  if (!out->base_len) out->present = 0; /* nothing to resolve it against */
  /* A folder removed while a process is in it (or holds it open) is named with this mark: it
   * keeps the name it had, and a look inside goes through the /proc link (see existence). */
  struct stat st;
  out->base_gone = xb_marked_removed(out->base, out->base_len) && lstat(out->base, &st) != 0;
  if (out->base_gone) out->base[out->base_len -= (uint32_t)XB_REMOVED_MARK_LEN] = 0;
}

/*
 * A path through a process's magic /proc link (sys.h: /proc/PID/cwd/..., /proc/self/fd/N, /dev/fd/N)
 * named as the file it reaches, which the link, read from outside, names: the caller's own links
 * (self, thread-self, /dev/fd) as the caller's, a link alone only where the call follows it
 * (`follow_last`). A link to no file by name (a pipe, a socket, a file removed or made with
 * O_TMPFILE) keeps the name given.
 */
static void through_link(pid_t pid, int follow_last, struct path_read *out) {
  size_t link = xb_magic_link(out->path);
  if (!link || (out->path[link] != '/' && !follow_last)) return;
  char name[64], target[PATH_MAX];
  const char *p = out->path, *fd;
  int n;
  if (!strncmp(p, "/dev/std", 8))
    n = snprintf(name, sizeof name, "/proc/%d/fd/%d", (int)pid, p[8] == 'i' ? 0 : p[8] == 'o' ? 1 : 2);
  else if ((fd = !strncmp(p, "/dev/fd/", 8) ? p + 8 : NULL))
    n = snprintf(name, sizeof name, "/proc/%d/fd/%.*s", (int)pid, (int)(link - 8), fd);
  else if (!strncmp(p, "/proc/self/", 11) || !strncmp(p, "/proc/thread-self/", 18))
    n = snprintf(name, sizeof name, "/proc/%d/%.*s", (int)pid, (int)(p + link - strchr(p + 6, '/') - 1),
                 strchr(p + 6, '/') + 1);
  else
    n = snprintf(name, sizeof name, "%.*s", (int)link, p);
  if (n <= 0 || n >= (int)sizeof name) return;
  ssize_t k = readlink(name, target, sizeof target - 1);
  if (k <= 0 || k >= (ssize_t)sizeof target - 1 || target[0] != '/') return;
  target[k] = 0;
  struct stat st;
  if (xb_marked_removed(target, (size_t)k) && lstat(target, &st) != 0) return; /* removed: no name to give */
  size_t rest = out->path_len - link;
  if ((size_t)k + rest >= PATH_MAX) return;
  memmove(out->path + k, out->path + link, rest + 1);
  memcpy(out->path, target, (size_t)k);
  out->path_len = (uint32_t)((size_t)k + rest);
}

void read_path(pid_t pid, int dirfd, uint64_t addr, int follow_last, struct path_read *out) {
  out->dirfd = dirfd;
  out->rflags = 0;
  out->base_len = 0;
  out->base_gone = 0;
  out->by_fd = 0;
  out->present = read_remote(pid, addr, out) == 0;
  if (out->present && out->path[0] == '/' && !(out->rflags & XB_RF_TRUNCATED)) through_link(pid, follow_last, out);
  if (out->present) place(pid, dirfd, out);
}

/* The directory open as `fd` in `pid` (for getdents): an absolute path, or nothing. */
void read_fd_path(pid_t pid, int fd, struct path_read *out) {
  out->dirfd = AT_FDCWD;
  out->rflags = 0;
  out->base_len = 0;
  out->base_gone = 0;
  out->by_fd = 1;
  out->present = 1;
  out->path_len = 0;
  char link[64];
  snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, fd);
  out->path_len = (uint32_t)read_proc_link(link, out->path);
  out->path[out->path_len] = 0;
}

/* The path an AF_UNIX socket is bound to (nothing for other families and abstract names). */
void read_sockaddr_path(pid_t pid, uint64_t addr, uint64_t len, struct path_read *out) {
  struct sockaddr_un sun;
  const size_t at = offsetof(struct sockaddr_un, sun_path);
  out->present = 0;
  if (len <= at + 1) return;
  if (len > sizeof sun) len = sizeof sun;
  struct iovec l = {.iov_base = &sun, .iov_len = (size_t)len};
  struct iovec r = {.iov_base = (void *)(uintptr_t)addr, .iov_len = (size_t)len};
  if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)len || sun.sun_family != AF_UNIX || !sun.sun_path[0]) return;
  size_t n = strnlen(sun.sun_path, (size_t)len - at);
  memcpy(out->path, sun.sun_path, n);
  out->path[n] = 0;
  out->path_len = (uint32_t)n;
  out->rflags = 0;
  out->base_len = 0;
  out->base_gone = 0;
  out->by_fd = 0;
  out->dirfd = AT_FDCWD;
  out->present = 1;
  place(pid, AT_FDCWD, out);
}
