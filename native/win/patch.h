/* Redirecting ntdll system-call stubs to hooks (see patch.c). */
#ifndef XBENCH_WIN_PATCH_H
#define XBENCH_WIN_PATCH_H

/* Makes calls to the stub `fn` go to `hook`; *orig then calls the original. 0 or a Win32 error
 * (ERROR_NOT_SUPPORTED when `fn` does not look like a system-call stub: left untouched). */
unsigned long xb_patch_stub(void *fn, void *hook, void **orig);

/* Makes the relays and trampolines read-only (executable) once every stub is patched. */
unsigned long xb_patch_seal(void);

#endif
