/*
 * The preload shim's listings (shim.h lists its files): a folder is looked up (stat) when it is
 * opened and listed (readdir) once its entries are read, whatever call reads them: readdir,
 * getdents64, scandir and scandirat, and the walks glibc makes through its hidden calls (nftw,
 * ftw, fts, glob).
 */
#include "shim.h"

/* An open to list, not a listing: the folder is looked up (stat) until its entries are read. */
EXPORT DIR *opendir(const char *path) {
  struct xb_call slot = record(XB_OP_OPEN, AT_FDCWD, path, O_RDONLY | O_DIRECTORY);
  if (!RESOLVE(opendir) || !RESOLVE(fdopendir)) {
    errno = ENOSYS;
    return NULL;
  }
  DIR *d;
  if (g_tramp) { /* glibc's own open, from the trampoline */
    int fd = (int)set_errno(T(SYS_openat, AT_FDCWD, path, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC, 0));
    d = fd < 0 ? NULL : real_fdopendir(fd);
    if (fd >= 0 && !d) {
      int e = errno;
      xsys(SYS_close, fd, 0, 0, 0, 0);
      errno = e;
    }
  } else {
    d = real_opendir(path);
  }
  done(slot, d == NULL, XB_OP_OPEN, AT_FDCWD, path, O_RDONLY | O_DIRECTORY);
  return d;
}

/*
 * A listing is recorded at a stream's first readdir (glibc's getdents inside it goes through a
 * hidden alias: only the filter sees it, so in hybrid mode the filter records it). The streams
 * last recorded, shared by the threads (one may list what another opened), until closedir: a
 * stream read again is not recorded again; one pushed out by newer ones is, harmlessly.
 */
#define XB_LISTED 8
static DIR *g_listed[XB_LISTED];
static unsigned g_listed_next;

static void note_listing(DIR *d) {
  if (g_filtered || !d) return;
  for (unsigned i = 0; i < XB_LISTED; i++)
    if (__atomic_load_n(&g_listed[i], __ATOMIC_RELAXED) == d) return;
  int e = errno;
  int fd = dirfd(d);
  if (fd >= 0) {
    unsigned at = __atomic_fetch_add(&g_listed_next, 1, __ATOMIC_RELAXED) % XB_LISTED;
    __atomic_store_n(&g_listed[at], d, __ATOMIC_RELAXED);
    xb_log_set_result(record_fd(XB_OP_READDIR, fd), 0);
  }
  errno = e;
}

EXPORT int closedir(DIR *d) {
  for (unsigned i = 0; i < XB_LISTED; i++) {
    DIR *seen = d;
    __atomic_compare_exchange_n(&g_listed[i], &seen, NULL, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  if (!RESOLVE(closedir)) return missing_real();
  return real_closedir(d);
}

#define DEF_READDIR(type, name)                                                                                        \
  EXPORT type *name(DIR *d) {                                                                                          \
    note_listing(d);                                                                                                   \
    if (!RESOLVE(name)) {                                                                                              \
      errno = ENOSYS;                                                                                                  \
      return NULL;                                                                                                     \
    }                                                                                                                  \
    return real_##name(d);                                                                                             \
  }                                                                                                                    \
  EXPORT int name##_r(DIR *d, type *entry, type **result) {                                                            \
    note_listing(d);                                                                                                   \
    return RESOLVE(name##_r) ? real_##name##_r(d, entry, result) : ENOSYS;                                             \
  }
DEF_READDIR(struct dirent, readdir)
DEF_READDIR(struct dirent64, readdir64)

/*
 * Walks and patterns list folders through glibc's hidden opendir and readdir, which the shim
 * cannot see (the filter does, so in hybrid mode they pass untouched): each wrapper reports the
 * folders the walk read. nftw and ftw report a folder to the caller's function (FTW_D, FTW_DP):
 * it was listed unless that function asked to skip it; the function pointer waits in a
 * thread-local for the call (kept across a walk started from inside another).
 */
static __thread int (*t_nftw_fn)(const char *, const struct stat *, int, struct FTW *);
static __thread int (*t_nftw64_fn)(const char *, const struct stat64 *, int, struct FTW *);
static __thread int (*t_ftw_fn)(const char *, const struct stat *, int);
static __thread int (*t_ftw64_fn)(const char *, const struct stat64 *, int);
static __thread int t_nftw_flags;

/* The folder `path` a walk listed (FTW_CHDIR: named from its parent, the cwd by then). */
static void walk_listed(const char *path, int flag, const struct FTW *at, int ret) {
  if (flag != FTW_D && flag != FTW_DP) return;
  if (flag == FTW_D && (t_nftw_flags & FTW_ACTIONRETVAL) && ret == FTW_SKIP_SUBTREE) return;
  int e = errno;
  const char *name = at && (t_nftw_flags & FTW_CHDIR) ? path + at->base : path;
  xb_log_set_result(record_call(XB_OP_READDIR, AT_FDCWD, name, 0, 0), 0);
  errno = e;
}

#define DEF_NFTW(name, st_type, fn_var)                                                                                \
  static int name##_seen(const char *p, const st_type *st, int flag, struct FTW *at) {                                 \
    int ret = fn_var(p, st, flag, at);                                                                                 \
    walk_listed(p, flag, at, ret);                                                                                     \
    return ret;                                                                                                        \
  }                                                                                                                    \
  EXPORT int name(const char *dir, int (*fn)(const char *, const st_type *, int, struct FTW *), int fds, int flags) {  \
    if (!RESOLVE(name)) return missing_real();                                                                         \
    if (!g_log.hdr || g_filtered) return real_##name(dir, fn, fds, flags);                                             \
    __typeof__(fn_var) outer = fn_var;                                                                                 \
    int outer_flags = t_nftw_flags;                                                                                    \
    fn_var = fn;                                                                                                       \
    t_nftw_flags = flags;                                                                                              \
    int r = real_##name(dir, name##_seen, fds, flags);                                                                 \
    fn_var = outer;                                                                                                    \
    t_nftw_flags = outer_flags;                                                                                        \
    return r;                                                                                                          \
  }
DEF_NFTW(nftw, struct stat, t_nftw_fn)
DEF_NFTW(nftw64, struct stat64, t_nftw64_fn)

#define DEF_FTW(name, st_type, fn_var)                                                                                 \
  static int name##_seen(const char *p, const st_type *st, int flag) {                                                 \
    int ret = fn_var(p, st, flag);                                                                                     \
    walk_listed(p, flag, NULL, ret);                                                                                   \
    return ret;                                                                                                        \
  }                                                                                                                    \
  EXPORT int name(const char *dir, int (*fn)(const char *, const st_type *, int), int fds) {                           \
    if (!RESOLVE(name)) return missing_real();                                                                         \
    if (!g_log.hdr || g_filtered) return real_##name(dir, fn, fds);                                                    \
    __typeof__(fn_var) outer = fn_var;                                                                                 \
    int outer_flags = t_nftw_flags;                                                                                    \
    fn_var = fn;                                                                                                       \
    t_nftw_flags = 0;                                                                                                  \
    int r = real_##name(dir, name##_seen, fds);                                                                        \
    fn_var = outer;                                                                                                    \
    t_nftw_flags = outer_flags;                                                                                        \
    return r;                                                                                                          \
  }
DEF_FTW(ftw, struct stat, t_ftw_fn)
DEF_FTW(ftw64, struct stat64, t_ftw64_fn)

/*
 * fts returns a folder a second time (FTS_DP) once it read it, with fts_accpath naming it from
 * the cwd; a folder skipped (fts_set FTS_SKIP, or another device under FTS_XDEV) is returned as
 * FTS_DP too, unread: the entry last skipped is remembered to tell them apart. fts_open opens
 * the cwd to come back to (unless FTS_NOCHDIR).
 */
static __thread const void *t_fts_skipped;

#define DEF_FTS(open, read, set, fts_type, ent_type)                                                                   \
  EXPORT fts_type *open(char *const *roots, int options, int (*cmp)(const ent_type **, const ent_type **)) {           \
    if (!RESOLVE(open)) {                                                                                              \
      errno = ENOSYS;                                                                                                  \
      return NULL;                                                                                                     \
    }                                                                                                                  \
    fts_type *f = real_##open(roots, options, cmp);                                                                    \
    if (f && !(options & FTS_NOCHDIR) && g_log.hdr && !g_filtered) {                                                   \
      int e = errno;                                                                                                   \
      xb_log_set_result(record_call(XB_OP_OPEN, AT_FDCWD, ".", O_RDONLY, 0), 0);                                       \
      errno = e;                                                                                                       \
    }                                                                                                                  \
    return f;                                                                                                          \
  }                                                                                                                    \
  EXPORT int set(fts_type *f, ent_type *e, int instr) {                                                                \
    if (!RESOLVE(set)) return missing_real();                                                                          \
    if (instr == FTS_SKIP) t_fts_skipped = e;                                                                          \
    return real_##set(f, e, instr);                                                                                    \
  }                                                                                                                    \
  EXPORT ent_type *read(fts_type *f) {                                                                                 \
    if (!RESOLVE(read)) {                                                                                              \
      errno = ENOSYS;                                                                                                  \
      return NULL;                                                                                                     \
    }                                                                                                                  \
    ent_type *e = real_##read(f);                                                                                      \
    if (e && e->fts_info == FTS_DP && g_log.hdr && !g_filtered) {                                                      \
      int skipped = e == t_fts_skipped || ((f->fts_options & FTS_XDEV) && e->fts_dev != f->fts_dev);                   \
      t_fts_skipped = NULL;                                                                                            \
      int err = errno;                                                                                                 \
      if (!skipped) xb_log_set_result(record_call(XB_OP_READDIR, AT_FDCWD, e->fts_accpath, 0, 0), 0);                  \
      errno = err;                                                                                                     \
    }                                                                                                                  \
    return e;                                                                                                          \
  }
DEF_FTS(fts_open, fts_read, fts_set, FTS, FTSENT)
DEF_FTS(fts64_open, fts64_read, fts64_set, FTS64, FTSENT64)

/*
 * glob reads folders through the caller's functions when asked (GLOB_ALTDIRFUNC): given the
 * shim's own (opendir, readdir, closedir, stat, lstat: each records as when a program calls it),
 * and the caller's fields put back after, the walk is seen and the result is the same.
 */
static void *glob_opendir(const char *p) {
  return opendir(p);
}
static void glob_closedir(void *d) {
  closedir(d);
}
static struct dirent *glob_readdir(void *d) {
  return readdir(d);
}
static struct dirent64 *glob_readdir64(void *d) {
  return readdir64(d);
}

#define DEF_GLOB(name, glob_type, dirent_read, st_type, stat_fn, lstat_fn)                                             \
  static int name##_stat(const char *p, st_type *b) {                                                                  \
    return stat_fn(p, b);                                                                                              \
  }                                                                                                                    \
  static int name##_lstat(const char *p, st_type *b) {                                                                 \
    return lstat_fn(p, b);                                                                                             \
  }                                                                                                                    \
  EXPORT int name(const char *pattern, int flags, int (*err)(const char *, int), glob_type *g) {                       \
    if (!RESOLVE(name)) return GLOB_NOSPACE;                                                                           \
    if (!g_log.hdr || g_filtered || (flags & GLOB_ALTDIRFUNC)) return real_##name(pattern, flags, err, g);             \
    glob_type kept = *g;                                                                                               \
    g->gl_opendir = glob_opendir;                                                                                      \
    g->gl_readdir = dirent_read;                                                                                       \
    g->gl_closedir = glob_closedir;                                                                                    \
    g->gl_stat = name##_stat;                                                                                          \
    g->gl_lstat = name##_lstat;                                                                                        \
    int r = real_##name(pattern, flags | GLOB_ALTDIRFUNC, err, g);                                                     \
    g->gl_flags &= ~GLOB_ALTDIRFUNC;                                                                                   \
    g->gl_opendir = kept.gl_opendir;                                                                                   \
    g->gl_readdir = kept.gl_readdir;                                                                                   \
    g->gl_closedir = kept.gl_closedir;                                                                                 \
    g->gl_stat = kept.gl_stat;                                                                                         \
    g->gl_lstat = kept.gl_lstat;                                                                                       \
    return r;                                                                                                          \
  }
DEF_GLOB(glob, glob_t, glob_readdir, struct stat, stat, lstat)
DEF_GLOB(glob64, glob64_t, glob_readdir64, struct stat64, stat64, lstat64)

EXPORT ssize_t getdents64(int fd, void *buf, size_t n) {
  int32_t *slot = record_fd(XB_OP_READDIR, fd);
  RAW_OR_REAL(ssize_t, r, getdents64, (fd, buf, n), T(SYS_getdents64, fd, buf, n, 0))
  finish(slot, r < 0);
  return r;
}

DEF_LIBCALL(int, scandir, XB_OP_OPENDIR,
            (const char *p, struct dirent ***l, int (*s)(const struct dirent *),
             int (*c)(const struct dirent **, const struct dirent **)),
            (p, l, s, c), p, AT_FDCWD, 0)
DEF_LIBCALL(int, scandir64, XB_OP_OPENDIR,
            (const char *p, struct dirent64 ***l, int (*s)(const struct dirent64 *),
             int (*c)(const struct dirent64 **, const struct dirent64 **)),
            (p, l, s, c), p, AT_FDCWD, 0)
DEF_LIBCALL(int, scandirat, XB_OP_OPENDIR,
            (int d, const char *p, struct dirent ***l, int (*s)(const struct dirent *),
             int (*c)(const struct dirent **, const struct dirent **)),
            (d, p, l, s, c), p, d, 0)
DEF_LIBCALL(int, scandirat64, XB_OP_OPENDIR,
            (int d, const char *p, struct dirent64 ***l, int (*s)(const struct dirent64 *),
             int (*c)(const struct dirent64 **, const struct dirent64 **)),
            (d, p, l, s, c), p, d, 0)
