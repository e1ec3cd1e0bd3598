/*
 * The record log's capacity, for the POSIX launchers (linux/launch.c, mac/launch.c): what they
 * agree on, written once. Not for the preload shim or the dylib (they map an existing log).
 */
#ifndef XBENCH_CAPACITY_H
#define XBENCH_CAPACITY_H

#include <stdint.h>

/*
 * XBENCH_TRACE_LOG_CAPACITY or the default, but no more than the file system holding `logpath`
 * has free now. The log is sparse; a page first written past a full tmpfs is a SIGBUS in
 * whichever traced process wrote it, whereas a record past the capacity is only counted as
 * dropped (the trace says it is incomplete). A variable that is not a number of bytes, or a file
 * system that cannot be asked, stops the launch: one line naming `prog`, then _exit(`status`).
 */
uint64_t xb_log_capacity(const char *prog, const char *logpath, int status);

#endif
