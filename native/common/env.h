/*
 * What the supervisor and the preload shim agree on besides the log format (log.h): the names
 * of the tracing environment variables, and the fixed address of the shim's syscall trampoline.
 * Defined here once; both helpers include this file.
 */
#ifndef XBENCH_ENV_H
#define XBENCH_ENV_H

/* Set by the supervisor for the command; re-inserted by the shim at exec (env -i). */
#define XB_ENV_LOG "XBENCH_TRACE_LOG" /* absolute path of the record log */
#define XB_ENV_MODE "XBENCH_TRACE_MODE" /* XB_MODE_HYBRID or XB_MODE_PRELOAD */
#define XB_ENV_PRELOAD "LD_PRELOAD"
/* Read by the supervisor only. */
#define XB_ENV_CAPACITY "XBENCH_TRACE_LOG_CAPACITY" /* log size in bytes */

/* The variables the supervisor removes from the caller's environment before adding its own. */
#define XB_ENV_OWNED(X) X(XB_ENV_LOG) X(XB_ENV_MODE)

/* XB_ENV_MODE values. hybrid: a seccomp filter covers the tree and exempts the trampoline, so
 * the shim makes its interposed calls there and the supervisor sees only what the shim cannot
 * (ld.so, glibc internals, static programs). preload: no filter; the shim calls libc. */
#define XB_MODE_HYBRID "hybrid"
#define XB_MODE_PRELOAD "preload"

/*
 * The trampoline page: the shim maps one page here (MAP_FIXED_NOREPLACE) in every process it is
 * loaded into, and the filter lets through system calls whose instruction pointer lies in it. One
 * address for every process, because the filter is inherited across exec unchanged. Far from
 * where programs, heaps, libraries and stacks land (x86-64: PIE images at 0x55..-0x56.., mmap
 * below 0x7f..; arm64 with 48-bit VAs: PIE at 0xaaaa.., mmap below 0xffff..; with 39-bit VAs,
 * whose whole space ends at 0x80_0000_0000: PIE at 0x55_55.., mmap below 0x7f_ff..). The arm64
 * address lies below 512 GiB, so it exists with 39-bit VAs too, and is 64 KiB-aligned for 64K-page
 * kernels. If something already sits there, the shim makes its calls from libc and the
 * supervisor records them too: slower, still complete.
 */
#if defined(__aarch64__)
#define XB_TRAMPOLINE_ADDR 0x1b5ea00000ull
#else
#define XB_TRAMPOLINE_ADDR 0x1b5ea0000000ull
#endif
#define XB_TRAMPOLINE_SIZE 4096u

#endif
