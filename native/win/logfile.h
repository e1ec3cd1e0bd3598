/* Creating and attaching the record log on Windows (see ../common/log.h for the format;
 * ../unix/logfile.h is Linux's and macOS's). */
#ifndef XBENCH_WIN_LOGFILE_H
#define XBENCH_WIN_LOGFILE_H

#include "../common/log.h"
#include <wchar.h>

/* Creates (truncating) and maps a log of `capacity` bytes. 0, or a Win32 error code. */
unsigned long xb_win_log_create(struct xb_log *log, const wchar_t *path, uint64_t capacity);
/* Maps an existing log. 0, or a Win32 error code. Call before any hook is installed. */
unsigned long xb_win_log_attach(struct xb_log *log, const wchar_t *path);

#endif
