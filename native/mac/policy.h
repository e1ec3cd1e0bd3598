/*
 * The platform-neutral decisions of the macOS helpers (policy.c), kept apart so they compile
 * and are tested on Linux too (test/integration/macos-policy.test.ts builds them with gcc):
 *   - Darwin open(2) flags and fopen modes to the Linux flag values the log reader decodes
 *     (src/tracer/accesses.ts knows one numbering: Linux's);
 *   - which programs System Integrity Protection runs without DYLD_* variables;
 *   - the environment a child gets: the caller's, with the tracer's variables put back.
 * Rules: no allocation, no stdio, no libc state; every buffer is the caller's.
 */
#ifndef XBENCH_MAC_POLICY_H
#define XBENCH_MAC_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* Darwin's <fcntl.h> values, spelled out so this file compiles anywhere (policy.c checks them
 * against the real header when built for macOS). */
#define XB_DARWIN_O_ACCMODE 0x3
#define XB_DARWIN_O_APPEND 0x8
#define XB_DARWIN_O_NOFOLLOW 0x100
#define XB_DARWIN_O_CREAT 0x200
#define XB_DARWIN_O_TRUNC 0x400
#define XB_DARWIN_O_EXCL 0x800
#define XB_DARWIN_O_EVTONLY 0x8000
#define XB_DARWIN_O_DIRECTORY 0x100000
#define XB_DARWIN_O_SYMLINK 0x200000
#define XB_DARWIN_O_CLOEXEC 0x1000000
#define XB_DARWIN_AT_FDCWD (-2)
#define XB_DARWIN_AT_SYMLINK_NOFOLLOW 0x20

/* The Linux x86-64/arm64 values the reader decodes (asm-generic numbering). */
#define XB_LINUX_O_CREAT 0x40
#define XB_LINUX_O_EXCL 0x80
#define XB_LINUX_O_TRUNC 0x200
#define XB_LINUX_O_APPEND 0x400
#define XB_LINUX_O_DIRECTORY 0x10000
#define XB_LINUX_O_NOFOLLOW 0x20000
#define XB_LINUX_O_CLOEXEC 0x80000
#define XB_LINUX_O_PATH 0x200000
#define XB_LINUX_AT_SYMLINK_NOFOLLOW 0x100

/* Darwin open flags as the Linux flags of the same meaning. O_SYMLINK (the link itself) and
 * O_EVTONLY (events only, no data) read nothing: they become O_PATH, a lookup ("stat"). */
uint32_t xb_darwin_open_flags(int flags);
/* An fopen mode ("r", "w+", "ax", ...) as Linux open flags. */
uint32_t xb_fopen_flags(const char *mode);
/* Darwin AT_SYMLINK_NOFOLLOW in an *at flags word, as the Linux bit (what stat records carry). */
uint32_t xb_darwin_at_flags(int flags);

/*
 * 1 if macOS runs the program at `path` with DYLD_* variables stripped: it lies under a
 * SIP-protected folder (/System, /bin, /sbin, /usr but not /usr/local, /private/var/db...);
 * 0 otherwise. Then neither it nor anything it starts is traced. Paths are taken as given
 * (the caller resolves a bare name through PATH first).
 */
int xb_sip_protected(const char *path);
/*
 * The interpreter named by a `#!` line in `head` (the first `n` bytes of a file), copied into
 * `out` (cap bytes, NUL-terminated); 1 if there is one, else 0. A script runs under its
 * interpreter, so SIP strips DYLD_* when the interpreter is protected (#!/bin/sh).
 */
int xb_shebang_interpreter(const char *head, size_t n, char *out, size_t cap);
/*
 * The program of a `#!/usr/bin/env PROG` line (one word, no options) into out; 1 if that is
 * what `head` starts with. /usr/bin/env is SIP-protected: run through it, PROG (node, python3)
 * would start without DYLD_* and untraced, so the helpers run PROG themselves, as env would.
 */
int xb_env_shebang_program(const char *head, size_t n, char *out, size_t cap);
/* The argv env would give PROG for `script argv[1..]`: {name, script, argv[1], ...}, NULL-ended,
 * into out (cap entries: argc + 3 always fits). Returns the count, 0 if it does not fit. */
size_t xb_env_script_argv(const char *name, const char *script, char *const argv[], char **out, size_t cap);

/*
 * The environment for a child: `envp` (NULL-terminated) with `log_kv` ("XBENCH_TRACE_LOG=...")
 * put back if missing and `dylib` first in DYLD_INSERT_LIBRARIES (added, or prepended to the
 * caller's list when it lacks it). Pointers go to `out` (cap entries, NULL-terminated), a
 * rewritten DYLD_INSERT_LIBRARIES into `buf` (bufcap bytes). Returns the number of entries, or
 * -1 if out or buf is too small (the caller then passes envp unchanged).
 */
long xb_env_merge(char *const envp[], const char *dylib, const char *log_kv, char **out, size_t cap, char *buf,
                  size_t bufcap);
/* Entries of a NULL-terminated environment (for sizing `out`: count + 3). */
size_t xb_env_count(char *const envp[]);

#define XB_ENV_INSERT "DYLD_INSERT_LIBRARIES"

#endif
