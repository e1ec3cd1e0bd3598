/*
 * The seccomp filter of a traced tree.
 *
 * Rules: built by the supervisor before the command starts; installed by xb_filter_install in
 * the command's process between vfork and exec, which shares the supervisor's memory: that
 * function is async-signal-safe (raw system calls, stack buffers, no errno, no allocation) and
 * writes nothing but its own stack.
 */
#ifndef XBENCH_FILTER_H
#define XBENCH_FILTER_H

#include <linux/audit.h>
#include <sys/syscall.h>

/* The system call ABI the filter decodes: the helper's own. Calls of another ABI on the same
 * kernel (x86-64: i386 and x32; arm64: AArch32) are notified and only flag the trace
 * (XB_FLAG_FOREIGN_ARCH): their numbers and arguments mean something else. */
#if defined(__aarch64__)
#define XB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#define XB_AUDIT_ARCH AUDIT_ARCH_X86_64
#endif

/* Builds the filter. `hybrid`: let through calls made from the shim's trampoline (trampoline.h). */
void xb_filter_build(int hybrid);

/*
 * Sets no_new_privs, installs the filter with a listener and sends the listener over `sock` (a
 * socketpair end the supervisor holds the other end of). 0 when traced, else a positive errno
 * (EBUSY: a listener in the ancestry; EPERM/EACCES: a sandbox): the command then runs without it.
 */
int xb_filter_install(int sock);

#endif
