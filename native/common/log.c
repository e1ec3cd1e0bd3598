/* The record log: see log.h. Raw syscalls only, so the shim's own wrappers never recurse (on
 * macOS, libc: dyld applies __interpose to every image but the interposing one). */
#define _GNU_SOURCE
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#ifndef __APPLE__
#include <sys/syscall.h>
#endif
#include <unistd.h>

#ifndef __APPLE__
#include "../linux/sys.h"
#endif

#ifdef __APPLE__
static long raw_open(const char *path, int flags, int mode) {
  int fd = open(path, flags, mode);
  return fd < 0 ? -errno : fd;
}
static long raw_pread(int fd, void *buf, size_t n) {
  return pread(fd, buf, n, 0);
}
#else
/* The raw system-call instruction (sys.h), not syscall(3): in the preload shim, syscall is the
 * shim's own export, which would record the log's own calls. */
static long raw_open(const char *path, int flags, int mode) {
  return xb_sys(SYS_openat, AT_FDCWD, (long)path, flags, mode, 0);
}
static long raw_pread(int fd, void *buf, size_t n) {
  return xb_sys6(SYS_pread64, fd, (long)buf, (long)n, 0, 0, 0);
}
#endif

static int map_fd(struct xb_log *log, int fd, uint64_t capacity) {
  void *p = mmap(NULL, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return -errno;
  log->base = p;
  log->hdr = p;
  log->capacity = capacity;
  return 0;
}

int xb_log_create(struct xb_log *log, const char *path, uint64_t capacity) {
  memset(log, 0, sizeof *log);
  long fd = raw_open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return (int)fd;
  int err = 0;
  if (ftruncate((int)fd, (off_t)capacity) != 0) err = -errno;
  if (!err) err = map_fd(log, (int)fd, capacity);
  if (close((int)fd) != 0 && !err) err = -errno;
  if (err) return err;
  xb_log_init_header(log->hdr, capacity);
  return 0;
}

int xb_log_attach_fd(struct xb_log *log, int fd) {
  memset(log, 0, sizeof *log);
  struct xb_log_header h;
  long n = raw_pread(fd, &h, sizeof h);
  if (n != (long)sizeof h || h.magic != XB_LOG_MAGIC || h.capacity < XB_LOG_HEADER_SIZE) return -EINVAL;
  return map_fd(log, fd, h.capacity);
}
