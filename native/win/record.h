/* Turning NT call arguments into log records (see record.c). */
#ifndef XBENCH_WIN_RECORD_H
#define XBENCH_WIN_RECORD_H

#include <windows.h>
#include <winternl.h>
#include "../common/log.h"

/* The log every hook writes to; set up by the DLL's attach. */
extern struct xb_log g_xb_log;

/* Allocates the thread-local slots of the writer. 0 or a Win32 error. Once, at attach. */
unsigned long xb_record_init(void);

/* Appends a record for `oa`'s name (its root directory resolved to a base) with `op` and `arg`;
 * returns the result slot (xb_log_set_result), or NULL when nothing was recorded. */
int32_t *xb_record_oa(uint8_t op, uint32_t arg, const OBJECT_ATTRIBUTES *oa);
/* The same for a name of `len` wide characters relative to the directory handle `root` (or NULL). */
int32_t *xb_record_at(uint8_t op, uint32_t arg, HANDLE root, const wchar_t *name, size_t len);
/* Appends a record for the path an earlier recorded open gave `h`; NULL if it was not seen. */
int32_t *xb_record_handle(uint8_t op, HANDLE h);
/* Appends a record for an NT or DOS path given as `len` wide characters. */
int32_t *xb_record_name(uint8_t op, uint32_t arg, const wchar_t *name, size_t len);
/* The record whose result slot is `slot`: its arg can be refined once the call returned. */
void xb_record_set_arg(int32_t *slot, uint32_t arg);

/* Remembers that `handle` was opened by the record of `slot` (for relative names and listings). */
void xb_handle_opened(HANDLE handle, int32_t *slot);
/* Records a listing of the directory open as `handle` (once per handle), or, for a `mask`
 * without wildcards, a lookup of that one name in it. Returns the result slot or NULL. */
int32_t *xb_record_listing(HANDLE handle, const UNICODE_STRING *mask);

/* Sets the outcome of xb_record_listing's record: a listing that matched nothing still listed. */
void xb_listing_done(int32_t *slot, NTSTATUS status);

/* This process's RTL_USER_PROCESS_PARAMETERS (read at x64 offsets: mingw's struct is partial). */
const char *xb_process_params(void);

/* An NTSTATUS as the errno the reader understands (0 for success and warnings). */
int32_t xb_errno_of(NTSTATUS status);

#endif
