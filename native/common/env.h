/*
 * What the launchers and the shims agree on besides the log format (log.h): the names of the
 * tracing environment variables and XB_ENV_MODE's values. Defined here once, for every platform;
 * what only Linux's helpers share (the trampoline's address) is in native/linux/trampoline.h.
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

/* XB_ENV_MODE values. hybrid: a seccomp filter covers the tree and exempts the trampoline
 * (linux/trampoline.h), so the shim makes its interposed calls there and the supervisor sees
 * only what the shim cannot (ld.so, glibc internals, static programs). preload: no filter; the
 * shim calls libc. */
#define XB_MODE_HYBRID "hybrid"
#define XB_MODE_PRELOAD "preload"

#endif
