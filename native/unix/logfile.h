/* Creating and attaching the record log on Linux and macOS (see ../common/log.h for the format;
 * ../win/logfile.h is Windows'). */
#ifndef XBENCH_UNIX_LOGFILE_H
#define XBENCH_UNIX_LOGFILE_H

#include "../common/log.h"

/* Creates (truncating) and maps a log of `capacity` bytes. 0 or -errno. */
int xb_log_create(struct xb_log *log, const char *path, uint64_t capacity);
/* Maps an existing log open as `fd` (the caller closes it). 0 or -errno. No libc state. */
int xb_log_attach_fd(struct xb_log *log, int fd);

#endif
