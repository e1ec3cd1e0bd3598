/* See search.h. An empty PATH entry means the current folder, as in execvp. */
#include "search.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int xb_search_path(const char *path, const char *file, char *out, size_t cap, void (*missing)(const char *, void *),
                   void *ctx) {
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
        if (S_ISREG(st.st_mode) && access(out, X_OK) == 0) return 1;
      } else if ((errno == ENOENT || errno == ENOTDIR) && missing) {
        missing(out, ctx);
      }
    }
    if (!end) return 0;
    p = end + 1;
  }
}
