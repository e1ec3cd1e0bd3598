/*
 * What the Windows launcher (launch.c) and the hook DLL (shim.c) agree on besides the record
 * format (../log.h). Rules: plain constants and one struct, no code.
 *
 * How a traced process finds the log: whoever creates it suspended (the launcher, or the DLL's
 * NtCreateUserProcess hook in a parent) first publishes a named, pagefile-backed section
 * `XB_CONFIG_PREFIX<child pid>` holding struct xb_win_config, then loads the DLL into the child
 * (inject.c). The DLL reads the section at attach. Nothing depends on the environment, which a
 * program may pass explicitly and without our variables.
 */
#ifndef XBENCH_WIN_CONFIG_H
#define XBENCH_WIN_CONFIG_H

#include <stdint.h>
#include <wchar.h>

#define XB_CONFIG_PREFIX L"Local\\xbench-trace-config-"
#define XB_CONFIG_MAGIC 0x31474643u /* "CFG1" */
#define XB_WIN_PATH_MAX 1024u /* wide characters, log and DLL paths */

/* 256 MiB: NTFS may not make the file sparse, so less than Linux's 1 GiB; still ~2M records. */
#define XB_WIN_LOG_DEFAULT_CAPACITY (256ULL << 20)

struct xb_win_config {
  uint32_t magic;
  uint32_t reserved;
  wchar_t log[XB_WIN_PATH_MAX]; /* the record log, NUL-terminated */
  wchar_t dll[XB_WIN_PATH_MAX]; /* the hook DLL, NUL-terminated: injected into grandchildren */
};

#endif
