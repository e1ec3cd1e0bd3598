/* The record log on Linux and macOS: see logfile.h. Its opens and reads go through the
 * platform's sys.h (the folder the build puts first on the include path), never through the
 * shim's own wrappers, which would record the log's own calls. */
#define _GNU_SOURCE
#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sys.h"

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
  long fd = xb_raw_open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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
  long n = xb_raw_pread(fd, &h, sizeof h);
  if (n != (long)sizeof h || h.magic != XB_LOG_MAGIC || h.capacity < XB_LOG_HEADER_SIZE) return -EINVAL;
  return map_fd(log, fd, h.capacity);
}
