/* Which backend a program needs, from its ELF headers (shared by the shim and the supervisor). */
#ifndef XBENCH_PROGKIND_H
#define XBENCH_PROGKIND_H

/*
 * 1 if preload cannot see the program's file accesses: an ELF without PT_INTERP (static or
 * static-pie), a Go program (it makes raw syscalls even when dynamically linked), or an ELF for
 * another machine (it runs inside an emulator that binfmt_misc starts), following
 * one level of `#!`. 0 otherwise, or when the file cannot be read. Raw syscalls, no allocation.
 */
int xb_needs_seccomp(const char *path);

/*
 * 1 if running `path` with `argv` and `envp` only lists the libraries the dynamic loader would
 * map, as ldd and `ld.so --list` do: LD_TRACE_LOADED_OBJECTS is set (ld.so then lists and exits,
 * whatever it was asked to run), or the image has no PT_INTERP (the loader run as a program) and
 * its options before the program's name include --list. The loader lists a preloaded shim as one
 * of them, and runs nothing it could trace: the shim is left out of such an exec. Raw syscalls,
 * no allocation.
 */
int xb_lists_objects(const char *path, char *const argv[], char *const envp[]);

/* The open (O_RDONLY | O_CLOEXEC, raw: an fd or -errno) these read an image through: a raw
 * openat, which the shim replaces at its set-up with one through its trampoline, so that in hybrid
 * mode the filter does not report the shim's look at a program as the program's. */
extern long (*xb_progkind_open)(const char *path);

#endif
