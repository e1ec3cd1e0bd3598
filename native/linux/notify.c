/*
 * The notification server (see notify.h). Rules: S's serving thread only; no allocation per
 * notification; a notified call is always continued; errors mark the trace incomplete
 * (XB_FLAG_LAUNCHER_ERROR) instead of stopping the tree.
 */
#define _GNU_SOURCE
#include "notify.h"

#include "filter.h"
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Debian's headers lack these (Linux 6.6+). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif

#define PAGE 4096u

static struct xb_log g_log;

static uint64_t g_trimmed = XB_LOG_HEADER_SIZE; /* log bytes below this are unmapped from S */
/* The kernel's page size, which madvise wants its range aligned to: 4 KiB on x86-64; 4, 16 or
 * 64 KiB on arm64. */
static uint64_t g_page = PAGE;

/* Keeps S's resident set bounded: drop log pages far behind the tail (they stay in the file). */
static void trim_log(void) {
  uint64_t tail = __atomic_load_n(&g_log.hdr->tail, __ATOMIC_RELAXED);
  const uint64_t keep = 4u << 20;
  if (tail > g_log.capacity) tail = g_log.capacity;
  if (tail < keep + XB_LOG_HEADER_SIZE) return;
  uint64_t upto = (tail - keep) & ~(g_page - 1);
  uint64_t from = __atomic_load_n(&g_trimmed, __ATOMIC_RELAXED);
  if (upto < from + (1u << 20)) return;
  if (!__atomic_compare_exchange_n(&g_trimmed, &from, upto, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
  from = (from + g_page - 1) & ~(g_page - 1);
  if (madvise(g_log.base + from, upto - from, MADV_DONTNEED) != 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
}

struct path_read {
  char path[PATH_MAX + 1];
  char base[PATH_MAX];
  uint32_t path_len, base_len, rflags;
  int dirfd; /* the caller's: AT_FDCWD or the dirfd a relative path is relative to */
  int present;
  int32_t result; /* existence() before the call */
  int base_gone; /* the base is a folder removed since (the caller's cwd or dirfd): see place */
  mode_t seen; /* what existence() found there (its type bits), 0 if nothing */
  int seen_full; /* a folder found there holds entries (looked at for a rename's new name only) */
  int by_fd; /* named by an fd the caller holds (read_fd_path): a change made through it needs no look */
};

/*
 * Reads a NUL-terminated string from the tracee, page by page (a later page may be unmapped).
 * Returns -1 when the string runs into memory the tracee has not mapped before its NUL: the
 * kernel then fails the call with EFAULT before any lookup, so the call names nothing.
 */
static int read_remote(pid_t pid, uint64_t addr, struct path_read *out) {
  size_t got = 0;
  out->path_len = 0;
  while (got < PATH_MAX) {
    size_t chunk = PAGE - (size_t)((addr + got) % PAGE);
    if (chunk > PATH_MAX - got) chunk = PATH_MAX - got;
    struct iovec local = {.iov_base = out->path + got, .iov_len = chunk};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)(addr + got), .iov_len = chunk};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n < 0 && errno == EFAULT) return -1;
    if (n <= 0) {
      if (got == 0) out->rflags |= XB_RF_UNREADABLE;
      break;
    }
    char *nul = memchr(out->path + got, 0, (size_t)n);
    if (nul) {
      out->path_len = (uint32_t)(nul - out->path);
      return 0;
    }
    got += (size_t)n;
  }
  out->path_len = (uint32_t)got;
  if (got == PATH_MAX) out->rflags |= XB_RF_TRUNCATED;
  return 0;
}

/*
 * readlink of a /proc link into `buf` (PATH_MAX bytes): its length, or 0. A folder whose name is
 * longer than the kernel gives out (ENAMETOOLONG past a page) cannot be named: a path under it
 * would be recorded as a bare relative name, so the trace says it is incomplete instead.
 */
static size_t read_proc_link(const char *link, char *buf) {
  ssize_t k = readlink(link, buf, PATH_MAX);
  if ((k < 0 && errno == ENAMETOOLONG) || k >= (ssize_t)PATH_MAX) {
    xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED);
    return 0;
  }
  return k > 0 && buf[0] == '/' ? (size_t)k : 0;
}

/* Set once a process of the tree called chroot: absolute paths may then be named from another
 * root than S's, which each such path's record looks up. */
static int g_rooted;

/*
 * Set once a process of the tree mounted or unmounted something, or entered a mount namespace:
 * its paths may then lead elsewhere than from S (`unshare -m` and a bind mount), so a look is made
 * through the caller's own root (/proc/PID/root) when its mount namespace is not S's.
 */
static int g_mounts;

/* 1 if `pid`'s mount namespace is not S's (only looked at once g_mounts is set). */
static int other_mounts(pid_t pid) {
  if (!__atomic_load_n(&g_mounts, __ATOMIC_RELAXED)) return 0;
  static ino_t own; /* serving threads may race here: each finds the same */
  struct stat st;
  if (!__atomic_load_n(&own, __ATOMIC_RELAXED)) {
    if (stat("/proc/self/ns/mnt", &st) != 0) return 0;
    __atomic_store_n(&own, st.st_ino, __ATOMIC_RELAXED);
  }
  char ns[64];
  snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", (int)pid);
  return stat(ns, &st) == 0 && st.st_ino != __atomic_load_n(&own, __ATOMIC_RELAXED);
}

/*
 * A process that changed its root (chroot) names absolute paths from there: the host's name for
 * that root, read from outside it, becomes the base, and the path is taken relative to it.
 */
static void in_root(pid_t pid, struct path_read *out) {
  char link[64];
  snprintf(link, sizeof link, "/proc/%d/root", (int)pid);
  size_t n = read_proc_link(link, out->base);
  if (n == 0) {
    xb_log_flag(&g_log, XB_FLAG_UNREADABLE);
    out->present = 0;
    return;
  }
  if (n == 1) return; /* "/": the same root as S's */
  size_t skip = 0;
  while (skip < out->path_len && out->path[skip] == '/') skip++;
  if (skip == out->path_len) { /* the root itself */
    memcpy(out->path, ".", 2);
    out->path_len = 1;
  } else {
    memmove(out->path, out->path + skip, out->path_len - skip + 1);
    out->path_len -= (uint32_t)skip;
  }
  out->base_len = (uint32_t)n;
}

/* The base a path read into `out` is relative to: the caller's cwd or `dirfd`'s folder for a
 * relative path, its root for an absolute one (see in_root). */
static void place(pid_t pid, int dirfd, struct path_read *out) {
  if (out->path_len == 0) return;
  if (out->path[0] == '/') {
    if (__atomic_load_n(&g_rooted, __ATOMIC_RELAXED)) in_root(pid, out);
    return;
  }
  char link[64];
  if (dirfd == AT_FDCWD) {
    snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
  } else {
    snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
    out->rflags |= XB_RF_BASE_DIRFD;
  }
  out->base_len = (uint32_t)read_proc_link(link, out->base);
  if (!out->base_len) out->present = 0; /* nothing to resolve it against */
  /* A folder removed while a process is in it (or holds it open) is named with this mark: it
   * keeps the name it had, and a look inside goes through the /proc link (see existence). */
  struct stat st;
  out->base_gone = xb_marked_removed(out->base, out->base_len) && lstat(out->base, &st) != 0;
  if (out->base_gone) out->base[out->base_len -= (uint32_t)XB_REMOVED_MARK_LEN] = 0;
}

/*
 * A path through a process's magic /proc link (sys.h: /proc/PID/cwd/..., /proc/self/fd/N, /dev/fd/N)
 * named as the file it reaches, which the link, read from outside, names: the caller's own links
 * (self, thread-self, /dev/fd) as the caller's, a link alone only where the call follows it
 * (`follow_last`). A link to no file by name (a pipe, a socket, a file removed or made with
 * O_TMPFILE) keeps the name given.
 */
static void through_link(pid_t pid, int follow_last, struct path_read *out) {
  size_t link = xb_magic_link(out->path);
  if (!link || (out->path[link] != '/' && !follow_last)) return;
  char name[64], target[PATH_MAX];
  const char *p = out->path, *fd;
  int n;
  if (!strncmp(p, "/dev/std", 8))
    n = snprintf(name, sizeof name, "/proc/%d/fd/%d", (int)pid, p[8] == 'i' ? 0 : p[8] == 'o' ? 1 : 2);
  else if ((fd = !strncmp(p, "/dev/fd/", 8) ? p + 8 : NULL))
    n = snprintf(name, sizeof name, "/proc/%d/fd/%.*s", (int)pid, (int)(link - 8), fd);
  else if (!strncmp(p, "/proc/self/", 11) || !strncmp(p, "/proc/thread-self/", 18))
    n = snprintf(name, sizeof name, "/proc/%d/%.*s", (int)pid, (int)(p + link - strchr(p + 6, '/') - 1),
                 strchr(p + 6, '/') + 1);
  else
    n = snprintf(name, sizeof name, "%.*s", (int)link, p);
  if (n <= 0 || n >= (int)sizeof name) return;
  ssize_t k = readlink(name, target, sizeof target - 1);
  if (k <= 0 || k >= (ssize_t)sizeof target - 1 || target[0] != '/') return;
  target[k] = 0;
  struct stat st;
  if (xb_marked_removed(target, (size_t)k) && lstat(target, &st) != 0) return; /* removed: no name to give */
  size_t rest = out->path_len - link;
  if ((size_t)k + rest >= PATH_MAX) return;
  memmove(out->path + k, out->path + link, rest + 1);
  memcpy(out->path, target, (size_t)k);
  out->path_len = (uint32_t)((size_t)k + rest);
}

static void read_path(pid_t pid, int dirfd, uint64_t addr, int follow_last, struct path_read *out) {
  out->dirfd = dirfd;
  out->rflags = 0;
  out->base_len = 0;
  out->base_gone = 0;
  out->by_fd = 0;
  out->present = read_remote(pid, addr, out) == 0;
  if (out->present && out->path[0] == '/' && !(out->rflags & XB_RF_TRUNCATED)) through_link(pid, follow_last, out);
  if (out->present) place(pid, dirfd, out);
}

/* Each serving thread appends into its own chunk of the log (see xb_log_append_local). */
static __thread struct xb_cursor t_cur;

/* "/proc/self" or "/proc/thread-self", alone or followed by a '/'. */
static int self_proc(const char *path) {
  if (strncmp(path, "/proc/", 6) != 0) return 0;
  const char *rest = path + 6;
  size_t n = strncmp(rest, "self", 4) == 0 ? 4 : strncmp(rest, "thread-self", 11) == 0 ? 11 : 0;
  return n && (rest[n] == '/' || rest[n] == 0);
}

/*
 * The caller's own fd entry for a /dev name that leads to one (/dev/fd -> /proc/self/fd,
 * /dev/stdin -> /proc/self/fd/0, ...: bash's <(...) opens /dev/fd/63), into out; 0 for any
 * other path. Looked up as S, they would name S's fds.
 */
static int self_fd(pid_t pid, const char *path, char *out, size_t cap) {
  static const char *const std[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
  for (int i = 0; i < 3; i++)
    if (strcmp(path, std[i]) == 0) return snprintf(out, cap, "/proc/%d/fd/%d", (int)pid, i) > 0;
  if (strncmp(path, "/dev/fd", 7) != 0 || (path[7] != '/' && path[7] != 0)) return 0;
  return snprintf(out, cap, "/proc/%d/fd%s", (int)pid, path + 7) > 0;
}

/* The effective user (field 1) and group ids of `pid`, from /proc/PID/status; -1 if unknown. */
static void effective_ids(pid_t pid, long *uid, long *gid) {
  char path[64], buf[2048];
  *uid = *gid = -1;
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  if (close(fd) != 0 || n <= 0) return;
  buf[n] = 0;
  const char *u = strstr(buf, "\nUid:"), *g = strstr(buf, "\nGid:");
  long real;
  if (u && sscanf(u + 5, "%ld %ld", &real, uid) != 2) *uid = -1;
  if (g && sscanf(g + 5, "%ld %ld", &real, gid) != 2) *gid = -1;
}

/*
 * An exec of a program that would raise its privileges (setuid or setgid to another id, or file
 * capabilities for a non-root user): the filter's no_new_privs makes it run without them, so the
 * trace says so (XB_FLAG_SETUID_UNPRIVILEGED). Only setuid/setgid bits and xattr'd programs cost
 * more than the look existence() already made.
 */
static void note_privileged_exec(pid_t pid, int at, const char *q, const struct stat *st) {
  int caps = at == AT_FDCWD && getxattr(q, "security.capability", NULL, 0) > 0;
  if (!(st->st_mode & (S_ISUID | S_ISGID)) && !caps) return;
  long uid, gid;
  effective_ids(pid, &uid, &gid);
  if (((st->st_mode & S_ISUID) && (long)st->st_uid != uid) || ((st->st_mode & S_ISGID) && (long)st->st_gid != gid) ||
      (caps && uid != 0))
    xb_log_flag(&g_log, XB_FLAG_SETUID_UNPRIVILEGED);
}

/* An open of /dev/tty by a process without a controlling terminal fails with ENXIO (a shell's
 * `exec 3</dev/tty` in a pipeline or a service). tty_nr is field 7 of /proc/PID/stat. */
static int no_controlling_tty(pid_t pid, const char *q) {
  if (strcmp(q, "/dev/tty") != 0) return 0;
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  if (close(fd) != 0 || n <= 0) return 0;
  buf[n] = 0;
  const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
  int tty = -1;
  return p && sscanf(p + 1, " %*c %*d %*d %*d %d", &tty) == 1 && tty == 0;
}

/* 1 if binfmt_misc may run an image (its file system mounted with any handler in it), looked at
 * once: a folder of more than `register` and `status`, or one that cannot be read. */
static int binfmt_misc_handlers(void) {
  static int known = -1; /* serving threads may race here: each computes the same answer */
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k >= 0) return k;
  DIR *d = opendir("/proc/sys/fs/binfmt_misc");
  k = 0;
  if (d) {
    struct dirent *e;
    while (!k && (e = readdir(d)))
      k = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "register") &&
          strcmp(e->d_name, "status");
    if (closedir(d) != 0) k = 1;
  } else if (errno != ENOENT) {
    k = 1;
  }
  __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  return k;
}

/* How many interpreters deep the kernel follows #! (fs/exec.c: more fail with ELOOP). */
#define XB_INTERP_DEPTH 4

static int32_t exec_refusal(pid_t pid, int at, const char *q, const struct stat *st, int depth);

/*
 * The error an exec fails with because of the interpreter a #! line names (`line`, the first
 * `n` bytes of the script, which start with "#!"), or 0: ENOEXEC when it names none, ENOENT when
 * it is missing (the script itself is then missing to the caller, as the kernel says), else what
 * an exec of the interpreter itself would fail with. A relative name is the caller's cwd's.
 */
static int32_t interpreter_refusal(pid_t pid, char *line, size_t n, int depth) {
  line[n] = 0;
  char *s = line + 2, *e;
  while (*s == ' ' || *s == '\t') s++;
  for (e = s; *e && *e != ' ' && *e != '\t' && *e != '\n'; e++) continue;
  if (e == s) return ENOEXEC;
  *e = 0;
  if (depth >= XB_INTERP_DEPTH) return ELOOP;
  char rel[PATH_MAX];
  const char *name = s;
  if (s[0] != '/') {
    if (snprintf(rel, sizeof rel, "/proc/%d/cwd/%s", (int)pid, s) >= (int)sizeof rel) return 0;
    name = rel;
  }
  struct stat st;
  if (stat(name, &st) != 0) return errno == ENOENT || errno == ENOTDIR ? ENOENT : 0;
  if (!S_ISREG(st.st_mode)) return EACCES;
  return exec_refusal(pid, AT_FDCWD, name, &st, depth + 1);
}

/*
 * The error an exec of the regular file `q` fails with, or 0: EACCES with no execute bit at all;
 * ENOEXEC when it starts with neither "#!" nor an ELF header and no binfmt_misc handler could
 * take it (a script without #!, which the C library's execvp then hands to /bin/sh); for a
 * script, what its interpreter makes of it (interpreter_refusal).
 */
static int32_t exec_refusal(pid_t pid, int at, const char *q, const struct stat *st, int depth) {
  if (!(st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))) return EACCES;
  int fd = openat(at, q, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;
  char head[257]; /* the kernel reads a #! line from the first 256 bytes */
  ssize_t n = read(fd, head, sizeof head - 1);
  if (close(fd) != 0 || n < 0) return 0;
  if (n >= 2 && head[0] == '#' && head[1] == '!') return interpreter_refusal(pid, head, (size_t)n, depth);
  if (n >= 4 && memcmp(head, "\177ELF", 4) == 0) return 0;
  return binfmt_misc_handlers() ? 0 : ENOEXEC;
}

/* 1 if the folder `q` (relative to `at`) holds an entry: an rmdir of it fails (ENOTEMPTY), and
 * so does a rename of a folder onto it. */
static int has_entries(int at, const char *q) {
  int fd = openat(at, q, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return 0;
  DIR *d = fdopendir(fd);
  if (!d) {
    if (close(fd) != 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    return 0;
  }
  struct dirent *e;
  int any = 0;
  while (!any && (e = readdir(d))) any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (closedir(d) != 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
  return any;
}

/* existence()'s look at `q` (relative to `at`), noting what it found in `p`; see there. */
static int32_t look(pid_t pid, int at, char *q, int op, uint32_t arg, int exclusive, int creates, struct path_read *p) {
  /* Calls that act on a symlink itself, not on what it points to. */
  int nofollow = exclusive || op == XB_OP_READLINK || op == XB_OP_UNLINK || op == XB_OP_RMDIR ||
                 op == XB_OP_RENAME_FROM || op == XB_OP_RENAME_TO ||
                 ((op == XB_OP_STAT || op == XB_OP_SETATTR || op == XB_OP_ACCESS) && (arg & AT_SYMLINK_NOFOLLOW)) ||
                 (op == XB_OP_OPEN && (arg & O_NOFOLLOW));
  struct stat st;
  if (fstatat(at, q, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0) == 0) {
    p->seen = st.st_mode & S_IFMT;
    if (exclusive) return EEXIST;
    /* O_NOFOLLOW on a symlink fails with ENOTDIR when it wants a folder, else with ELOOP (unless
     * O_PATH). */
    if (op == XB_OP_OPEN && S_ISLNK(st.st_mode) && (arg & O_DIRECTORY) && !(arg & O_CREAT)) return ENOTDIR;
    if (op == XB_OP_OPEN && S_ISLNK(st.st_mode) && !(arg & O_PATH)) return ELOOP;
    if (op == XB_OP_OPEN && S_ISCHR(st.st_mode) && no_controlling_tty(pid, q)) return ENXIO;
    /* ENXIO when no process has it open for reading: only opening it would tell, and that would
     * wake a reader blocked in its own open. */
    if (op == XB_OP_OPEN && S_ISFIFO(st.st_mode) && (arg & O_NONBLOCK) && (arg & O_ACCMODE) == O_WRONLY)
      xb_log_flag(&g_log, XB_FLAG_FIFO_UNTOLD);
    /* O_DIRECTORY on something else fails with ENOTDIR (ln -sf's look at its link name). */
    if (op == XB_OP_OPEN && (arg & O_DIRECTORY) && !S_ISDIR(st.st_mode) && !(arg & O_CREAT)) return ENOTDIR;
    if (op == XB_OP_EXEC && !S_ISREG(st.st_mode)) return EACCES;
    if (op == XB_OP_EXEC) {
      note_privileged_exec(pid, at, q, &st);
      return exec_refusal(pid, at, q, &st, 0);
    }
    if (op == XB_OP_UNLINK && S_ISDIR(st.st_mode)) return EISDIR; /* Go's RemoveAll tries this first */
    /* A symlink's mode cannot be changed (fchmodat2's AT_SYMLINK_NOFOLLOW on a link), nor can a
     * user attribute be set on anything but a file or a folder (lsetxattr on a link). */
    if (op == XB_OP_SETATTR && (arg & XB_SETATTR_MODE) && nofollow && S_ISLNK(st.st_mode)) return EOPNOTSUPP;
    if (op == XB_OP_SETATTR && (arg & XB_SETATTR_USER_XATTR) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
      return EPERM;
    /* rmdir -p and git stash try folders that may hold entries. */
    if (op == XB_OP_RMDIR) return !S_ISDIR(st.st_mode) ? ENOTDIR : has_entries(at, q) ? ENOTEMPTY : 0;
    if (op == XB_OP_RENAME_TO && S_ISDIR(st.st_mode)) p->seen_full = has_entries(at, q); /* see two_names_outcome */
    /* A folder opened for writing or creating fails (`echo > dir`); O_TMPFILE makes a file in it. */
    if (op == XB_OP_OPEN && S_ISDIR(st.st_mode) && !(arg & O_PATH) && (arg & O_TMPFILE) != O_TMPFILE &&
        ((arg & O_ACCMODE) != O_RDONLY || (arg & O_CREAT)))
      return EISDIR;
    return 0;
  }
  int e = errno;
  if (e == ELOOP) return ELOOP; /* a symlink loop: the call fails the same way (stat, as preload sees it) */
  if (e != ENOENT && e != ENOTDIR) return XB_RESULT_UNKNOWN;
  if (!creates) return e;
  /* A creation fails the same way when its folder is missing (git's first try of tmp_obj_*).
   * A name given with trailing slashes (mkdir d/) names d: its folder is the one before. */
  char *end = q + strlen(q);
  while (end > q + 1 && end[-1] == '/') *--end = 0;
  char *slash = strrchr(q, '/');
  if (!slash) return p->base_gone ? ENOENT : XB_RESULT_UNKNOWN; /* the folder is `at` itself: removed? */
  if (slash == q) return XB_RESULT_UNKNOWN; /* "/" */
  *slash = 0;
  if (fstatat(at, q, &st, 0) == 0) return S_ISDIR(st.st_mode) ? XB_RESULT_UNKNOWN : ENOTDIR;
  return errno == ENOENT || errno == ENOTDIR ? errno : XB_RESULT_UNKNOWN;
}

/*
 * FLAG_CONTINUE means the supervisor never sees a call's outcome, so it looks before the kernel
 * does, where the outcome changes the modes: a call on a missing path fails (ENOENT/ENOTDIR),
 * and so does a creating call in a missing folder; an exclusive creation (mkdir, link, O_EXCL)
 * of a path that exists fails (EEXIST); an exec of something not a regular file fails (EACCES),
 * and so does an unlink of a directory (EISDIR); see exec_refusal for an exec of a regular file.
 * Otherwise 0 (the path exists) or XB_RESULT_UNKNOWN (it may be created, or the look could not
 * tell).
 */
static int32_t existence(pid_t pid, int op, uint32_t arg, struct path_read *p) {
  p->seen = 0;
  p->seen_full = 0;
  if (op == XB_OP_READDIR || (p->by_fd && op == XB_OP_SETATTR)) return 0; /* an open fd */
  int open_creates = op == XB_OP_OPEN && (arg & O_CREAT);
  int exclusive = op == XB_OP_MKDIR || op == XB_OP_LINK || op == XB_OP_MKNOD || (open_creates && (arg & O_EXCL));
  int creates = exclusive || open_creates || op == XB_OP_RENAME_TO;
  int needs = op == XB_OP_STAT || op == XB_OP_ACCESS || op == XB_OP_READLINK || op == XB_OP_EXEC || op == XB_OP_CHDIR ||
              op == XB_OP_UNLINK || op == XB_OP_RMDIR || op == XB_OP_RENAME_FROM || op == XB_OP_TRUNCATE ||
              op == XB_OP_SETATTR || (op == XB_OP_OPEN && !open_creates);
  if ((!creates && !needs) || p->path_len == 0 || (p->rflags & (XB_RF_TRUNCATED | XB_RF_UNREADABLE)))
    return XB_RESULT_UNKNOWN;
  char full[2 * PATH_MAX + 2];
  char *q = full;
  int at = AT_FDCWD;
  /* An absolute name of the caller's own (not one chroot's look already made the host's). */
  int own_name = p->path[0] != '/' || !__atomic_load_n(&g_rooted, __ATOMIC_RELAXED);
  if (p->path[0] != '/') {
    if (!p->base_len) return XB_RESULT_UNKNOWN;
    if (p->base_len + 1 + p->path_len >= PATH_MAX || p->base_gone) {
      /* Too long to look up whole (a deep tree reached through openat), or in a folder removed
       * since: from the caller's own folder, which its /proc link opens whatever its name. */
      char link[64];
      if (p->dirfd == AT_FDCWD)
        snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
      else
        snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, p->dirfd);
      at = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (at < 0) return XB_RESULT_UNKNOWN;
      memcpy(full, p->path, p->path_len + 1);
    } else {
      memcpy(full, p->base, p->base_len);
      full[p->base_len] = '/';
      memcpy(full + p->base_len + 1, p->path, p->path_len + 1);
      own_name = 2;
    }
  } else if (self_proc(p->path)) {
    /* The caller's own /proc entry, not S's (glibc's fchmodat(AT_SYMLINK_NOFOLLOW) chmods
     * /proc/self/fd/N; bash reads /dev/stdin through it). */
    const char *rest = strchr(p->path + 6, '/');
    snprintf(full, sizeof full, "/proc/%d%s", (int)pid, rest ? rest : "");
  } else if (!self_fd(pid, p->path, full, sizeof full)) {
    memcpy(full, p->path, p->path_len + 1);
    own_name = own_name ? 2 : 0;
  }
  if (own_name == 2 && other_mounts(pid)) { /* looked up from the caller's root, in its namespace */
    char root[64];
    snprintf(root, sizeof root, "/proc/%d/root", (int)pid);
    at = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (at < 0) return XB_RESULT_UNKNOWN;
    q += strspn(q, "/");
    if (!*q) memcpy(q = full, ".", 2); /* the root itself */
  }
  int32_t r = look(pid, at, q, op, arg, exclusive, creates, p);
  if (at != AT_FDCWD && close(at) != 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
  return r;
}

/* The directory open as `fd` in `pid` (for getdents): an absolute path, or nothing. */
static void read_fd_path(pid_t pid, int fd, struct path_read *out) {
  out->dirfd = AT_FDCWD;
  out->rflags = 0;
  out->base_len = 0;
  out->base_gone = 0;
  out->by_fd = 1;
  out->present = 1;
  out->path_len = 0;
  char link[64];
  snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, fd);
  out->path_len = (uint32_t)read_proc_link(link, out->path);
  out->path[out->path_len] = 0;
}

/* The path an AF_UNIX socket is bound to (nothing for other families and abstract names). */
static void read_sockaddr_path(pid_t pid, uint64_t addr, uint64_t len, struct path_read *out) {
  struct sockaddr_un sun;
  const size_t at = offsetof(struct sockaddr_un, sun_path);
  out->present = 0;
  if (len <= at + 1) return;
  if (len > sizeof sun) len = sizeof sun;
  struct iovec l = {.iov_base = &sun, .iov_len = (size_t)len};
  struct iovec r = {.iov_base = (void *)(uintptr_t)addr, .iov_len = (size_t)len};
  if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)len || sun.sun_family != AF_UNIX || !sun.sun_path[0]) return;
  size_t n = strnlen(sun.sun_path, (size_t)len - at);
  memcpy(out->path, sun.sun_path, n);
  out->path[n] = 0;
  out->path_len = (uint32_t)n;
  out->rflags = 0;
  out->base_len = 0;
  out->base_gone = 0;
  out->by_fd = 0;
  out->dirfd = AT_FDCWD;
  out->present = 1;
  place(pid, AT_FDCWD, out);
}

/* A notified call, read and probed while its thread waits; recorded once the reply let it go. */
struct call {
  pid_t pid;
  int op, op2;
  uint32_t arg;
  uint64_t tsc;
  struct path_read a, b;
};

static void append(const struct call *c, int op, const struct path_read *p) {
  if (!p->present) return;
  if (p->path_len == 0 && !(p->rflags & XB_RF_UNREADABLE)) return; /* "" with AT_EMPTY_PATH: an fd op */
  if (p->rflags & XB_RF_UNREADABLE) xb_log_flag(&g_log, XB_FLAG_UNREADABLE);
  struct xb_rec r = {.op = (uint8_t)op,
                     .src = XB_SRC_SECCOMP,
                     .base_len = (uint16_t)p->base_len,
                     .pid = (uint32_t)c->pid,
                     .arg = op == XB_OP_OPEN ? xb_rec_open_flags(c->arg) : c->arg,
                     .result = p->result,
                     .path_len = p->path_len,
                     .rflags = p->rflags,
                     .tsc = c->tsc};
  xb_log_append_local(&g_log, &t_cur, &r, p->base, p->path);
}

#define CALL_REFUSE 2 /* read_call: answer ENOSYS instead of continuing the call */

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

/* renameat2's flags and openat2's resolve flags (linux/fs.h, linux/openat2.h: musl has neither). */
#define XB_RENAME_NOREPLACE 1u
#define XB_RENAME_EXCHANGE 2u
#define XB_RESOLVE_CACHED 0x20u

/*
 * A call on two names (rename, link) fails or succeeds as one, so both names take its outcome
 * (a failed one wrote neither). Beyond a name existence() found missing or taken, a rename fails
 * when the new name exists under RENAME_NOREPLACE (mv -n: EEXIST) or is missing under
 * RENAME_EXCHANGE (ENOENT), or, without RENAME_EXCHANGE, when the two are of other kinds (a
 * folder onto a file: ENOTDIR; a file onto a folder: EISDIR) or a folder goes onto a folder
 * that holds entries (ENOTEMPTY).
 */
static void two_names_outcome(struct path_read *a, struct path_read *b, int rename, uint64_t flags) {
  int32_t r = 0;
  if (a->result != 0)
    r = a->result;
  else if (b->result != 0 && b->result != XB_RESULT_UNKNOWN)
    r = b->result; /* the new name's folder is missing, or (link) the name is taken */
  else if (!rename)
    r = 0;
  else if (!b->seen)
    r = (flags & XB_RENAME_EXCHANGE) ? ENOENT : 0;
  else if (flags & XB_RENAME_NOREPLACE)
    r = EEXIST;
  else if (!(flags & XB_RENAME_EXCHANGE) && S_ISDIR(a->seen) != S_ISDIR(b->seen))
    r = S_ISDIR(a->seen) ? ENOTDIR : EISDIR;
  else if (!(flags & XB_RENAME_EXCHANGE) && S_ISDIR(a->seen) && b->seen_full)
    r = ENOTEMPTY;
  if (r != 0 && r != XB_RESULT_UNKNOWN) a->result = b->result = r;
}

/*
 * openat2 with resolve flags: where the path may lead is the kernel's to say (RESOLVE_BENEATH
 * fails with EXDEV on a way out, RESOLVE_NO_SYMLINKS with ELOOP at a link), so S asks it: it
 * resolves the path the same way (O_PATH) from the caller's own folder while the caller waits.
 * Under RESOLVE_IN_ROOT an absolute path starts at that folder, and is named from there. 1 with
 * the outcome in `result` when S's try tells it; 0 leaves it to existence() (no resolve flags,
 * the path was found, or a file the call may create is missing).
 */
static int open_resolved(pid_t pid, const __u64 *x, struct path_read *p, int32_t *result) {
  struct {
    uint64_t flags, mode, resolve;
  } how = {0, 0, 0};
  struct iovec l = {.iov_base = &how, .iov_len = sizeof how};
  struct iovec r = {.iov_base = (void *)(uintptr_t)x[2], .iov_len = sizeof how};
  if (x[3] < sizeof how || process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof how || !how.resolve ||
      !p->path_len || (p->rflags & (XB_RF_TRUNCATED | XB_RF_UNREADABLE)))
    return 0;
  char link[64];
  if (p->dirfd == AT_FDCWD)
    snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
  else
    snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, p->dirfd);
  int at = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (at < 0) return 0;
  struct {
    uint64_t flags, mode, resolve;
  } mine = {O_PATH | O_CLOEXEC | (how.flags & (O_NOFOLLOW | O_DIRECTORY)), 0,
            how.resolve & ~(uint64_t)XB_RESOLVE_CACHED};
  long fd = syscall(SYS_openat2, at, p->path, &mine, sizeof mine);
  int e = errno;
  if ((fd >= 0 && close((int)fd) != 0) || close(at) != 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
  if ((how.resolve & XB_RESOLVE_IN_ROOT) && p->path[0] == '/') {
    const char *rel = xb_in_root_path(p->path);
    p->path_len = (uint32_t)strlen(rel);
    memmove(p->path, rel, p->path_len + 1);
    place(pid, p->dirfd, p);
  }
  if (fd >= 0 || ((e == ENOENT || e == ENOTDIR) && (how.flags & O_CREAT))) return 0;
  *result = e;
  return 1;
}

/*
 * Decodes a notification (DECODE), reads its paths and probes them while the caller waits. 1 if
 * there is something to record once the reply succeeds: that success proves the caller was
 * still in this call, so the memory read was its own (what SECCOMP_IOCTL_NOTIF_ID_VALID would
 * tell, one ioctl less per call). CALL_REFUSE: fail the call instead.
 */
static int read_call(const struct seccomp_notif *req, struct call *c) {
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

/* Calls answered but not yet recorded: S exits only when none is left. */
static int g_unrecorded;
/* Set once the trace has ended while the tree runs on (--detach-ok): calls are served, not recorded. */
static int g_closed;

/* The listener hangs up once no process is left under its filter. */
static int listener_orphaned(int listener) {
  struct pollfd p = {.fd = listener, .events = POLLIN};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

static void *serve(void *arg) {
  xb_restore_cpus(); /* notifications come from every CPU the tree runs on */
  int listener = (int)(intptr_t)arg;
  __u64 flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
  (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags); /* older kernels: default wake-ups */
  xb_log_flag(&g_log, XB_FLAG_USED_SECCOMP);
  struct seccomp_notif_sizes sizes = {0};
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) sizes.seccomp_notif = sizeof(struct seccomp_notif);
  union {
    struct seccomp_notif n;
    char raw[512];
  } req;
  union {
    struct seccomp_notif_resp r;
    char raw[512];
  } resp;
  if (sizes.seccomp_notif > sizeof req || sizes.seccomp_notif_resp > sizeof resp) {
    xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    sizes.seccomp_notif = sizeof req; /* cannot happen with today's kernels; keep serving */
    sizes.seccomp_notif_resp = sizeof resp;
  }
  /* RECV wants its buffer zero over the kernel's struct, SEND reads the kernel's: zero just
   * those bytes per call (80 and 24 today), not the whole buffers. */
  const size_t req_size = sizes.seccomp_notif ? sizes.seccomp_notif : sizeof req.n;
  const size_t resp_size = sizes.seccomp_notif_resp > sizeof resp.r ? sizes.seccomp_notif_resp : sizeof resp.r;
  static __thread struct call call;
  uint64_t since_trim = 0;
  for (;;) {
    memset(&req, 0, req_size);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req.n) != 0) {
      if (errno == EINTR) continue;
      if (errno == ENOENT) {
        /* A caller interrupted, or (Linux 6.6+ answers at once from then on) no process is
         * left under the filter: it can never get one back, so stop instead of spinning. */
        if (listener_orphaned(listener)) break;
        continue;
      }
      xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
      break;
    }
    __atomic_fetch_add(&g_unrecorded, 1, __ATOMIC_SEQ_CST); /* before the reply can let the tree end */
    int pending = read_call(&req.n, &call);
    memset(&resp, 0, resp_size);
    resp.r.id = req.n.id;
    if (pending == CALL_REFUSE) {
      resp.r.error = -ENOSYS;
      pending = 0;
    } else {
      resp.r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp.r) == 0) {
      if (pending && !__atomic_load_n(&g_closed, __ATOMIC_ACQUIRE)) {
        append(&call, call.op, &call.a);
        if (call.op2) append(&call, call.op2, &call.b);
      }
    } else if (errno != ENOENT) { /* ENOENT: the caller is gone (killed, interrupted): no record */
      xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    }
    __atomic_fetch_sub(&g_unrecorded, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&g_log.hdr->notifications, 1, __ATOMIC_RELAXED);
    if (++since_trim >= 4096) {
      since_trim = 0;
      trim_log();
    }
  }
  close(listener);
  return NULL;
}

/* Receives the listener (one SCM_RIGHTS message; EOF if the command ran without a filter). */
static int receive_listener(int s) {
  char byte;
  char cbuf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  ssize_t n;
  do n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
  if (n <= 0) return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int))) {
    xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
    return -1;
  }
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

/*
 * The server thread. S's main thread cannot take the listener itself: while it is suspended in
 * vfork, the command's own exec already waits on its new filter. Every process of the tree
 * inherits that one filter, so one listener serves the whole tree.
 */
static void *serve_top(void *arg) {
  int s = (int)(intptr_t)arg;
  int fd = receive_listener(s);
  close(s);
  if (fd >= 0) serve((void *)(intptr_t)fd);
  return NULL;
}

int xb_notify_start(struct xb_log *log, int sock) {
  g_log = *log;
  long page = sysconf(_SC_PAGESIZE);
  if (page > 0 && (page & (page - 1)) == 0) g_page = (uint64_t)page;
  pthread_t t;
  pthread_attr_t attr;
  int err = pthread_attr_init(&attr);
  if (err) return err;
  if (!(err = pthread_attr_setstacksize(&attr, 256 * 1024)) &&
      !(err = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED)))
    err = pthread_create(&t, &attr, serve_top, (void *)(intptr_t)sock);
  pthread_attr_destroy(&attr);
  return err;
}

void xb_notify_drain(void) {
  while (__atomic_load_n(&g_unrecorded, __ATOMIC_ACQUIRE) > 0) sched_yield();
}

void xb_notify_close(void) {
  __atomic_store_n(&g_closed, 1, __ATOMIC_SEQ_CST);
  xb_notify_drain(); /* a record begun before is finished; none starts after */
}
