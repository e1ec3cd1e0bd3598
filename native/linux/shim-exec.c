/*
 * The preload shim's exec family (shim.h lists its files), and what an exec and a spawn
 * (shim-spawn.c) share: the working memory, the tracing environment put back, the check that
 * the shim can follow the image about to run.
 */
#include "shim.h"

static int has_prefix(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The number of strings in a NULL-terminated vector (environment or arguments; NULL is empty). */
static size_t env_count(char *const envp[]) {
  size_t n = 0;
  if (envp)
    while (envp[n]) n++;
  return n;
}

/* The value of the environment variable `name_eq` ("NAME=") in `env`, or NULL: getenv's answer
 * without getenv, which is not async-signal-safe. */
XB_HIDDEN const char *env_value(char *const env[], const char *name_eq) {
  size_t n = strlen(name_eq);
  for (size_t i = 0; env && env[i]; i++)
    if (strncmp(env[i], name_eq, n) == 0) return env[i] + n;
  return NULL;
}

XB_HIDDEN int exec_buf_get(struct exec_buf *b, char *const envp[], char *const argv[]) {
  size_t n = env_count(envp) + 5, a = env_count(argv) + 3;
  /* Room for the longest LD_PRELOAD with this shim added: a long one must not leave it out. */
  size_t longest = 0;
  for (size_t i = 0; envp && envp[i]; i++)
    if (has_prefix(envp[i], XB_ENV_PRELOAD "=")) {
      size_t len = strlen(envp[i]);
      if (len > longest) longest = len;
    }
  b->preload_cap = longest + strlen(g_self) + sizeof XB_ENV_PRELOAD + 2;
  size_t spawn = XB_SPAWN_CWD_MAX * (1 + XB_SPAWN_FDS);
  b->size = ((n + a) * sizeof(char *) + XB_CANDIDATE_MAX + b->preload_cap + spawn + 4095) & ~(size_t)4095;
  long p = XSYS(SYS_mmap, 0, b->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
  if (p < 0 && p > -4096) return (int)-p;
  b->map = (void *)p;
  b->env = (char **)p;
  b->argv = b->env + n;
  b->found = (char *)(b->argv + a);
  b->preload = b->found + XB_CANDIDATE_MAX;
  b->cwd = b->preload + b->preload_cap;
  b->fd_dirs = b->cwd + XB_SPAWN_CWD_MAX;
  for (int i = 0; i < XB_SPAWN_FDS; i++) b->fd_of[i] = -1;
  return 0;
}

XB_HIDDEN void exec_buf_put(struct exec_buf *b) {
  int e = errno;
  XSYS(SYS_munmap, b->map, b->size, 0, 0, 0);
  errno = e;
}

/* Copies `n` bytes of `s` to `out` and returns the end. */
static char *put(char *out, const char *s, size_t n) {
  memcpy(out, s, n);
  return out + n;
}

/* LD_PRELOAD's value without this shim (`value` is what follows "LD_PRELOAD="), into out (room
 * for the whole entry: the result is never longer). */
static void drop_self(const char *value, char *out) {
  static const char eq[] = XB_ENV_PRELOAD "=";
  char *o = put(out, eq, sizeof eq - 1);
  size_t self = strlen(g_self);
  for (const char *p = value; *p;) {
    size_t len = strcspn(p, ": ");
    if (len && !(len == self && strncmp(p, g_self, self) == 0)) {
      if (o[-1] != '=') *o++ = ':';
      o = put(o, p, len);
    }
    p += len;
    if (*p) p++;
  }
  *o = 0;
}

/*
 * Copies envp into b->env with the tracing variables re-inserted (or, where the shim cannot
 * follow, with it taken out of LD_PRELOAD: ld.so would refuse it there, with a message on stderr).
 */
XB_HIDDEN char **traced_env(char *const envp[], struct exec_buf *b, int secure) {
  size_t k = 0;
  int have_preload = 0, have_log = 0, have_mode = 0;
  static const char preload_eq[] = XB_ENV_PRELOAD "=";
  for (size_t i = 0; envp && envp[i]; i++) {
    char *e = envp[i];
    if (has_prefix(e, preload_eq)) {
      have_preload = 1;
      if (secure) {
        drop_self(e + sizeof preload_eq - 1, b->preload);
        e = b->preload;
      } else if (!strstr(e, g_self)) { /* exec_buf_get made room for it */
        char *o = put(b->preload, preload_eq, sizeof preload_eq - 1);
        o = put(o, g_self, strlen(g_self));
        *o++ = ':';
        const char *rest = e + sizeof preload_eq - 1;
        put(o, rest, strlen(rest) + 1);
        e = b->preload;
      }
    } else if (has_prefix(e, XB_ENV_LOG "=")) {
      have_log = 1;
    } else if (has_prefix(e, XB_ENV_MODE "=")) {
      have_mode = 1;
    }
    b->env[k++] = e;
  }
  if (!have_preload && !secure) b->env[k++] = (char *)g_env_preload;
  if (!have_log) b->env[k++] = (char *)g_env_log;
  if (!have_mode && g_env_mode[0]) b->env[k++] = (char *)g_env_mode;
  b->env[k] = NULL;
  return b->env;
}

/*
 * access(2) of `path` as the image about to be exec'd will have it: a process that is not root
 * keeps no capabilities through an exec (setpriv --reuid keeps CAP_DAC_OVERRIDE until then), so
 * the check runs with the effective set emptied for its duration. Raw calls, no records.
 */
static long access_as_next_image(const char *path, int mode, long euid) {
  struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct had[2], none[2];
  int dropped = 0;
  if (euid != 0 && xb_sys(SYS_capget, (long)&h, (long)had, 0, 0, 0) == 0 && (had[0].effective | had[1].effective)) {
    memcpy(none, had, sizeof none);
    none[0].effective = none[1].effective = 0;
    dropped = xb_sys(SYS_capset, (long)&h, (long)none, 0, 0, 0) == 0;
  }
  long r = XSYS(SYS_faccessat2, AT_FDCWD, path, mode, AT_EACCESS, 0);
  if (dropped && xb_sys(SYS_capset, (long)&h, (long)had, 0, 0, 0) != 0) r = -EPERM; /* cannot happen: our own set */
  return r;
}

/*
 * 1 if the image `path` will run without a working shim: the loader runs it securely (real and
 * effective ids differ, or without no_new_privs a setuid, setgid or file-capability program) and
 * ignores a preload with a '/' in it; or the process changed user since the shim loaded and the
 * shim or the log is closed to it now (ld.so would print an error on the command's stderr, or
 * the shim could not record). Raw calls, no records.
 */
XB_HIDDEN int shim_cannot_follow(const char *path) {
  if (__atomic_load_n(&g_chrooted, __ATOMIC_RELAXED)) return 1; /* the shim's path is not the host's there */
  long euid = xb_sys(SYS_geteuid, 0, 0, 0, 0, 0), egid = xb_sys(SYS_getegid, 0, 0, 0, 0, 0);
  int cannot = xb_sys(SYS_getuid, 0, 0, 0, 0, 0) != euid || xb_sys(SYS_getgid, 0, 0, 0, 0, 0) != egid;
  if (!cannot && (euid != g_euid || egid != g_egid)) {
    long a = access_as_next_image(g_self, R_OK, euid);
    long b = access_as_next_image(g_logpath, R_OK | W_OK, euid);
    cannot = (a != 0 && a != -ENOSYS) || (b != 0 && b != -ENOSYS);
  }
  struct stat st;
  if (!path || XSYS(SYS_newfstatat, AT_FDCWD, path, &st, 0, 0) != 0) return cannot;
  int caps = XSYS(SYS_getxattr, path, "security.capability", NULL, 0, 0) > 0;
  /* The kernel runs an image securely when it changes the caller's ids or, for a user other
   * than root, raises its capabilities: root running a setuid-root program (mount, su) keeps the
   * shim. */
  int raises = ((st.st_mode & S_ISUID) && st.st_uid != euid) || ((st.st_mode & S_ISGID) && st.st_gid != egid) ||
               (caps && euid != 0);
  if (xb_sys(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) return cannot || raises;
  /* no_new_privs (the seccomp filter's, in hybrid mode): the program runs without the privileges
   * it would take, and the trace says so (the exec is made from the trampoline: S does not see it). */
  if (raises) xb_log_flag(&g_log, XB_FLAG_SETUID_UNPRIVILEGED);
  return cannot;
}

/* The shim will not be in the image `path` runs: say so when nothing else sees it (preload mode). */
XB_HIDDEN void note_secure(void) {
  if (!g_filtered) xb_log_flag(&g_log, XB_FLAG_SHIM_DROPPED);
}

/* In preload mode, a static program runs untraced: say so. */
XB_HIDDEN void note_static(const char *path) {
  if (g_filtered || t_self.busy) return;
  /* Its look at the ELF header makes raw system calls (sys.h): nothing is recorded. */
  if (xb_needs_seccomp(path)) xb_log_flag(&g_log, XB_FLAG_STATIC_UNTRACED);
}

/*
 * Runs `file` traced: records the exec and re-inserts the tracing environment. `resolved` is its
 * path (NULL if not found on PATH); `dirfd`/`flags` are execveat's.
 */
static int exec_traced(int dirfd, const char *file, const char *resolved, int flags, char *const argv[],
                       char *const envp[], struct exec_buf *b) {
  const char *shown = resolved ? resolved : file;
  int32_t *slot = shown && unmappable(shown) ? NULL /* EFAULT */
                  : shown && shown[0]        ? record_call(XB_OP_EXEC, dirfd, shown, 0, 0)
                                             : record_fd(XB_OP_EXEC, dirfd);
  int secure = shim_cannot_follow(dirfd == AT_FDCWD ? resolved : NULL);
  if (secure)
    note_secure();
  else if (resolved && dirfd == AT_FDCWD)
    note_static(resolved);
  /* ld.so listing libraries would list the shim among them (ldd): left out, as it runs nothing. */
  char **env = traced_env(envp, b, secure || xb_lists_objects(dirfd == AT_FDCWD ? resolved : NULL, argv, envp));
  int r;
  if (g_tramp)
    r = (int)set_errno(g_tramp(SYS_execveat, dirfd, (long)file, (long)argv, (long)env, flags, 0));
  else if (dirfd == AT_FDCWD && flags == 0)
    r = real_execve(file, argv, env);
  else
    r = (int)set_errno(xb_sys6(SYS_execveat, dirfd, (long)file, (long)argv, (long)env, flags, 0));
  finish(slot, 1);
  return r;
}

/*
 * The C library's answer to an image the kernel will not run (ENOEXEC: a script without #!),
 * in execvp, execlp and execvpe only: /bin/sh runs `file` with the arguments after argv[0].
 * Returns with the shell's errno if that exec fails too.
 */
static void exec_as_script(const char *file, char *const argv[], char *const envp[], struct exec_buf *b) {
  size_t argc = env_count(argv);
  b->argv[0] = (char *)"/bin/sh";
  b->argv[1] = (char *)file;
  for (size_t i = 1; i < argc; i++) b->argv[i + 1] = argv[i];
  b->argv[argc > 1 ? argc + 1 : 2] = NULL;
  exec_traced(AT_FDCWD, b->argv[0], b->argv[0], 0, b->argv, envp, b);
}

/* One execvp attempt: the exec, then the shell for a script without #!. */
static void exec_or_script(const char *file, char *const argv[], char *const envp[], struct exec_buf *b) {
  exec_traced(AT_FDCWD, file, file, 0, argv, envp, b);
  if (errno == ENOEXEC) exec_as_script(file, argv, envp, b);
}

static int do_execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) {
  if (!RESOLVE(execve)) return missing_real();
  if (!g_log.hdr) return (int)set_errno(xb_sys6(SYS_execveat, dirfd, (long)path, (long)argv, (long)envp, flags, 0));
  struct exec_buf b;
  int err = exec_buf_get(&b, envp, NULL);
  if (err) {
    errno = err;
    return -1;
  }
  int r = exec_traced(dirfd, path, path, flags, argv, envp, &b);
  exec_buf_put(&b);
  return r;
}

static int do_execve(const char *path, char *const argv[], char *const envp[]) {
  if (!RESOLVE(execve)) return missing_real();
  if (!g_log.hdr) return real_execve(path, argv, envp);
  return do_execveat(AT_FDCWD, path, argv, envp, 0);
}

/*
 * execvpe as the C library runs it, each attempt traced: a name with a '/' is run as given, any
 * other is tried in each PATH directory in turn ("/bin:/usr/bin" when unset; an empty element is
 * the cwd), going on after EACCES (reported if nothing runs), ENOENT, ESTALE, ENOTDIR, ENODEV
 * and ETIMEDOUT and stopping at any other error; an image the kernel will not run goes to
 * /bin/sh (exec_as_script). A failed attempt is recorded with its outcome (missing, or stat).
 */
static int do_execvpe(const char *file, char *const argv[], char *const envp[]) {
  if (!RESOLVE(execvpe) || !RESOLVE(execve)) return missing_real();
  if (!g_log.hdr) return real_execvpe(file, argv, envp);
  if (file && !*file) {
    errno = ENOENT;
    return -1;
  }
  size_t flen = file ? strnlen(file, NAME_MAX + 1) : 0;
  if (flen > NAME_MAX && !strchr(file, '/')) {
    errno = ENAMETOOLONG;
    return -1;
  }
  struct exec_buf b;
  int err = exec_buf_get(&b, envp, argv);
  if (err) {
    errno = err;
    return -1;
  }
  if (!file || strchr(file, '/')) {
    exec_or_script(file, argv, envp, &b);
    exec_buf_put(&b);
    return -1;
  }
  const char *path = env_value(environ, "PATH=");
  if (!path) path = "/bin:/usr/bin";
  size_t plen = strnlen(path, PATH_MAX - 1) + 1;
  int eacces = 0;
  for (const char *p = path;;) {
    const char *end = strchrnul(p, ':');
    size_t dlen = (size_t)(end - p);
    if (dlen >= plen) { /* PATH cut at PATH_MAX: glibc goes on from the ':' (an empty element) */
      if (!*end) break;
      p = end;
      continue;
    }
    memcpy(b.found, p, dlen);
    b.found[dlen] = '/';
    memcpy(b.found + dlen + (dlen ? 1 : 0), file, flen + 1);
    exec_or_script(b.found, argv, envp, &b);
    switch (errno) {
    case EACCES:
      eacces = 1;
      /* fall through */
    case ENOENT:
    case ESTALE:
    case ENOTDIR:
    case ENODEV:
    case ETIMEDOUT:
      break;
    default: /* found, but it would not run */
      exec_buf_put(&b);
      return -1;
    }
    if (!*end) break;
    p = end + 1;
  }
  if (eacces) errno = EACCES;
  exec_buf_put(&b);
  return -1;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
  return do_execve(path, argv, envp);
}
EXPORT int execv(const char *path, char *const argv[]) {
  return do_execve(path, argv, environ);
}
EXPORT int execvp(const char *file, char *const argv[]) {
  return do_execvpe(file, argv, environ);
}
EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
  return do_execvpe(file, argv, envp);
}
EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) {
  return do_execveat(dirfd, path, argv, envp, flags);
}
/* 0 for a NULL vector; a function of its own, so the compiler does not trust the header's nonnull. */
static int vec_given(char *const *v) {
  return v != NULL;
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[]) {
  /* glibc's checks, before any system call */
  if (fd < 0 || !vec_given(argv) || !vec_given(envp)) {
    errno = EINVAL;
    return -1;
  }
  return do_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
}

#define COLLECT_ARGS(first, argv)                                                                                      \
  size_t argc_ = 1;                                                                                                    \
  va_list ap_;                                                                                                         \
  va_start(ap_, first);                                                                                                \
  while (va_arg(ap_, char *)) argc_++;                                                                                 \
  va_end(ap_);                                                                                                         \
  char *argv[argc_ + 1];                                                                                               \
  argv[0] = (char *)(first);                                                                                           \
  va_start(ap_, first);                                                                                                \
  for (size_t i_ = 1; i_ <= argc_; i_++) argv[i_] = va_arg(ap_, char *);

EXPORT int execl(const char *path, const char *arg, ...) {
  COLLECT_ARGS(arg, av)
  va_end(ap_);
  return do_execve(path, av, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...) {
  COLLECT_ARGS(arg, av)
  va_end(ap_);
  return do_execvpe(file, av, environ);
}

EXPORT int execle(const char *path, const char *arg, ...) {
  COLLECT_ARGS(arg, av)
  char *const *envp = va_arg(ap_, char *const *);
  va_end(ap_);
  return do_execve(path, av, envp);
}
