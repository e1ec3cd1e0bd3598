/* See search.h. An empty PATH entry means the current folder, as in execvp. */
#include "search.h"
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int xb_search_path(const char *path, const char *file, char *out, size_t cap, void (*missing)(const char *, void *),
                   void *ctx) {
  int saved = errno;
  int found = 0;
  const char *p = path ? path : "/usr/bin:/bin:/usr/sbin:/sbin";
  size_t flen = strlen(file);
  for (;;) {
    const char *end = strchr(p, ':');
    size_t dlen = end ? (size_t)(end - p) : strlen(p);
    if (dlen + flen + 2 <= cap) {
      size_t at = 0;
      if (dlen) {
        memcpy(out, p, dlen);
        out[dlen] = '/';
        at = dlen + 1;
      }
      memcpy(out + at, file, flen + 1);
      struct stat st;
      if (stat(out, &st) == 0) {
        if (S_ISREG(st.st_mode) && access(out, X_OK) == 0) {
          found = 1;
          break;
        }
      } else if ((errno == ENOENT || errno == ENOTDIR) && missing) {
        missing(out, ctx);
      }
    }
    if (!end) break;
    p = end + 1;
  }
  errno = saved;
  return found;
}

size_t xb_read_head(const char *path, char *buf, size_t cap) {
  int saved = errno;
  ssize_t n = -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    n = read(fd, buf, cap);
    close(fd);
  }
  errno = saved;
  return n > 0 ? (size_t)n : 0;
}

int xb_sip_strips(const char *path) {
  if (xb_sip_protected(path)) return 1;
  char head[256], interp[1024];
  size_t n = xb_read_head(path, head, sizeof head);
  return xb_shebang_interpreter(head, n, interp, sizeof interp) && xb_sip_protected(interp);
}

int xb_env_script(const char *path, const char *pathvar, char *prog, size_t cap, char *name, size_t namecap) {
  char head[256];
  size_t n = xb_read_head(path, head, sizeof head);
  if (!xb_env_shebang_program(head, n, name, namecap) || strchr(name, '/')) return 0;
  /* A script the kernel would refuse to run stays refused: no unwrapping. */
  int saved = errno, runnable = access(path, X_OK) == 0;
  errno = saved;
  return runnable && xb_search_path(pathvar, name, prog, cap, NULL, NULL) && !xb_sip_strips(prog);
}
