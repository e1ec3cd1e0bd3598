/* See policy.h. Pure functions: no allocation, no stdio, no system calls. */
#include "policy.h"

#include <string.h>

#ifdef __APPLE__
#include <fcntl.h>
_Static_assert(O_APPEND == XB_DARWIN_O_APPEND && O_CREAT == XB_DARWIN_O_CREAT && O_TRUNC == XB_DARWIN_O_TRUNC &&
                   O_EXCL == XB_DARWIN_O_EXCL && O_DIRECTORY == XB_DARWIN_O_DIRECTORY &&
                   O_NOFOLLOW == XB_DARWIN_O_NOFOLLOW && O_CLOEXEC == XB_DARWIN_O_CLOEXEC &&
                   O_SYMLINK == XB_DARWIN_O_SYMLINK && O_EVTONLY == XB_DARWIN_O_EVTONLY &&
                   AT_FDCWD == XB_DARWIN_AT_FDCWD && AT_SYMLINK_NOFOLLOW == XB_DARWIN_AT_SYMLINK_NOFOLLOW,
               "Darwin open flags changed");
#endif

uint32_t xb_darwin_open_flags(int flags) {
  static const struct {
    uint32_t from, to; /* Darwin bit, Linux bit ("linux" is a predefined macro in GNU C) */
  } map[] = {
      {XB_DARWIN_O_APPEND, XB_LINUX_O_APPEND},       {XB_DARWIN_O_CREAT, XB_LINUX_O_CREAT},
      {XB_DARWIN_O_TRUNC, XB_LINUX_O_TRUNC},         {XB_DARWIN_O_EXCL, XB_LINUX_O_EXCL},
      {XB_DARWIN_O_DIRECTORY, XB_LINUX_O_DIRECTORY}, {XB_DARWIN_O_NOFOLLOW, XB_LINUX_O_NOFOLLOW},
      {XB_DARWIN_O_CLOEXEC, XB_LINUX_O_CLOEXEC},     {XB_DARWIN_O_SYMLINK, XB_LINUX_O_PATH},
      {XB_DARWIN_O_EVTONLY, XB_LINUX_O_PATH},
  };
  uint32_t in = (uint32_t)flags, out = in & XB_DARWIN_O_ACCMODE;
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (in & map[i].from) out |= map[i].to;
  return out;
}

uint32_t xb_fopen_flags(const char *mode) {
  uint32_t f = 0; /* O_RDONLY */
  if (!mode) return f;
  if (mode[0] == 'w') f = 1 | XB_LINUX_O_CREAT | XB_LINUX_O_TRUNC;
  if (mode[0] == 'a') f = 1 | XB_LINUX_O_CREAT | XB_LINUX_O_APPEND;
  if (strchr(mode, '+')) f = (f & ~3u) | 2;
  if (mode[0] != 'r' && strchr(mode, 'x')) f |= XB_LINUX_O_EXCL;
  return f;
}

uint32_t xb_darwin_at_flags(int flags) {
  return ((uint32_t)flags & XB_DARWIN_AT_SYMLINK_NOFOLLOW) ? XB_LINUX_AT_SYMLINK_NOFOLLOW : 0;
}

/* 1 if `path` is `dir` or lies below it. */
static int under(const char *path, const char *dir) {
  size_t n = strlen(dir);
  return strncmp(path, dir, n) == 0 && (path[n] == 0 || path[n] == '/');
}

int xb_sip_protected(const char *path) {
  static const char *const protected_dirs[] = {"/System", "/bin", "/sbin", "/usr", "/private/var/db", "/Library/Apple"};
  if (!path || path[0] != '/') return 0;
  if (under(path, "/usr/local")) return 0;
  for (size_t i = 0; i < sizeof protected_dirs / sizeof protected_dirs[0]; i++)
    if (under(path, protected_dirs[i])) return 1;
  return 0;
}

/* The next blank-separated word of a `#!` line from head[*i] into out (cap bytes); its length,
 * 0 when there is none or it does not fit. */
static size_t shebang_word(const char *head, size_t n, size_t *i, char *out, size_t cap) {
  while (*i < n && (head[*i] == ' ' || head[*i] == '\t')) (*i)++;
  size_t start = *i;
  while (*i < n && head[*i] != 0 && head[*i] != ' ' && head[*i] != '\t' && head[*i] != '\n' && head[*i] != '\r') (*i)++;
  size_t len = *i - start;
  if (len == 0 || len >= cap) return 0;
  memcpy(out, head + start, len);
  out[len] = 0;
  return len;
}

static int is_shebang(const char *head, size_t n) {
  return n >= 3 && head[0] == '#' && head[1] == '!';
}

int xb_shebang_interpreter(const char *head, size_t n, char *out, size_t cap) {
  size_t i = 2;
  return is_shebang(head, n) && shebang_word(head, n, &i, out, cap) > 0;
}

int xb_env_shebang_program(const char *head, size_t n, char *out, size_t cap) {
  char interp[sizeof "/usr/bin/env"];
  size_t i = 2;
  if (!is_shebang(head, n) || !shebang_word(head, n, &i, interp, sizeof interp) || strcmp(interp, "/usr/bin/env") != 0)
    return 0;
  /* Options (-S) and assignments change what env does: leave those to env. */
  if (!shebang_word(head, n, &i, out, cap) || out[0] == '-' || strchr(out, '=')) return 0;
  /* More words: the kernel hands env "prog arg" as one name, which it would not find either. */
  while (i < n && (head[i] == ' ' || head[i] == '\t')) i++;
  return i == n || head[i] == '\n' || head[i] == '\r' || head[i] == 0;
}

size_t xb_env_script_argv(const char *name, const char *script, char *const argv[], char **out, size_t cap) {
  size_t argc = xb_env_count(argv), rest = argc ? argc - 1 : 0; /* argv[1..] */
  if (rest + 3 > cap) return 0;
  out[0] = (char *)name;
  out[1] = (char *)script;
  for (size_t i = 0; i < rest; i++) out[2 + i] = argv[1 + i];
  out[2 + rest] = NULL;
  return 2 + rest;
}

size_t xb_env_count(char *const envp[]) {
  size_t n = 0;
  if (envp)
    while (envp[n]) n++;
  return n;
}

static int has_prefix(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* 1 if the colon-separated `list` holds `item`. */
static int list_has(const char *list, const char *item) {
  size_t n = strlen(item);
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && strncmp(p, item, n) == 0) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

long xb_env_merge(char *const envp[], const char *dylib, const char *log_kv, char **out, size_t cap, char *buf,
                  size_t bufcap) {
  static const char insert_eq[] = XB_ENV_INSERT "=";
  const size_t insert_len = sizeof insert_eq - 1;
  size_t log_name = (size_t)(strchr(log_kv, '=') - log_kv) + 1; /* "XBENCH_TRACE_LOG=" */
  size_t k = 0;
  int have_insert = 0, have_log = 0;
  for (size_t i = 0; envp && envp[i]; i++) {
    char *e = envp[i];
    if (k + 3 > cap) return -1; /* room for this, two additions and the NULL */
    if (has_prefix(e, insert_eq)) {
      have_insert = 1;
      const char *list = e + insert_len;
      if (!list_has(list, dylib)) { /* ours first: the caller's libraries still load after it */
        size_t dl = strlen(dylib), ll = strlen(list);
        if (insert_len + dl + 1 + ll + 1 > bufcap) return -1;
        memcpy(buf, insert_eq, insert_len);
        memcpy(buf + insert_len, dylib, dl);
        size_t at = insert_len + dl;
        if (ll) buf[at++] = ':';
        memcpy(buf + at, list, ll + 1);
        e = buf;
      }
    } else if (strncmp(e, log_kv, log_name) == 0) {
      have_log = 1;
    }
    out[k++] = e;
  }
  if (k + 3 > cap) return -1;
  if (!have_insert) {
    size_t dl = strlen(dylib);
    if (insert_len + dl + 1 > bufcap) return -1;
    memcpy(buf, insert_eq, insert_len);
    memcpy(buf + insert_len, dylib, dl + 1);
    out[k++] = buf;
  }
  if (!have_log) out[k++] = (char *)log_kv;
  out[k] = NULL;
  return (long)k;
}
