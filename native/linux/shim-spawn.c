/*
 * The preload shim's posix_spawn (shim.h lists its files): the exec it makes, and the opens and
 * folder changes its file actions make in the child.
 */
#include "shim.h"

/*
 * Finds `file` on PATH (as execvp would) into out; 1 if found. Each directory that does not hold
 * it is recorded as a missing exec: the program's outcome depends on it staying absent.
 */
static int search_path(const char *file, char *out, size_t cap) {
  const char *p = env_value(environ, "PATH=");
  if (!p) p = "/bin:/usr/bin";
  size_t flen = strlen(file);
  while (1) {
    const char *end = strchrnul(p, ':');
    size_t dlen = (size_t)(end - p);
    if (dlen + flen + 2 <= cap) {
      if (dlen) {
        memcpy(out, p, dlen);
        out[dlen] = '/';
        memcpy(out + dlen + 1, file, flen + 1);
      } else {
        memcpy(out, file, flen + 1);
      }
      struct stat st;
      long r = XSYS(SYS_newfstatat, AT_FDCWD, out, &st, 0, 0);
      if (r == 0 && S_ISREG(st.st_mode) && XSYS(SYS_faccessat, AT_FDCWD, out, X_OK, 0, 0) == 0) return 1;
      if (r == -ENOENT || r == -ENOTDIR) xb_log_set_result(record_call(XB_OP_EXEC, AT_FDCWD, out, 0, 0), (int32_t)-r);
    }
    if (!*end) return 0;
    p = end + 1;
  }
}

/*
 * posix_spawn's file actions (an open, a chdir, an fchdir) run in the child glibc makes for the
 * spawn, through its hidden calls: the filter sees them (hybrid mode), the shim does not. glibc
 * keeps them in an array whose element is private (spawn_int.h), mirrored here; each action the
 * wrappers below add is checked against the mirror, so a glibc that lays them out otherwise is
 * noticed instead of misread: its spawns with file actions then mark the trace incomplete.
 */
struct xb_spawn_action {
  int tag;
  union {
    struct {
      int fd;
      char *path;
      int oflag;
      mode_t mode;
    } open;
    struct {
      char *path;
    } chdir;
    struct {
      int fd;
    } fchdir;
  } u;
};
enum { XB_SPAWN_OPEN = 2, XB_SPAWN_CHDIR = 3, XB_SPAWN_FCHDIR = 4 };
static int g_fa_checked; /* 1 << tag for each kind of action whose layout a wrapper confirmed */
static int g_fa_mismatch; /* a wrapper found an action laid out otherwise */

/* The action just added to `fa`, if it is of kind `tag`. */
static struct xb_spawn_action *added(posix_spawn_file_actions_t *fa, int tag) {
  if (fa->__used <= 0 || !fa->__actions) return NULL;
  struct xb_spawn_action *a = (struct xb_spawn_action *)(void *)fa->__actions + (fa->__used - 1);
  return a->tag == tag ? a : NULL;
}

static void confirm(int tag, int same) {
  if (same)
    __atomic_fetch_or(&g_fa_checked, 1 << tag, __ATOMIC_RELAXED);
  else
    __atomic_store_n(&g_fa_mismatch, 1, __ATOMIC_RELAXED);
}

static int same_text(const char *a, const char *b) {
  return a && b && strcmp(a, b) == 0;
}

EXPORT int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd, const char *path, int oflag,
                                            mode_t mode) {
  if (!RESOLVE(posix_spawn_file_actions_addopen)) return ENOSYS;
  int r = real_posix_spawn_file_actions_addopen(fa, fd, path, oflag, mode);
  if (r == 0) {
    struct xb_spawn_action *a = added(fa, XB_SPAWN_OPEN);
    confirm(XB_SPAWN_OPEN, a && a->u.open.fd == fd && same_text(a->u.open.path, path) && a->u.open.oflag == oflag &&
                               a->u.open.mode == mode);
  }
  return r;
}

EXPORT int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *fa, const char *path) {
  if (!RESOLVE(posix_spawn_file_actions_addchdir_np)) return ENOSYS;
  int r = real_posix_spawn_file_actions_addchdir_np(fa, path);
  if (r == 0) {
    struct xb_spawn_action *a = added(fa, XB_SPAWN_CHDIR);
    confirm(XB_SPAWN_CHDIR, a && same_text(a->u.chdir.path, path));
  }
  return r;
}

EXPORT int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa, int fd) {
  if (!RESOLVE(posix_spawn_file_actions_addfchdir_np)) return ENOSYS;
  int r = real_posix_spawn_file_actions_addfchdir_np(fa, fd);
  if (r == 0) {
    struct xb_spawn_action *a = added(fa, XB_SPAWN_FCHDIR);
    confirm(XB_SPAWN_FCHDIR, a && a->u.fchdir.fd == fd);
  }
  return r;
}

/* Appends a record of `path` relative to `base` (NULL: none known) for process `pid`, its
 * outcome `result`; returns its result slot. For calls another process made (a spawned child). */
static int32_t *record_based(int op, const char *base, const char *path, uint32_t arg, pid_t pid, int32_t result) {
  if (!may_record() || unmappable(path) || !path[0]) return NULL;
  if (path[0] != '/' && !base) { /* a folder that could not be named: say so, no bare name */
    xb_log_flag(&g_log, XB_FLAG_PATH_UNRESOLVED);
    return NULL;
  }
  struct xb_thread *t = &t_self;
  if (t->busy) return NULL;
  t->busy = 1;
  const size_t max = XB_REC_MAX - XB_SPAWN_CWD_MAX - sizeof(struct xb_rec);
  uint64_t h;
  struct xb_what w = {op, pid, arg, 0};
  struct xb_rec r = rec_of(w, path[0] != '/' ? strlen(base) : 0, scan_path(path, max, &h), max);
  r.result = result;
  int32_t *slot = xb_log_append_local(&g_log, &t->cur, &r, base, path);
  t->busy = 0;
  return slot;
}

/* `path` taken from the folder `dir` into out (XB_SPAWN_CWD_MAX): an absolute path as it is, a
 * relative one after `dir` (normalized when the trace is read). 0 if it does not fit or `dir`
 * is unknown (""). */
static int follow(char *out, const char *dir, const char *path) {
  size_t d = strlen(dir), p = strlen(path);
  if (path[0] == '/') {
    if (p >= XB_SPAWN_CWD_MAX) return 0;
    memmove(out, path, p + 1);
    return 1;
  }
  if (!d || d + 1 + p >= XB_SPAWN_CWD_MAX) return 0;
  if (out != dir) memmove(out, dir, d);
  out[d] = '/';
  memcpy(out + d + 1, path, p + 1);
  return 1;
}

/*
 * Follows a spawn's file actions as its child runs them: b->cwd ends as the folder the program
 * is looked up from (1 if an action moved it). With `rec`, each open and chdir is recorded for
 * `pid` with `result`. Only kinds of action whose layout was confirmed are read (only the
 * wrappers above add them).
 */
static int spawn_actions(const posix_spawn_file_actions_t *fa, struct exec_buf *b, int rec, int32_t result, pid_t pid) {
  long k = XSYS(SYS_getcwd, b->cwd, XB_SPAWN_CWD_MAX, 0, 0, 0);
  if (k <= 0) b->cwd[0] = 0;
  int checked = __atomic_load_n(&g_fa_checked, __ATOMIC_RELAXED), moved = 0;
  const struct xb_spawn_action *a = (const struct xb_spawn_action *)(const void *)fa->__actions;
  for (int i = 0; i < fa->__used; i++, a++) {
    b->fd_of[i % XB_SPAWN_FDS] = -1;
    if (a->tag < 0 || a->tag > 30 || !(checked & (1 << a->tag))) continue; /* close, dup2 and the like: no path */
    const char *base = b->cwd[0] ? b->cwd : NULL;
    if (a->tag == XB_SPAWN_OPEN) {
      if (rec) record_based(XB_OP_OPEN, base, a->u.open.path, (uint32_t)a->u.open.oflag, pid, result);
      char *dir = b->fd_dirs + XB_SPAWN_CWD_MAX * (size_t)(i % XB_SPAWN_FDS);
      if (follow(dir, b->cwd, a->u.open.path)) b->fd_of[i % XB_SPAWN_FDS] = a->u.open.fd;
    } else if (a->tag == XB_SPAWN_CHDIR) {
      if (rec) record_based(XB_OP_CHDIR, base, a->u.chdir.path, 0, pid, result);
      if (!follow(b->cwd, b->cwd, a->u.chdir.path)) b->cwd[0] = 0;
      moved = 1;
    } else if (a->tag == XB_SPAWN_FCHDIR) {
      int fd = a->u.fchdir.fd, found = 0;
      for (int j = i - 1; j >= 0 && j > i - XB_SPAWN_FDS && !found; j--) /* opened by one of the last actions */
        if (b->fd_of[j % XB_SPAWN_FDS] == fd)
          found = follow(b->cwd, "", b->fd_dirs + XB_SPAWN_CWD_MAX * (size_t)(j % XB_SPAWN_FDS));
      if (!found) { /* this process's own fd, inherited */
        char link[40];
        fmt_fd_link(link, fd);
        long n = XSYS(SYS_readlinkat, AT_FDCWD, link, b->cwd, XB_SPAWN_CWD_MAX - 1, 0);
        b->cwd[n > 0 && n < XB_SPAWN_CWD_MAX - 1 && b->cwd[0] == '/' ? n : 0] = 0;
      }
      moved = 1;
    }
  }
  return moved;
}

/*
 * The exec of a spawn with file actions, recorded once it returned `r`, relative to `dir` (where
 * the actions left the child; NULL: this process's cwd). A failure may be an action's: the exec
 * is then recorded only as a program that is missing now (its likely cause), never as run.
 */
static void spawn_exec(const char *target, const char *dir, int r, pid_t child, char *scratch) {
  if (!target) return;
  int relative = target[0] != '/' && dir;
  if (r != 0) {
    struct stat st;
    const char *at = target;
    if (relative) at = dir[0] && follow(scratch, dir, target) ? scratch : NULL;
    long e = at ? XSYS(SYS_newfstatat, AT_FDCWD, at, &st, 0, 0) : 0;
    if (e != -ENOENT && e != -ENOTDIR) return;
    r = (int)-e;
  }
  if (relative)
    record_based(XB_OP_EXEC, dir[0] ? dir : NULL, target, 0, child, r);
  else
    xb_log_set_result(record_call(XB_OP_EXEC, AT_FDCWD, target, 0, 0), r);
}

static int do_spawn(pid_t *pid, const char *path, int search, const posix_spawn_file_actions_t *fa,
                    const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  if (!RESOLVE(posix_spawn) || !RESOLVE(posix_spawnp)) return ENOSYS;
  if (!g_log.hdr) return (search ? real_posix_spawnp : real_posix_spawn)(pid, path, fa, attr, argv, envp);
  struct exec_buf b;
  int err = exec_buf_get(&b, envp, NULL);
  if (err) return err;
  /* File actions: in hybrid mode the filter sees the child make them, and its exec; without it
   * the shim reads them, and records the exec once the spawn says how it went. */
  int actions = fa && fa->__used > 0;
  int readable = actions && !__atomic_load_n(&g_fa_mismatch, __ATOMIC_RELAXED);
  if (actions && !readable && !g_filtered) xb_log_flag(&g_log, XB_FLAG_SPAWN_UNREAD);
  int moved = readable && spawn_actions(fa, &b, 0, 0, 0);
  const char *target = path;
  if (search && path && !strchr(path, '/')) target = search_path(path, b.found, PATH_MAX) ? b.found : NULL;
  int32_t *slot = target && !actions ? record_call(XB_OP_EXEC, AT_FDCWD, target, 0, 0) : NULL;
  int secure = shim_cannot_follow(target);
  if (secure)
    note_secure();
  else if (target)
    note_static(target);
  char **env = traced_env(envp, &b, secure || xb_lists_objects(target, argv, envp)); /* see exec_traced */
  int r = (search ? real_posix_spawnp : real_posix_spawn)(pid, path, fa, attr, argv, env);
  if (slot) xb_log_set_result(slot, r);
  if (actions && !g_filtered) {
    pid_t child = r == 0 && pid ? *pid : current_pid();
    /* The actions ran in the child: their outcome is known only when all succeeded. */
    if (readable) spawn_actions(fa, &b, 1, r == 0 ? 0 : XB_RESULT_PENDING, child);
    spawn_exec(target, moved ? b.cwd : NULL, r, child, b.fd_dirs);
  }
  exec_buf_put(&b);
  return r;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  return do_spawn(pid, path, 0, fa, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  return do_spawn(pid, file, 1, fa, attr, argv, envp);
}
