/* See progkind.h. */
#define _GNU_SOURCE
#include "progkind.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys.h"

#define MAX_PHDRS 64
/* The machine the helpers are built for: an ELF for another one runs under an emulator
 * (binfmt_misc, qemu-user), which the shim cannot enter. */
#if defined(__aarch64__)
#define XB_ELF_MACHINE EM_AARCH64
#else
#define XB_ELF_MACHINE EM_X86_64
#endif
#define NOTE_GO_BUILDID 4

static long raw_open(const char *path) {
  return xb_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0);
}
long (*xb_progkind_open)(const char *path) = raw_open;

/* Raw system calls (sys.h), not syscall(3), which in the preload shim is the shim's own export:
 * this file is then called from its exec wrappers and must not call back into them. */
static long rd(int fd, void *buf, size_t len, long off) {
  return xb_sys(SYS_pread64, fd, (long)buf, (long)len, off, 0);
}

/* Small stack buffers throughout: this runs inside exec wrappers, which may be called from a
 * signal handler on a small sigaltstack. */

/* 1 if the PT_NOTE segment at ph holds Go's build-id note (owner "Go", first in its segment). */
static int go_note(int fd, const Elf64_Phdr *ph) {
  char buf[256];
  size_t len = ph->p_filesz < sizeof buf ? (size_t)ph->p_filesz : sizeof buf;
  long n = rd(fd, buf, len, (long)ph->p_offset);
  if (n <= 0) return 0;
  for (size_t off = 0; off + sizeof(Elf64_Nhdr) <= (size_t)n;) {
    Elf64_Nhdr nh;
    memcpy(&nh, buf + off, sizeof nh);
    size_t name_at = off + sizeof nh;
    /* Go writes its owner as "Go\0\0" (namesz 4). */
    if ((nh.n_namesz == 3 || nh.n_namesz == 4) && name_at + 3 <= (size_t)n && memcmp(buf + name_at, "Go", 3) == 0 &&
        nh.n_type == NOTE_GO_BUILDID)
      return 1;
    off = name_at + ((nh.n_namesz + 3u) & ~3u) + ((nh.n_descsz + 3u) & ~3u);
  }
  return 0;
}

static int check(const char *path, int depth) {
  int fd = (int)xb_progkind_open(path);
  if (fd < 0) return 0;
  int result = 0;
  Elf64_Ehdr eh;
  long n = rd(fd, &eh, sizeof eh, 0);
  if (n >= 4 && depth == 0 && ((char *)&eh)[0] == '#' && ((char *)&eh)[1] == '!') {
    char line[sizeof eh + 1];
    memcpy(line, &eh, (size_t)n);
    line[n] = 0;
    char *s = line + 2;
    while (*s == ' ' || *s == '\t') s++;
    char *e = s;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n') e++;
    *e = 0;
    xb_sys(SYS_close, fd, 0, 0, 0, 0);
    return *s == '/' ? check(s, 1) : 0;
  }
  if (n == (long)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum > 0 &&
      eh.e_phnum <= MAX_PHDRS) {
    int interp = 0, go = 0, ok = 1;
    for (unsigned i = 0; i < eh.e_phnum && ok; i++) { /* one header at a time */
      Elf64_Phdr ph;
      ok = rd(fd, &ph, sizeof ph, (long)(eh.e_phoff + i * sizeof ph)) == (long)sizeof ph;
      if (ok && ph.p_type == PT_INTERP) interp = 1;
      if (ok && ph.p_type == PT_NOTE && !go) go = go_note(fd, &ph);
    }
    if (ok) result = !interp || go || eh.e_machine != XB_ELF_MACHINE;
  }
  xb_sys(SYS_close, fd, 0, 0, 0, 0);
  return result;
}

int xb_needs_seccomp(const char *path) {
  return check(path, 0);
}

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ld.so's options that take a value (elf/rtld.c), which the scan for --list steps over. */
static int takes_value(const char *opt) {
  static const char *const with[] = {"--library-path",         "--inhibit-rpath",    "--audit", "--preload", "--argv0",
                                     "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"};
  for (size_t i = 0; i < sizeof with / sizeof with[0]; i++)
    if (strcmp(opt, with[i]) == 0) return 1;
  return 0;
}

int xb_lists_objects(const char *path, char *const argv[], char *const envp[]) {
  for (size_t i = 0; envp && envp[i]; i++)
    if (starts(envp[i], "LD_TRACE_LOADED_OBJECTS=")) return 1;
  int list = 0;
  for (size_t i = 1; argv && argv[0] && argv[i] && starts(argv[i], "--"); i++) {
    if (strcmp(argv[i], "--list") == 0) list = 1;
    if (takes_value(argv[i]) && !argv[++i]) break;
  }
  return list && path && check(path, 1);
}
