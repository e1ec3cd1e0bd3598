/* Loading the hook DLL into a process created suspended (see inject.c). */
#ifndef XBENCH_WIN_INJECT_H
#define XBENCH_WIN_INJECT_H

#include <windows.h>
#include "config.h"

/* The name of the section that carries the configuration to process `pid` (config.h). */
void xb_config_name(wchar_t *out, size_t cap, DWORD pid);

/* Publishes `cfg` for the process and loads cfg->dll into it. 0, or a Win32 error code
 * (ERROR_BAD_EXE_FORMAT: a 32-bit process, which a 64-bit DLL cannot enter). */
unsigned long xb_inject(HANDLE process, const struct xb_win_config *cfg);

#endif
