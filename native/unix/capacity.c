/* See capacity.h. Called once per launch, before the command starts: libc is fine here. */
#include "capacity.h"

#include "../common/env.h"
#include "../common/log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/mount.h>
#include <sys/param.h>
#else
#include <sys/statfs.h>
#endif

uint64_t xb_log_capacity(const char *prog, const char *logpath, int status) {
  uint64_t capacity = XB_LOG_DEFAULT_CAPACITY;
  const char *env = getenv(XB_ENV_CAPACITY);
  if (env) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 0);
    if (errno || end == env || *end) {
      fprintf(stderr, "%s: %s=%s: not a number of bytes\n", prog, XB_ENV_CAPACITY, env);
      _exit(status);
    }
    capacity = v;
  }
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", logpath);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = 0;
  else
    *slash = 0;
  struct statfs fs;
  if (statfs(dir, &fs) != 0) {
    fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(errno));
    _exit(status);
  }
  uint64_t room = (uint64_t)fs.f_bavail * (uint64_t)fs.f_bsize;
  if (capacity > room) capacity = room & ~(uint64_t)(XB_CHUNK - 1);
  if (capacity < 2 * XB_LOG_HEADER_SIZE) capacity = 2 * XB_LOG_HEADER_SIZE;
  return capacity;
}
