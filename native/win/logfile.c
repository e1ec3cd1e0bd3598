/*
 * The record log on Windows: a file mapped with CreateFileMapping/MapViewOfFile by every
 * writer. Rules: called only at start-up (launcher, DLL attach), never from a hook; every API
 * error is returned; handles are closed once the view exists (the view keeps the file), so no
 * handle is left for the traced program to inherit or trip over.
 */
#include "logfile.h"

#include <windows.h>
#include <winioctl.h>
#include <string.h>

static unsigned long map(struct xb_log *log, HANDLE file, uint64_t capacity) {
  HANDLE section = CreateFileMappingW(file, NULL, PAGE_READWRITE, (DWORD)(capacity >> 32), (DWORD)capacity, NULL);
  if (!section) return GetLastError();
  void *view = MapViewOfFile(section, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, (SIZE_T)capacity);
  unsigned long err = view ? 0 : GetLastError();
  if (!CloseHandle(section) && !err) err = GetLastError();
  if (err) return err;
  log->base = view;
  log->hdr = view;
  log->capacity = capacity;
  return 0;
}

static HANDLE open_log(const wchar_t *path, DWORD disposition) {
  return CreateFileW(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                     disposition, FILE_ATTRIBUTE_NORMAL, NULL);
}

unsigned long xb_win_log_create(struct xb_log *log, const wchar_t *path, uint64_t capacity) {
  memset(log, 0, sizeof *log);
  HANDLE file = open_log(path, CREATE_ALWAYS);
  if (file == INVALID_HANDLE_VALUE) return GetLastError();
  /* Sparse where the file system allows it: only written pages then take disk space. A file
   * system without sparse files (FAT) still works, with the whole capacity allocated. */
  DWORD ignored;
  (void)DeviceIoControl(file, FSCTL_SET_SPARSE, NULL, 0, NULL, 0, &ignored, NULL);
  unsigned long err = map(log, file, capacity);
  if (!CloseHandle(file) && !err) err = GetLastError();
  if (err) return err;
  xb_log_init_header(log->hdr, capacity);
  return 0;
}

unsigned long xb_win_log_attach(struct xb_log *log, const wchar_t *path) {
  memset(log, 0, sizeof *log);
  HANDLE file = open_log(path, OPEN_EXISTING);
  if (file == INVALID_HANDLE_VALUE) return GetLastError();
  struct xb_log_header h;
  DWORD got = 0;
  unsigned long err = 0;
  if (!ReadFile(file, &h, sizeof h, &got, NULL))
    err = GetLastError();
  else if (got != sizeof h || h.magic != XB_LOG_MAGIC || h.capacity < XB_LOG_HEADER_SIZE)
    err = ERROR_INVALID_DATA;
  if (!err) err = map(log, file, h.capacity);
  if (!CloseHandle(file) && !err) err = GetLastError();
  return err;
}
