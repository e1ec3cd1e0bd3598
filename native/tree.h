/*
 * The traced tree's keepers: the launcher L and the supervisor S of xbench-supervisor.
 *
 * L is the pid the caller sees; S is its child and the tree's subreaper. If L dies, S gets a
 * parent-death signal and kills the tree; if S dies, its orphans reparent to L, which kills
 * them. L shares S's memory (clone with CLONE_VM, no copied page tables or copy-on-write
 * faults: a fork cost ~1 ms of launch on slow VMs), so everything L runs after the split is in
 * this file and makes raw system calls only: no errno, no thread-local storage, no libc state
 * that S is using. The same code is async-signal-safe, so S's handlers use it too.
 */
#ifndef XBENCH_TREE_H
#define XBENCH_TREE_H

#include <signal.h>
#include <sys/types.h>

/* A system call that returns -errno instead of setting errno. */
long xb_sys(long nr, long a, long b, long c, long d, long e);

/* Who the calling process is in the tree, and where its forwarded signals go. */
struct xb_keeper {
  pid_t self;
  volatile pid_t child;             /* S (for L) or the command (for S); 0 until known */
  volatile sig_atomic_t parent_died; /* S: L is gone, keep killing what reparents here */
};

/* SIGKILLs every child of `self` (a subreaper: the tree's orphans are its children). Returns
 * how many were signalled. Raw getdents64 on /proc, stack buffers. */
int xb_kill_children(pid_t self);

/*
 * Waits for every child of `k->self`; returns the wait status of `main_pid` (-1 if it was never
 * seen). With kill_orphans, children still left once main_pid is gone (orphans of an S that
 * died) are killed; a /proc scan happens only then, or after k->parent_died.
 */
int xb_reap_all(struct xb_keeper *k, pid_t main_pid, int kill_orphans);

/* Exits the way `status` says: same code, or the same signal re-raised with core dumps off;
 * 125 when there is no status. */
__attribute__((noreturn)) void xb_exit_like(int status);

/*
 * Splits the calling process into L and S: returns 0 in S (the new child, which continues on
 * the caller's stack), a negative errno on failure; in L it never returns but runs
 * `launcher(pid of S)` on `stack_top`. `launcher` must use only this file's functions.
 */
long xb_split(void (*launcher)(long), void *stack_top);

#endif
