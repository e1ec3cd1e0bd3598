/*
 * The traced tree's keepers, their signals and their CPU: the launcher L and the supervisor S of
 * xbench-supervisor.
 *
 * Rules: everything here makes raw system calls only (sys.h): no errno, no thread-local storage,
 * no libc state, no allocation. So it is async-signal-safe, and L may run it while sharing S's
 * memory after the split.
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
#include <stdint.h>
#include <sys/types.h>

#include "sys.h"

/* Who the calling process is in the tree, and where its forwarded signals go. */
struct xb_keeper {
  pid_t self;
  volatile pid_t child; /* S (for L) or the command (for S); 0 until known */
  volatile sig_atomic_t parent_died; /* S: L is gone, keep killing what reparents here */
};

/* L and S, each as seen by itself (they share memory: each reads its own). */
extern struct xb_keeper xb_launcher, xb_sup;

/* SIGKILLs every child of `self` (a subreaper: the tree's orphans are its children). Returns
 * how many were signalled. Raw getdents64 on /proc, stack buffers. */
int xb_kill_children(pid_t self);

/*
 * Waits for every child of `k->self`; returns the wait status of `main_pid` (-1 if it was never
 * seen). With kill_orphans, children still left once main_pid is gone (orphans of an S that
 * died) are killed; a /proc scan happens only then, or after k->parent_died.
 */
int xb_reap_all(struct xb_keeper *k, pid_t main_pid, int kill_orphans);

/*
 * Reaps the children of `k->self` until `main_pid` exits; returns its wait status (-1 if it was
 * never seen). Then reaps what has exited since without waiting: 1 if children are left (the
 * tree's orphans, reparented to this subreaper), else 0, in *left.
 */
int xb_reap_main(struct xb_keeper *k, pid_t main_pid, int *left);

/*
 * --detach-ok: S, once the command exited with descendants still running, hands L the command's
 * status and a signal; L exits with it at once (its handler, installed before the split), while S
 * stays to serve the tree. XB_DETACH_SIGNAL is a real-time signal no C library reserves.
 */
#define XB_DETACH_SIGNAL 40
extern volatile int xb_detach_status;
int xb_install_detach(void);

/* Exits the way `status` says: same code, or the same signal re-raised with core dumps off;
 * 125 when there is no status. */
__attribute__((noreturn)) void xb_exit_like(int status);

/*
 * Blocks every signal, keeping the caller's mask for xb_signals_restore(). Called before the
 * forwarding handlers exist: a signal sent from then on waits, pending, until there is a child
 * to relay it to (a handler that ran with no child yet would drop it). 0 or -errno.
 */
long xb_signals_hold(void);

/*
 * Splits the calling process into L and S: returns 0 in S (the new child, which continues on
 * the caller's stack), a negative errno on failure; in L it never returns but runs
 * `launcher(pid of S)` on `stack_top`. `launcher` must use only this file's functions.
 * Call with signals held (xb_signals_hold): a handler run between the clone and L's switch of
 * stacks would write on S's stack. Both sides return with all blocked and call
 * xb_signals_restore() once their child is known.
 */
long xb_split(void (*launcher)(long), void *stack_top);

/* Restores the signal mask xb_signals_hold found (the caller's). */
void xb_signals_restore(void);
/* The mask xb_signals_hold found, for a child to restore before exec (8 bytes: the kernel's sigset). */
extern uint64_t xb_orig_sigmask;

/*
 * Relays TERM, HUP, INT, QUIT, USR1, USR2 sent with kill() to the keeper's child (L -> S -> the
 * command); terminal-generated ones are not relayed (the command gets its own copy). Installed
 * in L before the split, with signals held, so S inherits it. 0 or -errno.
 */
int xb_install_forwarding(void); /* skips signals ignored now (they stay ignored) */

/* S's parent-death signal: L is gone, so kill the tree, and keep killing what reparents here. */
#define XB_PARENT_DEATH_SIGNAL SIGPWR
int xb_install_parent_death(void);

/*
 * L and S keep to the CPU L started on (every start and exit in L -> S -> CMD is then no
 * cross-CPU wake-up); the command and the notification server get the caller's affinity back.
 */
void xb_keep_to_this_cpu(void);
void xb_restore_cpus(void);

#endif
