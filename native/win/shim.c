/*
 * xbench-hook.dll: loaded into every process of a traced tree (inject.c), it records file
 * accesses into the shared log (../log.h) by hooking ntdll's system-call stubs (patch.c):
 *   NtCreateFile, NtOpenFile      XB_OP_OPEN, DesiredAccess/disposition/options as O_* flags
 *   NtQueryAttributesFile,
 *   NtQueryFullAttributesFile     XB_OP_STAT
 *   NtDeleteFile                  XB_OP_UNLINK
 *   NtSetInformationFile          on a handle we saw opened: delete (XB_OP_UNLINK), rename
 *                                 (XB_OP_RENAME_FROM + _TO), hard link (XB_OP_LINK)
 *   NtQueryDirectoryFile(Ex)      XB_OP_READDIR once per directory handle (XB_OP_STAT for a
 *                                 FindFirstFile on one name)
 *   NtCreateUserProcess           XB_OP_EXEC of the image; the child is injected too
 *   NtResumeThread                where a child created suspended gets injected: after
 *                                 CreateProcess has finished registering it, before it runs
 * At attach it also records XB_OP_PROC for its own image (arg = parent pid).
 *
 * Rules: a hook never changes the call's arguments (but for the suspended flag it adds to a
 * child's creation, and removes again by resuming), its result or the thread's last-error
 * value (saved and restored around our work). A thread-local guard makes hooks transparent
 * while a hook runs (the injection itself calls hooked functions). File hooks allocate
 * nothing (record.c); process hooks may use the Win32 API. If attach fails the DLL refuses
 * to load: the injector then marks the trace incomplete and the program runs untraced.
 */
#include "config.h"
#include "inject.h"
#include "patch.h"
#include "record.h"
#include "logfile.h"

#include <string.h>

/* Linux open flags, as the reader maps them (src/tracer/accesses.ts). */
#define XO_WRONLY 01u
#define XO_RDWR 02u
#define XO_CREAT 0100u
#define XO_EXCL 0200u
#define XO_TRUNC 01000u
#define XO_DIRECTORY 0200000u
#define XO_PATH 010000000u

#define XB_FILE_SUPERSEDE 0u
#define XB_FILE_OPEN 1u
#define XB_FILE_CREATE 2u
#define XB_FILE_OPEN_IF 3u
#define XB_FILE_OVERWRITE 4u
#define XB_FILE_OVERWRITE_IF 5u
#define XB_FILE_DIRECTORY_FILE 0x1u
#define XB_FILE_DELETE_ON_CLOSE 0x1000u
#define XB_FILE_OPENED 1u /* IO_STATUS_BLOCK.Information after an open */
#define XB_THREAD_CREATE_SUSPENDED 0x1u
#define XB_PS_ATTRIBUTE_IMAGE_NAME 0x20005u

static struct xb_win_config g_cfg;
static DWORD g_guard = TLS_OUT_OF_INDEXES;
static volatile LONG g_ready;

static int enter(DWORD *saved) {
  if (!g_ready) return 0;
  *saved = GetLastError();
  if (TlsGetValue(g_guard)) {
    SetLastError(*saved);
    return 0;
  }
  TlsSetValue(g_guard, (void *)1);
  return 1;
}

static void leave(DWORD saved) {
  TlsSetValue(g_guard, NULL);
  SetLastError(saved);
}

#define READS (GENERIC_READ | GENERIC_ALL | GENERIC_EXECUTE | MAXIMUM_ALLOWED | FILE_READ_DATA | FILE_EXECUTE)
#define WRITES (GENERIC_WRITE | GENERIC_ALL | FILE_WRITE_DATA | FILE_APPEND_DATA)

static uint32_t open_flags(ACCESS_MASK access, ULONG disposition, ULONG options) {
  int r = (access & READS) != 0, w = (access & WRITES) != 0 || (options & XB_FILE_DELETE_ON_CLOSE);
  if (options & XB_FILE_DIRECTORY_FILE) {
    /* FILE_LIST_DIRECTORY is FILE_READ_DATA: a listing shows as READDIR, not a read; creating
     * a directory (CreateDirectory) is a write, like mkdir. */
    r = 0;
    w = w || (disposition != XB_FILE_OPEN && disposition != XB_FILE_OVERWRITE);
  }
  uint32_t f = r && w ? XO_RDWR : w ? XO_WRONLY : 0;
  switch (disposition) {
  case XB_FILE_SUPERSEDE:
  case XB_FILE_OVERWRITE_IF:
    f |= XO_CREAT | XO_TRUNC;
    break;
  case XB_FILE_CREATE:
    f |= XO_CREAT | XO_EXCL;
    break;
  case XB_FILE_OPEN_IF:
    f |= XO_CREAT;
    break;
  case XB_FILE_OVERWRITE:
    f |= XO_TRUNC;
    break;
  default:
    break;
  }
  if (options & XB_FILE_DIRECTORY_FILE) f |= XO_DIRECTORY;
  /* Attributes, security or synchronize only: a lookup, like O_PATH. */
  if (!r && !w && !(f & (XO_CREAT | XO_TRUNC))) f |= XO_PATH;
  return f;
}

/* After an open: its outcome, what it turned out to do, and the handle for later lookups. */
static void opened(int32_t *slot, NTSTATUS st, const HANDLE *h, const IO_STATUS_BLOCK *iosb, ACCESS_MASK access,
                   ULONG disposition, ULONG options) {
  if (!slot) return;
  xb_log_set_result(slot, xb_errno_of(st));
  if (st < 0) return;
  /* "Open or create" that found the file created and truncated nothing. */
  if (iosb && iosb->Information == XB_FILE_OPENED && disposition != XB_FILE_OPEN)
    xb_record_set_arg(slot, open_flags(access, XB_FILE_OPEN, options));
  if (h) xb_handle_opened(*h, slot);
}

typedef NTSTATUS(NTAPI *create_file_t)(PHANDLE, ACCESS_MASK, POBJECT_ATTRIBUTES, PIO_STATUS_BLOCK, PLARGE_INTEGER,
                                       ULONG, ULONG, ULONG, ULONG, PVOID, ULONG);
static create_file_t real_create_file;
static NTSTATUS NTAPI hook_create_file(PHANDLE h, ACCESS_MASK access, POBJECT_ATTRIBUTES oa, PIO_STATUS_BLOCK iosb,
                                       PLARGE_INTEGER size, ULONG attrs, ULONG share, ULONG disp, ULONG opts, PVOID ea,
                                       ULONG ea_len) {
  DWORD saved;
  if (!enter(&saved)) return real_create_file(h, access, oa, iosb, size, attrs, share, disp, opts, ea, ea_len);
  int32_t *slot = xb_record_oa(XB_OP_OPEN, open_flags(access, disp, opts), oa);
  NTSTATUS st = real_create_file(h, access, oa, iosb, size, attrs, share, disp, opts, ea, ea_len);
  opened(slot, st, h, iosb, access, disp, opts);
  leave(saved);
  return st;
}

typedef NTSTATUS(NTAPI *open_file_t)(PHANDLE, ACCESS_MASK, POBJECT_ATTRIBUTES, PIO_STATUS_BLOCK, ULONG, ULONG);
static open_file_t real_open_file;
static NTSTATUS NTAPI hook_open_file(PHANDLE h, ACCESS_MASK access, POBJECT_ATTRIBUTES oa, PIO_STATUS_BLOCK iosb,
                                     ULONG share, ULONG opts) {
  DWORD saved;
  if (!enter(&saved)) return real_open_file(h, access, oa, iosb, share, opts);
  int32_t *slot = xb_record_oa(XB_OP_OPEN, open_flags(access, XB_FILE_OPEN, opts), oa);
  NTSTATUS st = real_open_file(h, access, oa, iosb, share, opts);
  opened(slot, st, h, iosb, access, XB_FILE_OPEN, opts);
  leave(saved);
  return st;
}

/* NtQueryAttributesFile, NtQueryFullAttributesFile: (name, info). */
typedef NTSTATUS(NTAPI *query_attrs_t)(POBJECT_ATTRIBUTES, PVOID);
static query_attrs_t real_query_attrs, real_query_full_attrs;
static NTSTATUS stat_call(query_attrs_t real, POBJECT_ATTRIBUTES oa, PVOID info) {
  DWORD saved;
  if (!enter(&saved)) return real(oa, info);
  int32_t *slot = xb_record_oa(XB_OP_STAT, 0, oa);
  NTSTATUS st = real(oa, info);
  xb_log_set_result(slot, xb_errno_of(st));
  leave(saved);
  return st;
}
static NTSTATUS NTAPI hook_query_attrs(POBJECT_ATTRIBUTES oa, PVOID info) {
  return stat_call(real_query_attrs, oa, info);
}
static NTSTATUS NTAPI hook_query_full_attrs(POBJECT_ATTRIBUTES oa, PVOID info) {
  return stat_call(real_query_full_attrs, oa, info);
}

typedef NTSTATUS(NTAPI *delete_file_t)(POBJECT_ATTRIBUTES);
static delete_file_t real_delete_file;
static NTSTATUS NTAPI hook_delete_file(POBJECT_ATTRIBUTES oa) {
  DWORD saved;
  if (!enter(&saved)) return real_delete_file(oa);
  int32_t *slot = xb_record_oa(XB_OP_UNLINK, 0, oa);
  NTSTATUS st = real_delete_file(oa);
  xb_log_set_result(slot, xb_errno_of(st));
  leave(saved);
  return st;
}

/* NtSetInformationFile classes that change names (FILE_INFORMATION_CLASS). */
#define XB_FILE_RENAME 10
#define XB_FILE_LINK 11
#define XB_FILE_DISPOSITION 13
#define XB_FILE_DISPOSITION_EX 64
#define XB_FILE_RENAME_EX 65
#define XB_FILE_LINK_EX 72

/* FILE_RENAME_INFORMATION and FILE_LINK_INFORMATION (x64 layout). */
struct rename_info {
  ULONG flags; /* ReplaceIfExists (a BOOLEAN) in the classes without Ex */
  HANDLE root;
  ULONG name_length; /* bytes */
  WCHAR name[1];
};

typedef NTSTATUS(NTAPI *set_info_t)(HANDLE, PIO_STATUS_BLOCK, PVOID, ULONG, int);
static set_info_t real_set_info;
static NTSTATUS NTAPI hook_set_info(HANDLE h, PIO_STATUS_BLOCK iosb, PVOID info, ULONG len, int cls) {
  DWORD saved;
  int names = cls == XB_FILE_RENAME || cls == XB_FILE_RENAME_EX || cls == XB_FILE_LINK || cls == XB_FILE_LINK_EX;
  int deletes =
      (cls == XB_FILE_DISPOSITION && len >= 1 && *(const BOOLEAN *)info) ||
      (cls == XB_FILE_DISPOSITION_EX && len >= 4 && (*(const ULONG *)info & 1u)); /* FILE_DISPOSITION_DELETE */
  /* Seeks, sizes, times (the common calls) go straight through. */
  if ((!names && !deletes) || !enter(&saved)) return real_set_info(h, iosb, info, len, cls);
  int32_t *from = NULL, *to = NULL;
  if (deletes) {
    from = xb_record_handle(XB_OP_UNLINK, h);
  } else if (len >= offsetof(struct rename_info, name)) {
    const struct rename_info *ri = info;
    int link = cls == XB_FILE_LINK || cls == XB_FILE_LINK_EX;
    if (!link) from = xb_record_handle(XB_OP_RENAME_FROM, h);
    size_t chars = ri->name_length / sizeof(WCHAR);
    if (offsetof(struct rename_info, name) + ri->name_length <= len)
      to = xb_record_at(link ? XB_OP_LINK : XB_OP_RENAME_TO, 0, ri->root, ri->name, chars);
  }
  NTSTATUS st = real_set_info(h, iosb, info, len, cls);
  xb_log_set_result(from, xb_errno_of(st));
  xb_log_set_result(to, xb_errno_of(st));
  leave(saved);
  return st;
}

typedef NTSTATUS(NTAPI *query_dir_t)(HANDLE, HANDLE, PVOID, PVOID, PIO_STATUS_BLOCK, PVOID, ULONG, int, BOOLEAN,
                                     PUNICODE_STRING, BOOLEAN);
static query_dir_t real_query_dir;
static NTSTATUS NTAPI hook_query_dir(HANDLE h, HANDLE ev, PVOID apc, PVOID ctx, PIO_STATUS_BLOCK iosb, PVOID info,
                                     ULONG len, int cls, BOOLEAN single, PUNICODE_STRING mask, BOOLEAN restart) {
  DWORD saved;
  if (!enter(&saved)) return real_query_dir(h, ev, apc, ctx, iosb, info, len, cls, single, mask, restart);
  int32_t *slot = xb_record_listing(h, mask);
  NTSTATUS st = real_query_dir(h, ev, apc, ctx, iosb, info, len, cls, single, mask, restart);
  xb_listing_done(slot, st);
  leave(saved);
  return st;
}

typedef NTSTATUS(NTAPI *query_dir_ex_t)(HANDLE, HANDLE, PVOID, PVOID, PIO_STATUS_BLOCK, PVOID, ULONG, int, ULONG,
                                        PUNICODE_STRING);
static query_dir_ex_t real_query_dir_ex;
static NTSTATUS NTAPI hook_query_dir_ex(HANDLE h, HANDLE ev, PVOID apc, PVOID ctx, PIO_STATUS_BLOCK iosb, PVOID info,
                                        ULONG len, int cls, ULONG flags, PUNICODE_STRING mask) {
  DWORD saved;
  if (!enter(&saved)) return real_query_dir_ex(h, ev, apc, ctx, iosb, info, len, cls, flags, mask);
  int32_t *slot = xb_record_listing(h, mask);
  NTSTATUS st = real_query_dir_ex(h, ev, apc, ctx, iosb, info, len, cls, flags, mask);
  xb_listing_done(slot, st);
  leave(saved);
  return st;
}

/* Children created suspended by CreateProcess, injected when it resumes them. */
#define XB_PENDING 32
static struct {
  HANDLE thread, process; /* the caller's thread handle; our own copy of the process handle */
} g_pending[XB_PENDING];
static SRWLOCK g_pending_lock = SRWLOCK_INIT;
static volatile LONG g_pending_count;

static void inject_child(HANDLE process) {
  if (xb_inject(process, &g_cfg)) xb_log_flag(&g_xb_log, XB_FLAG_CHILD_UNTRACED);
}

/* Remembers the child for its first resume; 0 when the table is full (inject now instead). */
static int defer(HANDLE thread, HANDLE process) {
  HANDLE own;
  if (!DuplicateHandle(GetCurrentProcess(), process, GetCurrentProcess(), &own, 0, FALSE, DUPLICATE_SAME_ACCESS))
    return 0;
  AcquireSRWLockExclusive(&g_pending_lock);
  int i = 0;
  while (i < XB_PENDING && g_pending[i].thread) i++;
  if (i < XB_PENDING) {
    g_pending[i].thread = thread;
    g_pending[i].process = own;
    InterlockedIncrement(&g_pending_count);
  }
  ReleaseSRWLockExclusive(&g_pending_lock);
  if (i < XB_PENDING) return 1;
  CloseHandle(own);
  return 0;
}

static HANDLE take_pending(HANDLE thread) {
  HANDLE process = NULL;
  AcquireSRWLockExclusive(&g_pending_lock);
  for (int i = 0; i < XB_PENDING; i++) {
    if (g_pending[i].thread != thread) continue;
    process = g_pending[i].process;
    g_pending[i].thread = g_pending[i].process = NULL;
    InterlockedDecrement(&g_pending_count);
    break;
  }
  ReleaseSRWLockExclusive(&g_pending_lock);
  return process;
}

typedef NTSTATUS(NTAPI *resume_thread_t)(HANDLE, PULONG);
static resume_thread_t real_resume_thread;
static NTSTATUS NTAPI hook_resume_thread(HANDLE thread, PULONG count) {
  DWORD saved;
  if (g_pending_count && enter(&saved)) {
    HANDLE process = take_pending(thread);
    if (process) {
      inject_child(process);
      CloseHandle(process);
    }
    leave(saved);
  }
  return real_resume_thread(thread, count);
}

/* The image a process is created from: the PS_ATTRIBUTE_IMAGE_NAME attribute (an NT path). */
struct ps_attribute {
  ULONG_PTR attribute;
  SIZE_T size;
  PVOID value;
  PSIZE_T return_length;
};
struct ps_attribute_list {
  SIZE_T total_length;
  struct ps_attribute attributes[1];
};

static int32_t *record_exec(const struct ps_attribute_list *list, const char *params) {
  if (list) {
    size_t n = (list->total_length - offsetof(struct ps_attribute_list, attributes)) / sizeof(struct ps_attribute);
    for (size_t i = 0; i < n; i++) {
      const struct ps_attribute *a = &list->attributes[i];
      if (a->attribute == XB_PS_ATTRIBUTE_IMAGE_NAME && a->value)
        return xb_record_name(XB_OP_EXEC, 0, a->value, a->size / sizeof(wchar_t));
    }
  }
  if (!params) return NULL;
  const UNICODE_STRING *image = (const UNICODE_STRING *)(params + 0x60); /* ImagePathName (x64) */
  return image->Buffer ? xb_record_name(XB_OP_EXEC, 0, image->Buffer, image->Length / sizeof(wchar_t)) : NULL;
}

typedef NTSTATUS(NTAPI *create_process_t)(PHANDLE, PHANDLE, ACCESS_MASK, ACCESS_MASK, POBJECT_ATTRIBUTES,
                                          POBJECT_ATTRIBUTES, ULONG, ULONG, PVOID, PVOID, PVOID);
static create_process_t real_create_process;
static NTSTATUS NTAPI hook_create_process(PHANDLE ph, PHANDLE th, ACCESS_MASK pa, ACCESS_MASK ta,
                                          POBJECT_ATTRIBUTES poa, POBJECT_ATTRIBUTES toa, ULONG pflags, ULONG tflags,
                                          PVOID params, PVOID info, PVOID attrs) {
  DWORD saved;
  if (!enter(&saved)) return real_create_process(ph, th, pa, ta, poa, toa, pflags, tflags, params, info, attrs);
  int32_t *slot = record_exec(attrs, params);
  /* Suspended, so that the DLL is in before the child's first instruction. */
  NTSTATUS st =
      real_create_process(ph, th, pa, ta, poa, toa, pflags, tflags | XB_THREAD_CREATE_SUSPENDED, params, info, attrs);
  xb_log_set_result(slot, xb_errno_of(st));
  if (st >= 0) {
    if (!(tflags & XB_THREAD_CREATE_SUSPENDED)) {
      inject_child(*ph); /* a direct caller: nothing else will resume it */
      real_resume_thread(*th, NULL);
    } else if (!defer(*th, *ph)) {
      inject_child(*ph);
    }
  }
  leave(saved);
  return st;
}

static unsigned long read_config(void) {
  wchar_t name[96];
  xb_config_name(name, sizeof name / sizeof *name, GetCurrentProcessId());
  HANDLE section = OpenFileMappingW(FILE_MAP_READ, FALSE, name);
  if (!section) return GetLastError();
  const struct xb_win_config *view = MapViewOfFile(section, FILE_MAP_READ, 0, 0, sizeof g_cfg);
  unsigned long err = view ? 0 : GetLastError();
  if (view) {
    memcpy(&g_cfg, view, sizeof g_cfg);
    UnmapViewOfFile(view);
  }
  CloseHandle(section);
  if (!err && g_cfg.magic != XB_CONFIG_MAGIC) err = ERROR_INVALID_DATA;
  g_cfg.log[XB_WIN_PATH_MAX - 1] = g_cfg.dll[XB_WIN_PATH_MAX - 1] = 0;
  return err;
}

struct hook_def {
  const char *name;
  void *hook;
  void **real;
  int optional; /* absent from older ntdlls */
};

static unsigned long install(void) {
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  if (!ntdll) return GetLastError();
  const struct hook_def defs[] = {
      {"NtCreateFile", (void *)hook_create_file, (void **)&real_create_file, 0},
      {"NtOpenFile", (void *)hook_open_file, (void **)&real_open_file, 0},
      {"NtQueryAttributesFile", (void *)hook_query_attrs, (void **)&real_query_attrs, 0},
      {"NtQueryFullAttributesFile", (void *)hook_query_full_attrs, (void **)&real_query_full_attrs, 0},
      {"NtDeleteFile", (void *)hook_delete_file, (void **)&real_delete_file, 0},
      {"NtSetInformationFile", (void *)hook_set_info, (void **)&real_set_info, 0},
      {"NtQueryDirectoryFile", (void *)hook_query_dir, (void **)&real_query_dir, 0},
      {"NtQueryDirectoryFileEx", (void *)hook_query_dir_ex, (void **)&real_query_dir_ex, 1},
      {"NtResumeThread", (void *)hook_resume_thread, (void **)&real_resume_thread, 0},
      {"NtCreateUserProcess", (void *)hook_create_process, (void **)&real_create_process, 0},
  };
  unsigned long first = 0;
  for (size_t i = 0; i < sizeof defs / sizeof *defs; i++) {
    void *fn = (void *)GetProcAddress(ntdll, defs[i].name);
    if (!fn) {
      if (!defs[i].optional && !first) first = ERROR_PROC_NOT_FOUND;
      continue;
    }
    unsigned long err = xb_patch_stub(fn, defs[i].hook, defs[i].real);
    if (err && !first) first = err;
  }
  unsigned long err = xb_patch_seal();
  return first ? first : err;
}

/* XB_OP_PROC: this process's image, and who started it. */
static void record_self(void) {
  PROCESS_BASIC_INFORMATION pbi;
  ULONG got = 0;
  uint32_t parent = 0;
  if (NtQueryInformationProcess(GetCurrentProcess(), ProcessBasicInformation, &pbi, sizeof pbi, &got) >= 0)
    parent = (uint32_t)pbi.InheritedFromUniqueProcessId;
  const char *params = xb_process_params();
  const UNICODE_STRING *image = (const UNICODE_STRING *)(params + 0x60);
  if (image->Buffer) xb_log_set_result(xb_record_name(XB_OP_PROC, parent, image->Buffer, image->Length / 2), 0);
}

static BOOL attach(void) {
  if (read_config() || xb_win_log_attach(&g_xb_log, g_cfg.log)) return FALSE;
  g_guard = TlsAlloc();
  if (g_guard == TLS_OUT_OF_INDEXES || xb_record_init()) {
    xb_log_flag(&g_xb_log, XB_FLAG_LAUNCHER_ERROR);
    return FALSE;
  }
  /* Hooks installed before a failure stay: each is complete on its own. */
  if (install()) xb_log_flag(&g_xb_log, XB_FLAG_LAUNCHER_ERROR);
  xb_log_flag(&g_xb_log, XB_FLAG_USED_DLL);
  record_self();
  InterlockedExchange(&g_ready, 1);
  return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved) {
  (void)reserved;
  if (reason != DLL_PROCESS_ATTACH) return TRUE;
  DisableThreadLibraryCalls(instance);
  return attach();
}
