/* A system call that returns -errno instead of setting errno: no libc state touched, so it is
 * safe in signal handlers, in a vfork child and in the launcher that shares the supervisor's
 * memory (tree.h). Used by both helpers. */
#ifndef XBENCH_SYS_H
#define XBENCH_SYS_H

static inline long xb_sys(long nr, long a, long b, long c, long d, long e) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
  return ret;
}

#endif
