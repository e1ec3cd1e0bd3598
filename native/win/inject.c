/*
 * Injection: the caller has created the process with its first thread suspended. We publish
 * the configuration as a section named after the child's pid (config.h), copy the DLL's path
 * into the child and run LoadLibraryW there on a remote thread; kernel32 sits at the same
 * address in every process of a session, so our own LoadLibraryW address is valid there. The
 * remote thread initializes the process (loader, static imports), then loads the DLL, whose
 * attach maps the log and installs the hooks before the program's first instruction runs.
 *
 * Rules: called from the launcher and from the DLL's process-creation hooks (never from a
 * file hook); no heap allocation (fixed buffers); every API error is returned and the caller
 * decides (the traced command runs either way); bounded waits only.
 */
#include "inject.h"

#include <string.h>

#define XB_INJECT_WAIT_MS 30000u

void xb_config_name(wchar_t *out, size_t cap, DWORD pid) {
  size_t n = wcslen(XB_CONFIG_PREFIX);
  memcpy(out, XB_CONFIG_PREFIX, n * sizeof *out);
  wchar_t digits[16];
  size_t d = 0;
  do digits[d++] = (wchar_t)(L'0' + pid % 10);
  while ((pid /= 10) && d < 16);
  while (d && n + 1 < cap) out[n++] = digits[--d];
  out[n] = 0;
}

static unsigned long publish(DWORD pid, const struct xb_win_config *cfg, HANDLE *section) {
  wchar_t name[96];
  xb_config_name(name, sizeof name / sizeof *name, pid);
  *section = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, sizeof *cfg, name);
  if (!*section) return GetLastError();
  void *view = MapViewOfFile(*section, FILE_MAP_WRITE, 0, 0, sizeof *cfg);
  if (!view) return GetLastError();
  memcpy(view, cfg, sizeof *cfg);
  if (!UnmapViewOfFile(view)) return GetLastError();
  return 0;
}

/* Runs LoadLibraryW(cfg->dll) in the process and waits for it. */
static unsigned long load_remote(HANDLE process, const struct xb_win_config *cfg) {
  static LPTHREAD_START_ROUTINE load_library;
  if (!load_library) {
    HMODULE k32 = GetModuleHandleW(L"kernel32.dll");
    if (!k32) return GetLastError();
    load_library = (LPTHREAD_START_ROUTINE)(void *)GetProcAddress(k32, "LoadLibraryW");
    if (!load_library) return GetLastError();
  }
  SIZE_T bytes = (wcslen(cfg->dll) + 1) * sizeof(wchar_t);
  void *remote = VirtualAllocEx(process, NULL, bytes, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
  if (!remote) return GetLastError();
  unsigned long err = 0;
  SIZE_T written = 0;
  if (!WriteProcessMemory(process, remote, cfg->dll, bytes, &written) || written != bytes) err = GetLastError();
  HANDLE thread = err ? NULL : CreateRemoteThread(process, NULL, 0, load_library, remote, 0, NULL);
  if (!err && !thread) err = GetLastError();
  if (thread) {
    DWORD waited = WaitForSingleObject(thread, XB_INJECT_WAIT_MS);
    DWORD loaded = 0;
    if (waited != WAIT_OBJECT_0)
      err = waited == WAIT_TIMEOUT ? ERROR_TIMEOUT : GetLastError();
    else if (!GetExitCodeThread(thread, &loaded))
      err = GetLastError();
    else if (!loaded)
      err = ERROR_DLL_INIT_FAILED; /* LoadLibraryW returned NULL */
    if (!CloseHandle(thread) && !err) err = GetLastError();
    if (waited != WAIT_OBJECT_0) return err; /* still running: its argument must stay */
  }
  if (!VirtualFreeEx(process, remote, 0, MEM_RELEASE) && !err) err = GetLastError();
  return err;
}

unsigned long xb_inject(HANDLE process, const struct xb_win_config *cfg) {
  BOOL wow64 = FALSE;
  if (!IsWow64Process(process, &wow64)) return GetLastError();
  if (wow64) return ERROR_BAD_EXE_FORMAT;
  DWORD pid = GetProcessId(process);
  if (!pid) return GetLastError();
  HANDLE section = NULL;
  unsigned long err = publish(pid, cfg, &section);
  if (!err) err = load_remote(process, cfg);
  /* The DLL has read the section during its attach: it may go now. */
  if (section && !CloseHandle(section) && !err) err = GetLastError();
  return err;
}
