/*
 * PATH search as execvp and posix_spawnp do it, shared by the macOS launcher and dylib and
 * portable (tested on Linux with gcc). Rules: stat and access only, no allocation, no stdio.
 */
#ifndef XBENCH_MAC_SEARCH_H
#define XBENCH_MAC_SEARCH_H

#include <stddef.h>

/*
 * Finds the executable regular file `file` (no '/') in the colon-separated `path` (NULL: the
 * default "/usr/bin:/bin:/usr/sbin:/sbin") into `out` (cap bytes); 1 if found, else 0.
 * `missing(candidate, ctx)`, if not NULL, is called for each candidate that does not exist:
 * the program's outcome depends on it staying absent.
 */
int xb_search_path(const char *path, const char *file, char *out, size_t cap, void (*missing)(const char *, void *),
                   void *ctx);

#endif
