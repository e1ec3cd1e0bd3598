/*
 * What the macOS launcher and dylib look up in the file system before starting a program: the
 * PATH search as execvp and posix_spawnp do it, and the program's `#!` line. Portable (tested
 * on Linux with gcc). Rules: stat, access, open, read and close only; no allocation, no stdio;
 * errno is left as it was.
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

/* Up to `cap` first bytes of the file at `path` into buf; how many (0 if it cannot be read). */
size_t xb_read_head(const char *path, char *buf, size_t cap);

/* 1 if SIP will run `path` (or the interpreter of its `#!` line) with DYLD_* stripped. */
int xb_sip_strips(const char *path);

/*
 * If `path` is an executable `#!/usr/bin/env NAME` script and NAME is found on `pathvar` (NULL:
 * the default) as a program SIP leaves alone: its path into `prog`, NAME into `name`; 1. Else 0.
 */
int xb_env_script(const char *path, const char *pathvar, char *prog, size_t cap, char *name, size_t namecap);

#endif
