/*
 * The notification server: one thread that receives the tree's seccomp listener from the
 * command's process and answers every notification, recording the call's paths in the log.
 *
 * Rules: runs in the supervisor S on its own thread, beside S's main thread (which only waits
 * for the tree). Allocation-free per notification; paths are read with process_vm_readv, page
 * by page; every call is continued (FLAG_CONTINUE), never denied, so the traced program never
 * fails because of it; a call is recorded only once its answer succeeded.
 */
#ifndef XBENCH_NOTIFY_H
#define XBENCH_NOTIFY_H

#include "../common/log.h"

/* Starts the server thread on `sock` (it closes it once the listener arrived). 0 or an errno. */
int xb_notify_start(struct xb_log *log, int sock);

/* Waits until every answered call has been recorded: call once the tree is gone. */
void xb_notify_drain(void);
/* Ends recording: the calls of the tree are still served (a filter without its server would fail
 * them), none is recorded from now on. Returns once every record begun before is written. */
void xb_notify_close(void);

#endif
