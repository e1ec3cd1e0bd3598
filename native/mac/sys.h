/* The system calls the shared POSIX code (../unix/) makes, returning -errno instead of setting
 * errno; ../linux/sys.h is Linux's. Through libc here: dyld applies __interpose to every image
 * but the interposing one, so the dylib's own calls never reach its wrappers. */
#ifndef XBENCH_SYS_H
#define XBENCH_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

static inline long xb_raw_open(const char *path, int flags, int mode) {
  int fd = open(path, flags, mode);
  return fd < 0 ? -errno : fd;
}
static inline long xb_raw_pread(int fd, void *buf, size_t n) {
  ssize_t got = pread(fd, buf, n, 0);
  return got < 0 ? -errno : got;
}

#endif
