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

#endif
