/*
 * A notification read as accesses (see notify-server.h): one table says, for each system call the
 * filter reports, which arguments name its paths and what its record's arg holds, so a new
 * call is one line; read_call takes the calls no line fits (io_uring_setup, the mount calls,
 * open_by_handle_at through read_handle).
 */
#define _GNU_SOURCE
#include "notify-server.h"

#include "filter.h"
#include "sys.h"

/* Where a notified call names a path: how to read it, and from which arguments. */
enum path_kind {
  P_NONE, /* no (second) path */
  P_PATH, /* a string at argument `at`, relative to the dirfd at argument `dirfd` (-1: the cwd) */
  P_FD, /* the directory open as the fd at argument `dirfd` (getdents) */
  P_SOCKADDR, /* a struct sockaddr at argument `at`, its length after it (bind): AF_UNIX paths only */
};
struct path_arg {
  uint8_t kind;
  int8_t dirfd;
  uint8_t at;
};
#define AT(fd, p)                                                                                                      \
  { P_PATH, fd, p }
#define CWD(p)                                                                                                         \
  { P_PATH, -1, p }

/* How the record's arg comes from the call's arguments. */
enum arg_kind {
  A_NONE, /* 0 */
  A_FROM, /* argument `at` as it is (open flags, stat flags, access mode, mknod mode) */
  A_NOFOLLOW, /* argument `at` & AT_SYMLINK_NOFOLLOW */
  A_FOLLOW_FLAG, /* AT_SYMLINK_NOFOLLOW unless argument `at` has AT_SYMLINK_FOLLOW (linkat) */
  A_OPEN_HOW, /* the flags of the struct open_how at argument `at` (openat2) */
  A_VALUE, /* `value` */
};
#define ARG(i) .arg = A_FROM, .arg_at = i
#define NOFOLLOW_IN(i) .arg = A_NOFOLLOW, .arg_at = i
#define VALUE(v) .arg = A_VALUE, .value = v
#define EMPTY_IN(i) .empty_at = (i) + 1
#define XATTR(i) .xattr_at = (i) + 1
#define MODE XB_SETATTR_MODE

/* One decoded call: its record(s), its path(s), its arg. op2 records the second path. */
struct decoding {
  uint8_t op, op2;
  struct path_arg a, b;
  uint8_t arg, arg_at;
  uint32_t value;
  /* A change of metadata through an fd: argument empty_at - 1 holds the flags whose AT_EMPTY_PATH
   * with the name "" makes the call act on the dirfd's own file (and for utimensat, a NULL name,
   * futimens); 0 for none. */
  uint8_t empty_at;
  /* Argument xattr_at - 1 names the extended attribute a call sets or removes; 0 for none. */
  uint8_t xattr_at;
};
#define FD(i)                                                                                                          \
  { P_FD, i, 0 }

/* The calls the filter reports (filter.c), by number; op 0: not a file call. */
static const struct decoding DECODE[__NR_file_setattr + 1] = {
    [__NR_openat] = {XB_OP_OPEN, 0, AT(0, 1), {0}, ARG(2)},
    [__NR_openat2] = {XB_OP_OPEN, 0, AT(0, 1), {0}, .arg = A_OPEN_HOW, .arg_at = 2},
    [__NR_newfstatat] = {XB_OP_STAT, 0, AT(0, 1), {0}, ARG(3)},
    [__NR_statx] = {XB_OP_STAT, 0, AT(0, 1), {0}, ARG(2)},
    [__NR_faccessat] = {XB_OP_ACCESS, 0, AT(0, 1), {0}, ARG(2)},
    [__NR_faccessat2] = {XB_OP_ACCESS, 0, AT(0, 1), {0}, ARG(2)},
    [__NR_readlinkat] = {XB_OP_READLINK, 0, AT(0, 1), {0}},
    [__NR_execve] = {XB_OP_EXEC, 0, CWD(0), {0}},
    [__NR_execveat] = {XB_OP_EXEC, 0, AT(0, 1), {0}}, /* fexecve: see read_call */
    [__NR_renameat] = {XB_OP_RENAME_FROM, XB_OP_RENAME_TO, AT(0, 1), AT(2, 3)},
    [__NR_renameat2] = {XB_OP_RENAME_FROM, XB_OP_RENAME_TO, AT(0, 1), AT(2, 3)},
    [__NR_unlinkat] = {XB_OP_UNLINK, 0, AT(0, 1), {0}}, /* AT_REMOVEDIR: see read_call */
    [__NR_mkdirat] = {XB_OP_MKDIR, 0, AT(0, 1), {0}},
    [__NR_chdir] = {XB_OP_CHDIR, 0, CWD(0), {0}},
    [__NR_chroot] = {XB_OP_CHDIR, 0, CWD(0), {0}}, /* a lookup, as chdir's; see g_rooted */
    /* A handle is made by a lookup; open_by_handle_at names no path (see read_handle). */
    [__NR_name_to_handle_at] = {XB_OP_STAT, 0, AT(0, 1), {0}, .arg = A_FOLLOW_FLAG, .arg_at = 4},
    [__NR_truncate] = {XB_OP_TRUNCATE, 0, CWD(0), {0}},
    /* The source is looked up (followed only with AT_SYMLINK_FOLLOW). */
    [__NR_linkat] = {XB_OP_STAT, XB_OP_LINK, AT(0, 1), AT(2, 3), .arg = A_FOLLOW_FLAG, .arg_at = 4},
    [__NR_symlinkat] = {XB_OP_LINK, 0, AT(1, 2), {0}},
    [__NR_statfs] = {XB_OP_STAT, 0, CWD(0), {0}},
    [__NR_getdents64] = {XB_OP_READDIR, 0, {P_FD, 0, 0}, {0}},
    [__NR_mknodat] = {XB_OP_MKNOD, 0, AT(0, 1), {0}, ARG(2)},
    [__NR_bind] = {XB_OP_MKNOD, 0, {P_SOCKADDR, -1, 1}, {0}, VALUE(S_IFSOCK)},
    [__NR_fchmodat] = {XB_OP_SETATTR, 0, AT(0, 1), {0}, VALUE(MODE)},
    [__NR_fchmodat2] = {XB_OP_SETATTR, 0, AT(0, 1), {0}, NOFOLLOW_IN(3), .value = MODE, EMPTY_IN(3)},
    [__NR_fchownat] = {XB_OP_SETATTR, 0, AT(0, 1), {0}, NOFOLLOW_IN(4), EMPTY_IN(4)},
    [__NR_utimensat] = {XB_OP_SETATTR, 0, AT(0, 1), {0}, NOFOLLOW_IN(3), EMPTY_IN(3)}, /* NULL: futimens */
    [__NR_fchmod] = {XB_OP_SETATTR, 0, FD(0), {0}, VALUE(MODE)},
    [__NR_fchown] = {XB_OP_SETATTR, 0, FD(0), {0}},
    /* Extended attributes: setting or removing one writes the path, getting or listing looks it up. */
    [__NR_setxattr] = {XB_OP_SETATTR, 0, CWD(0), {0}, XATTR(1)},
    [__NR_lsetxattr] = {XB_OP_SETATTR, 0, CWD(0), {0}, VALUE(AT_SYMLINK_NOFOLLOW), XATTR(1)},
    [__NR_fsetxattr] = {XB_OP_SETATTR, 0, FD(0), {0}},
    [__NR_removexattr] = {XB_OP_SETATTR, 0, CWD(0), {0}, XATTR(1)},
    [__NR_lremovexattr] = {XB_OP_SETATTR, 0, CWD(0), {0}, VALUE(AT_SYMLINK_NOFOLLOW), XATTR(1)},
    [__NR_fremovexattr] = {XB_OP_SETATTR, 0, FD(0), {0}},
    [__NR_getxattr] = {XB_OP_STAT, 0, CWD(0), {0}},
    [__NR_lgetxattr] = {XB_OP_STAT, 0, CWD(0), {0}, VALUE(AT_SYMLINK_NOFOLLOW)},
    [__NR_listxattr] = {XB_OP_STAT, 0, CWD(0), {0}},
    [__NR_llistxattr] = {XB_OP_STAT, 0, CWD(0), {0}, VALUE(AT_SYMLINK_NOFOLLOW)},
    [__NR_setxattrat] = {XB_OP_SETATTR, 0, AT(0, 1), {0}, NOFOLLOW_IN(2), EMPTY_IN(2), XATTR(3)},
    [__NR_removexattrat] = {XB_OP_SETATTR, 0, AT(0, 1), {0}, NOFOLLOW_IN(2), EMPTY_IN(2), XATTR(3)},
    [__NR_getxattrat] = {XB_OP_STAT, 0, AT(0, 1), {0}, NOFOLLOW_IN(2)},
    [__NR_listxattrat] = {XB_OP_STAT, 0, AT(0, 1), {0}, NOFOLLOW_IN(2)},
    /* A mount tree looked up (and, with OPEN_TREE_CLONE, copied): the path is not read. */
    [__NR_open_tree] = {XB_OP_STAT, 0, AT(0, 1), {0}, NOFOLLOW_IN(2)},
    [__NR_open_tree_attr] = {XB_OP_STAT, 0, AT(0, 1), {0}, NOFOLLOW_IN(2)},
    [__NR_file_getattr] = {XB_OP_STAT, 0, AT(0, 1), {0}, NOFOLLOW_IN(4)},
    [__NR_file_setattr] = {XB_OP_SETATTR, 0, AT(0, 1), {0}, NOFOLLOW_IN(4), EMPTY_IN(4)},
    /* A watch looks its path up; fanotify_mark with a NULL path marks the dirfd's own file. */
    [__NR_inotify_add_watch] = {XB_OP_STAT, 0, CWD(1), {0}},
    [__NR_fanotify_mark] = {XB_OP_STAT, 0, AT(3, 4), {0}},
#ifdef __NR_open /* the pre-*at calls: x86-64 has them, arm64 has only the *at forms */
    [__NR_open] = {XB_OP_OPEN, 0, CWD(0), {0}, ARG(1)},
    [__NR_creat] = {XB_OP_OPEN, 0, CWD(0), {0}, VALUE(O_WRONLY | O_CREAT | O_TRUNC)},
    [__NR_stat] = {XB_OP_STAT, 0, CWD(0), {0}},
    [__NR_lstat] = {XB_OP_STAT, 0, CWD(0), {0}, VALUE(AT_SYMLINK_NOFOLLOW)},
    [__NR_access] = {XB_OP_ACCESS, 0, CWD(0), {0}, ARG(1)},
    [__NR_readlink] = {XB_OP_READLINK, 0, CWD(0), {0}},
    [__NR_rename] = {XB_OP_RENAME_FROM, XB_OP_RENAME_TO, CWD(0), CWD(1)},
    [__NR_unlink] = {XB_OP_UNLINK, 0, CWD(0), {0}},
    [__NR_mkdir] = {XB_OP_MKDIR, 0, CWD(0), {0}},
    [__NR_rmdir] = {XB_OP_RMDIR, 0, CWD(0), {0}},
    [__NR_link] = {XB_OP_STAT, XB_OP_LINK, CWD(0), CWD(1), VALUE(AT_SYMLINK_NOFOLLOW)},
    [__NR_symlink] = {XB_OP_LINK, 0, CWD(1), {0}},
    [__NR_getdents] = {XB_OP_READDIR, 0, {P_FD, 0, 0}, {0}},
    [__NR_mknod] = {XB_OP_MKNOD, 0, CWD(0), {0}, ARG(1)},
    [__NR_chmod] = {XB_OP_SETATTR, 0, CWD(0), {0}, VALUE(MODE)},
    [__NR_chown] = {XB_OP_SETATTR, 0, CWD(0), {0}},
    [__NR_utime] = {XB_OP_SETATTR, 0, CWD(0), {0}},
    [__NR_utimes] = {XB_OP_SETATTR, 0, CWD(0), {0}},
    [__NR_lchown] = {XB_OP_SETATTR, 0, CWD(0), {0}, VALUE(AT_SYMLINK_NOFOLLOW)},
    [__NR_futimesat] = {XB_OP_SETATTR, 0, AT(0, 1), {0}},
#endif
};
#undef AT
#undef CWD
#undef ARG
#undef NOFOLLOW_IN
#undef VALUE
#undef EMPTY_IN
#undef XATTR
#undef MODE
#undef FD

/* 1 if the extended attribute named at `addr` in `pid` is a user one ("user."). */
static int user_xattr(pid_t pid, uint64_t addr) {
  char name[5];
  struct iovec l = {.iov_base = name, .iov_len = sizeof name};
  struct iovec r = {.iov_base = (void *)(uintptr_t)addr, .iov_len = sizeof name};
  return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof name && memcmp(name, "user.", 5) == 0;
}

/* The flags of the struct open_how at `addr` in `pid`; 0 if unreadable. */
static uint32_t open_how_flags(pid_t pid, uint64_t addr) {
  uint64_t flags = 0;
  struct iovec l = {.iov_base = &flags, .iov_len = sizeof flags};
  struct iovec r = {.iov_base = (void *)(uintptr_t)addr, .iov_len = sizeof flags};
  if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof flags) flags = 0;
  return (uint32_t)flags;
}

static uint32_t decode_arg(pid_t pid, const struct decoding *k, const __u64 *x) {
  switch (k->arg) {
  case A_FROM:
    return (uint32_t)x[k->arg_at];
  case A_NOFOLLOW:
    return ((uint32_t)x[k->arg_at] & AT_SYMLINK_NOFOLLOW) | k->value;
  case A_FOLLOW_FLAG:
    return (x[k->arg_at] & AT_SYMLINK_FOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW;
  case A_OPEN_HOW:
    return open_how_flags(pid, x[k->arg_at]);
  case A_VALUE:
    return k->value;
  default:
    return 0;
  }
}

/* Reads the path `p` names into out (out->present 0: nothing to record). */
static void read_path_arg(pid_t pid, const struct path_arg *p, const __u64 *x, int follow_last, struct path_read *out) {
  int dirfd = p->dirfd < 0 ? AT_FDCWD : (int)(int32_t)x[p->dirfd];
  switch (p->kind) {
  case P_PATH:
    read_path(pid, dirfd, x[p->at], follow_last, out);
    break;
  case P_FD:
    read_fd_path(pid, dirfd, out);
    break;
  case P_SOCKADDR:
    read_sockaddr_path(pid, x[p->at], x[p->at + 1], out);
    break;
  default:
    out->present = 0;
  }
}

/*
 * open_by_handle_at names no path: the file its handle stands for is opened here too (O_PATH,
 * from the caller's mount fd reopened) and named by its /proc link, while the caller waits. That needs
 * CAP_DAC_READ_SEARCH, as the call itself does; a handle S cannot open while the caller may (S
 * lacks the capability) marks the trace incomplete. A stale or malformed handle fails the call
 * too: nothing to record. 1 if there is a record to make.
 */
static int read_handle(pid_t pid, const __u64 *x, struct call *c) {
  struct {
    struct file_handle h;
    unsigned char bytes[MAX_HANDLE_SZ];
  } fh;
  struct iovec l = {.iov_base = &fh, .iov_len = sizeof fh.h};
  struct iovec r = {.iov_base = (void *)(uintptr_t)x[1], .iov_len = sizeof fh.h};
  if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof fh.h || fh.h.handle_bytes > MAX_HANDLE_SZ) return 0;
  l.iov_base = fh.h.f_handle;
  r.iov_base = (void *)(uintptr_t)(x[1] + sizeof fh.h);
  l.iov_len = r.iov_len = fh.h.handle_bytes;
  if (fh.h.handle_bytes && process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)fh.h.handle_bytes) return 0;
  char link[64];
  int mfd = (int)(int32_t)x[0];
  if (mfd == AT_FDCWD)
    snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
  else
    snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, mfd);
  int m = open(link, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC); /* the kernel takes no O_PATH fd here */
  if (m < 0) return 0; /* no such fd: the call fails with EBADF */
  int f = open_by_handle_at(m, &fh.h, O_PATH | O_CLOEXEC);
  int e = errno;
  if (close(m) != 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
  if (f < 0) {
    if (e == EPERM) xb_log_flag(&g_log, XB_FLAG_HANDLE_UNNAMED);
    return 0;
  }
  struct path_read *a = &c->a;
  snprintf(link, sizeof link, "/proc/self/fd/%d", f);
  a->dirfd = AT_FDCWD;
  a->rflags = 0;
  a->base_len = 0;
  a->base_gone = 0;
  a->by_fd = 0;
  a->path_len = (uint32_t)read_proc_link(link, a->path);
  a->path[a->path_len] = 0;
  a->present = a->path_len > 0;
  a->result = 0;
  if (close(f) != 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
  if (!a->present) xb_log_flag(&g_log, XB_FLAG_HANDLE_UNNAMED);
  c->pid = pid;
  c->op = XB_OP_OPEN;
  c->op2 = 0;
  c->arg = (uint32_t)x[2];
  c->b.present = 0;
  return a->present;
}

/*
 * Decodes a notification (DECODE), reads its paths and probes them while the caller waits. 1 if
 * there is something to record once the reply succeeds: that success proves the caller was
 * still in this call, so the memory read was its own (what SECCOMP_IOCTL_NOTIF_ID_VALID would
 * tell, one ioctl less per call). CALL_REFUSE: fail the call instead.
 */
int read_call(const struct seccomp_notif *req, struct call *c) {
  const struct seccomp_data *d = &req->data;
  pid_t pid = (pid_t)req->pid;
  struct path_read *a = &c->a, *b = &c->b;
  a->present = b->present = 0;
  if (d->arch != XB_AUDIT_ARCH || d->nr >= 0x40000000) { /* x86-64: x32 numbers start there */
    xb_log_flag(&g_log, XB_FLAG_FOREIGN_ARCH);
    return 0;
  }
  c->tsc = xb_now();
  if (d->nr == __NR_io_uring_setup) {
    /* Its ring's opens and stats would reach the kernel past the filter. Refused as where
     * io_uring is off (Docker's default profile, io_uring_disabled): programs fall back. */
    xb_log_flag(&g_log, XB_FLAG_CHANGED_IO_URING);
    return CALL_REFUSE;
  }
  if (d->nr == __NR_chroot) __atomic_store_n(&g_rooted, 1, __ATOMIC_RELAXED); /* before it can succeed */
  if (d->nr == __NR_mount || d->nr == __NR_umount2 || d->nr == __NR_move_mount || d->nr == __NR_mount_setattr ||
      d->nr == __NR_pivot_root || d->nr == __NR_setns) {
    __atomic_store_n(&g_mounts, 1, __ATOMIC_RELAXED);
    if (d->nr == __NR_pivot_root) xb_log_flag(&g_log, XB_FLAG_ROOT_UNNAMED); /* cannot know it will fail */
    return 0;
  }
  if (d->nr == __NR_open_by_handle_at) return read_handle(pid, d->args, c);
  if (d->nr < 0 || (size_t)d->nr >= sizeof DECODE / sizeof DECODE[0] || !DECODE[d->nr].op) return 0;
  const struct decoding *k = &DECODE[d->nr];
  const __u64 *x = d->args;
  /* A NULL first name: the kernel fails the call (EFAULT) before any lookup, or runs it on the
   * fd (futimens; statx and fstatat with AT_EMPTY_PATH). Rust's statx probe passes one. A change
   * of metadata so made (futimens) writes the fd's file; a lookup so made names nothing. */
  int null_fd = d->nr == __NR_utimensat && !x[k->a.at];
  if (k->a.kind == P_PATH && !x[k->a.at] && !null_fd) return 0;
  int op = k->op;
  if (d->nr == __NR_unlinkat && (x[2] & AT_REMOVEDIR)) op = XB_OP_RMDIR;
  uint32_t arg = decode_arg(pid, k, x);
  if (k->xattr_at && user_xattr(pid, x[k->xattr_at - 1])) arg |= XB_SETATTR_USER_XATTR;
  if (null_fd)
    read_fd_path(pid, (int)(int32_t)x[0], a);
  else
    read_path_arg(pid, &k->a, x, xb_follows_last(op, arg), a);
  if (!a->present) return 0; /* bind: not an AF_UNIX path */
  /* "" with AT_EMPTY_PATH: a change of metadata of the dirfd's own file (an O_PATH fd of a link
   * names the link itself), which the fd's /proc link names. */
  if (k->empty_at && a->path_len == 0 && !(a->rflags & XB_RF_UNREADABLE) && (x[k->empty_at - 1] & AT_EMPTY_PATH))
    read_fd_path(pid, (int)(int32_t)x[0], a);
  if (d->nr == __NR_execveat && a->path_len == 0 && !(a->rflags & XB_RF_UNREADABLE) && (x[4] & AT_EMPTY_PATH))
    read_fd_path(pid, (int)(int32_t)x[0], a); /* fexecve: the program open as the fd */
  read_path_arg(pid, &k->b, x, 0, b);
  if (k->b.kind == P_PATH && !b->present) return 0; /* a second name in unmapped memory: EFAULT */
  c->pid = pid;
  c->op = op;
  c->op2 = k->op2;
  c->arg = arg;
  /* A lookup's flags: faccessat2 may look at a symlink itself; access and faccessat follow. */
  uint32_t look_arg = op != XB_OP_ACCESS ? arg : d->nr == __NR_faccessat2 ? (uint32_t)x[3] & AT_SYMLINK_NOFOLLOW : 0;
  int32_t resolved;
  a->result = d->nr == __NR_openat2 && open_resolved(pid, x, a, &resolved) ? resolved : existence(pid, op, look_arg, a);
  b->result = k->op2 ? existence(pid, k->op2, arg, b) : XB_RESULT_UNKNOWN;
  if (k->op2 == XB_OP_RENAME_TO || k->op2 == XB_OP_LINK)
    two_names_outcome(a, b, k->op2 == XB_OP_RENAME_TO, d->nr == __NR_renameat2 ? x[4] : 0);
  return 1;
}
