/*
 * A call's outcome, foretold (see notify-server.h): the server continues every call (FLAG_CONTINUE)
 * and never sees what the kernel answered, so it looks at the paths first, as the caller, to
 * tell a missing, taken or wrong-kind path from one the call may create or act on.
 */
#define _GNU_SOURCE
#include "notify-server.h"

#include "sys.h"

#include <dirent.h>
#include <sys/syscall.h>

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
int32_t existence(pid_t pid, int op, uint32_t arg, struct path_read *p) {
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
void two_names_outcome(struct path_read *a, struct path_read *b, int rename, uint64_t flags) {
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
int open_resolved(pid_t pid, const __u64 *x, struct path_read *p, int32_t *result) {
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
