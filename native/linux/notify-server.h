#ifndef XBENCH_NOTIFY_SERVER_H
#define XBENCH_NOTIFY_SERVER_H

#include "../common/log.h"

/*
 * What the notification server's own files share; launch.c includes only notify.h, for the
 * server's three calls (it has a g_log of its own). build/native-units.ts lists them,
 * each calling only into the files listed after it (test/integration/native-calls.test.ts fails
 * on a cycle), so new code goes where its callees allow:
 *   notify.c          the serving thread: the listener's arrival, the loop that answers each
 *                     notification and records it once the answer succeeded
 *   notify-decode.c   which paths each system call names and what its record's arg holds
 *   notify-probe.c    the outcome a call will have, looked at before the kernel runs it
 *   notify-exec.c     the outcome of an exec: raised privileges, #! interpreters, binfmt_misc
 *   notify-paths.c    the caller's memory read and its paths named from outside (its cwd,
 *                     dirfds, root, mount namespace, magic /proc links, fds and sockets)
 *   notify-record.c   the log: a call's records, and S's mapping of it kept small
 * Rules for all of them: S's serving thread only; no allocation per notification; a notified
 * call is always continued; errors mark the trace incomplete (XB_FLAG_LAUNCHER_ERROR) instead of
 * stopping the tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* The smallest page: a caller's string is read one page at a time (the next may be unmapped),
 * and the log is trimmed in pages of this size until sysconf gives the kernel's. */
#define PAGE 4096u

/* A path a call names, as read from the caller and placed where it leads (see read_path). */
struct path_read {
  char path[PATH_MAX + 1];
  char base[PATH_MAX];
  uint32_t path_len, base_len, rflags;
  int dirfd; /* the caller's: AT_FDCWD or the dirfd a relative path is relative to */
  int present;
  int32_t result; /* existence() before the call */
  int base_gone; /* the base is a folder removed since (the caller's cwd or dirfd): see place */
  mode_t seen; /* what existence() found there (its type bits), 0 if nothing */
  int seen_full; /* a folder found there holds entries (looked at for a rename's new name only) */
  int by_fd; /* named by an fd the caller holds (read_fd_path): a change made through it needs no look */
};

/* A notified call, read and probed while its thread waits; recorded once the reply let it go. */
struct call {
  pid_t pid;
  int op, op2;
  uint32_t arg;
  uint64_t tsc;
  struct path_read a, b;
};

#define CALL_REFUSE 2 /* read_call: answer ENOSYS instead of continuing the call */

/* notify-decode.c */
int read_call(const struct seccomp_notif *req, struct call *c);

/* notify-probe.c */
int32_t existence(pid_t pid, int op, uint32_t arg, struct path_read *p);
void two_names_outcome(struct path_read *a, struct path_read *b, int rename, uint64_t flags);
int open_resolved(pid_t pid, const __u64 *x, struct path_read *p, int32_t *result);

/* notify-exec.c */
void note_privileged_exec(pid_t pid, int at, const char *q, const struct stat *st);
int32_t exec_refusal(pid_t pid, int at, const char *q, const struct stat *st, int depth);

/* notify-paths.c */
extern int g_rooted, g_mounts;
void read_path(pid_t pid, int dirfd, uint64_t addr, int follow_last, struct path_read *out);
void read_fd_path(pid_t pid, int fd, struct path_read *out);
void read_sockaddr_path(pid_t pid, uint64_t addr, uint64_t len, struct path_read *out);
size_t read_proc_link(const char *link, char *buf);
void place(pid_t pid, int dirfd, struct path_read *out);
int other_mounts(pid_t pid);

/* notify-record.c */
extern struct xb_log g_log; /* xb_notify_start's copy of the supervisor's log */
extern uint64_t g_page;
void append(const struct call *c, int op, const struct path_read *p);
void trim_log(void);

#endif
