/*
 * What an exec will make of a program (see notify-server.h), looked at before the kernel runs it: the
 * filter's no_new_privs drops a setuid or file-capability program's privileges, and a script
 * fails where its #! interpreter would; the server never sees the exec's own outcome.
 */
#define _GNU_SOURCE
#include "notify-server.h"

#include <dirent.h>
#include <sys/xattr.h>

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
void note_privileged_exec(pid_t pid, int at, const char *q, const struct stat *st) {
  int caps = at == AT_FDCWD && getxattr(q, "security.capability", NULL, 0) > 0;
  if (!(st->st_mode & (S_ISUID | S_ISGID)) && !caps) return;
  long uid, gid;
  effective_ids(pid, &uid, &gid);
  if (((st->st_mode & S_ISUID) && (long)st->st_uid != uid) || ((st->st_mode & S_ISGID) && (long)st->st_gid != gid) ||
      (caps && uid != 0))
    xb_log_flag(&g_log, XB_FLAG_SETUID_UNPRIVILEGED);
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
int32_t exec_refusal(pid_t pid, int at, const char *q, const struct stat *st, int depth) {
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
