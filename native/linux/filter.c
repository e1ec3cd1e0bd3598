/*
 * The seccomp filter (see filter.h). Everything reachable from xb_filter_install runs in a vfork
 * child: async-signal-safe only, raw system calls, no errno, no writes outside its stack.
 */
#define _GNU_SOURCE
#include "filter.h"

#include "fdpass.h"
#include "sys.h"
#include "trampoline.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, which older headers (musl's, Debian's) lack. */
#define XB_WAIT_KILLABLE_RECV (1UL << 5)

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

/* The calls whose paths are recorded (notify-decode.c decodes each of them). */
static const int k_notified[] = {
    __NR_openat,
    __NR_openat2,
    __NR_faccessat,
    __NR_faccessat2,
    __NR_readlinkat,
    __NR_execve,
    __NR_execveat,
    __NR_renameat,
    __NR_renameat2,
    __NR_unlinkat,
    __NR_mkdirat,
    __NR_chdir,
    __NR_truncate,
    __NR_linkat,
    __NR_symlinkat,
    __NR_statfs,
    __NR_getdents64,
    __NR_mknodat,
    __NR_bind,
    __NR_fchmodat,
    __NR_fchmodat2,
    __NR_fchownat,
    __NR_utimensat,
    __NR_inotify_add_watch,
    __NR_fanotify_mark,
    __NR_chroot,
    __NR_name_to_handle_at,
    __NR_open_by_handle_at,
    /* Extended attributes of a path (a write: set, remove; a lookup: get, list), a metadata change
     * through an fd (the fd's file is written), a mount tree looked up, a path's file attributes. */
    __NR_setxattr,
    __NR_lsetxattr,
    __NR_fsetxattr,
    __NR_removexattr,
    __NR_lremovexattr,
    __NR_fremovexattr,
    __NR_getxattr,
    __NR_lgetxattr,
    __NR_listxattr,
    __NR_llistxattr,
    __NR_setxattrat,
    __NR_getxattrat,
    __NR_listxattrat,
    __NR_removexattrat,
    __NR_fchmod,
    __NR_fchown,
    __NR_open_tree,
    __NR_open_tree_attr,
    __NR_file_getattr,
    __NR_file_setattr,
    /* Mounts and mount namespaces entered: from then on a call is looked at where its caller is. */
    __NR_mount,
    __NR_umount2,
    __NR_move_mount,
    __NR_mount_setattr,
    __NR_pivot_root,
    __NR_setns,
#ifdef __NR_open /* the pre-*at calls: x86-64 has them, arm64 has only the *at forms */
    __NR_open,
    __NR_creat,
    __NR_stat,
    __NR_lstat,
    __NR_access,
    __NR_readlink,
    __NR_rename,
    __NR_unlink,
    __NR_mkdir,
    __NR_rmdir,
    __NR_link,
    __NR_symlink,
    __NR_getdents,
    __NR_mknod,
    __NR_chmod,
    __NR_chown,
    __NR_lchown,
    __NR_utime,
    __NR_utimes,
    __NR_futimesat,
#endif
};

static struct sock_filter g_filter[160];
static struct sock_fprog g_prog;
static unsigned g_n; /* instructions emitted so far */

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define IP_LO offsetof(struct seccomp_data, instruction_pointer)
#define IP_HI (IP_LO + 4)

static void emit(unsigned short code, unsigned k, unsigned char jt, unsigned char jf) {
  struct sock_filter i = {code, jt, jf, k};
  g_filter[g_n++] = i;
}
#define STMT(c, k) emit((unsigned short)(c), (unsigned)(k), 0, 0)
#define JUMP(c, k, t, f) emit((unsigned short)(c), (unsigned)(k), (unsigned char)(t), (unsigned char)(f))

/* A call number and the instruction its calls go to. */
struct dispatch {
  unsigned nr, to;
};
enum { LEAF = 4 }; /* at most this many numbers are compared one by one */

/* Instructions dispatch_tree emits for `count` numbers. */
static unsigned tree_size(unsigned count) {
  if (count <= LEAF) return count;
  unsigned half = count / 2;
  return 1 + tree_size(count - half) + tree_size(half);
}

/*
 * A binary search over the sorted numbers d[0..count): a JGE per level, then at most LEAF JEQs,
 * the last of which falls to `allow`. BPF jumps only forward, so the upper half is emitted first,
 * right after its JGE. The kernel runs this filter once per call number when it is installed (to
 * cache the numbers whose answer needs no argument): a linear list of some 50 numbers made
 * installing it cost about 0.1 ms more than a one-number filter.
 */
static void dispatch_tree(const struct dispatch *d, unsigned count, unsigned allow) {
  if (count <= LEAF) {
    for (unsigned i = 0; i < count; i++) {
      unsigned at = g_n;
      JUMP(BPF_JMP | BPF_JEQ | BPF_K, d[i].nr, d[i].to - at - 1, i + 1 == count ? allow - at - 1 : 0);
    }
    return;
  }
  unsigned half = count / 2, upper = count - half;
  JUMP(BPF_JMP | BPF_JGE | BPF_K, d[half].nr, 0, tree_size(upper));
  dispatch_tree(d + half, upper, allow);
  dispatch_tree(d, half, allow);
}

/*
 * Layout: arch check (and x32's, on x86-64); io_uring_setup to S (which refuses it); a binary search of the call
 * number to CHECK for notified calls, else ALLOW. Non-file calls decide on the number alone, so the kernel's
 * per-number action cache (5.11+) skips the filter for them. CHECK: AT_EMPTY_PATH stats (glibc's fstat) pass; in
 * hybrid mode so do calls from the trampoline page; the rest notify.
 */
void xb_filter_build(int hybrid) {
  enum { COUNT = sizeof k_notified / sizeof k_notified[0] + 2 };
  g_n = 0;
  STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  JUMP(BPF_JMP | BPF_JEQ | BPF_K, XB_AUDIT_ARCH, 1, 0);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF); /* foreign ABI: the supervisor flags the trace */
  STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
  JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1); /* x32 */
  STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
#endif
  JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF); /* its operations would bypass the filter: S refuses it, flagged */
  unsigned allow = g_n + tree_size(COUNT);
  unsigned stat3 = allow + 1, stat2 = stat3 + 4, check = stat2 + 4;
  struct dispatch d[COUNT] = {{__NR_newfstatat, stat3}, {__NR_statx, stat2}};
  for (unsigned i = 2; i < COUNT; i++) d[i] = (struct dispatch){(unsigned)k_notified[i - 2], check};
  for (unsigned i = 1; i < COUNT; i++) /* insertion sort: some 50 numbers, once */
    for (unsigned j = i; j > 0 && d[j - 1].nr > d[j].nr; j--) {
      struct dispatch t = d[j];
      d[j] = d[j - 1];
      d[j - 1] = t;
    }
  dispatch_tree(d, COUNT, allow);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  /* stat3: newfstatat(fd, "", buf, AT_EMPTY_PATH) */
  STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3));
  JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 0, 1);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  JUMP(BPF_JMP | BPF_JA, check - g_n - 1, 0, 0);
  /* stat2: statx(fd, "", AT_EMPTY_PATH, ...) */
  STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2));
  JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 0, 1);
  STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  JUMP(BPF_JMP | BPF_JA, check - g_n - 1, 0, 0);
  /* check */
  if (hybrid) {
    STMT(BPF_LD | BPF_W | BPF_ABS, IP_HI);
    JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(XB_TRAMPOLINE_ADDR >> 32), 0, 4);
    STMT(BPF_LD | BPF_W | BPF_ABS, IP_LO);
    STMT(BPF_ALU | BPF_AND | BPF_K, ~(XB_TRAMPOLINE_SIZE - 1));
    JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(XB_TRAMPOLINE_ADDR & 0xffffffffu), 0, 1);
    STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  }
  STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
  g_prog.len = (unsigned short)g_n;
  g_prog.filter = g_filter;
}
#undef STMT
#undef JUMP

int xb_filter_install(int sock) {
  long r = xb_sys(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (r != 0) return (int)-r;
  /* A caller waiting for its reply would take a signal as EINTR from stat or open, which never
   * fail so untraced; once the supervisor holds the call, only a fatal signal ends the wait
   * (Linux 5.19; older kernels refuse the flag and keep the interruptible wait). */
  long fd = xb_sys(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER | XB_WAIT_KILLABLE_RECV,
                   (long)&g_prog, 0, 0);
  if (fd == -EINVAL)
    fd = xb_sys(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, (long)&g_prog, 0, 0);
  if (fd < 0) return (int)-fd;
  int e = xb_send_fd(sock, (int)fd);
  xb_sys(SYS_close, fd, 0, 0, 0, 0);
  /* A failed send leaves the filter without a server: its calls would fail with ENOSYS. It has
   * not been seen to happen (the socketpair is ours and empty); the caller reports it. */
  return e;
}
