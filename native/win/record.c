/*
 * The hooks' record writer: NT names to the paths the reader shows, NTSTATUS to errno, and
 * the table of open handles that resolves relative names and directory listings.
 *
 * Rules (this runs inside every hooked call of the traced program): no heap, no locks, no
 * call into anything hooked; fixed stack buffers, longer paths are cut and flagged
 * XB_RF_TRUNCATED; each thread appends into its own chunk of the log (../log.h), whose cursor
 * lives in two TLS slots; the caller saves and restores the last-error value around us
 * (TlsGetValue clears it).
 *
 * Paths: `\??\C:\x` is recorded as `C:\x`, `\??\UNC\srv\x` as `\\srv\x`, any other `\??\` name
 * as `\\.\name`; other NT names (`\Device\...`) as they are. A name relative to a directory
 * handle gets that directory as its base: the process's current directory (the PEB's handle,
 * which Windows' own path conversion uses), or the path an earlier recorded open gave that
 * handle. UTF-16 becomes UTF-8 (an unpaired surrogate as its 3-byte form).
 */
#include "record.h"

#include <string.h>

struct xb_log g_xb_log;

static DWORD g_tls_pos = TLS_OUT_OF_INDEXES, g_tls_end = TLS_OUT_OF_INDEXES;

#define XB_PATH_BYTES 8192u
#define XB_BASE_BYTES 4096u /* base_len is 16 bits */

/* Handle -> the record that opened it: (handle << 32) | rec offset / 8 | XB_LISTED. */
#define XB_HANDLES 16384u /* 128 KiB of zero pages, touched as handles come */
#define XB_LISTED (1ull << 31)
static uint64_t g_handles[XB_HANDLES];

/* Linux O_* values the reader maps to modes (src/tracer/accesses.ts). */
#define XB_ENOENT 2
#define XB_EIO 5
#define XB_EACCES 13
#define XB_EBUSY 16
#define XB_EEXIST 17
#define XB_ENOTDIR 20
#define XB_EISDIR 21

unsigned long xb_record_init(void) {
  g_tls_pos = TlsAlloc();
  g_tls_end = TlsAlloc();
  return g_tls_pos == TLS_OUT_OF_INDEXES || g_tls_end == TLS_OUT_OF_INDEXES ? ERROR_NO_MORE_ITEMS : 0;
}

int32_t xb_errno_of(NTSTATUS status) {
  switch ((uint32_t)status) {
  case 0xC0000034u: /* OBJECT_NAME_NOT_FOUND */
  case 0xC000003Au: /* OBJECT_PATH_NOT_FOUND */
  case 0xC000000Fu: /* NO_SUCH_FILE */
  case 0xC0000033u: /* OBJECT_NAME_INVALID: no such name can exist */
  case 0xC000003Bu: /* OBJECT_PATH_SYNTAX_BAD */
  case 0xC0000039u: /* OBJECT_PATH_INVALID */
    return XB_ENOENT;
  case 0xC0000103u: /* NOT_A_DIRECTORY */
    return XB_ENOTDIR;
  case 0xC0000022u: /* ACCESS_DENIED */
  case 0xC0000056u: /* DELETE_PENDING */
    return XB_EACCES;
  case 0xC0000043u: /* SHARING_VIOLATION */
    return XB_EBUSY;
  case 0xC0000035u: /* OBJECT_NAME_COLLISION */
    return XB_EEXIST;
  case 0xC00000BAu: /* FILE_IS_A_DIRECTORY */
    return XB_EISDIR;
  default:
    return (uint32_t)status >= 0xC0000000u ? XB_EIO : 0; /* success, information, warning */
  }
}

struct u8 {
  char *p;
  uint32_t len, cap;
  int truncated;
};

static void put_bytes(struct u8 *o, const char *s, uint32_t n) {
  if (o->len + n > o->cap) {
    o->truncated = 1;
    n = o->cap - o->len;
  }
  memcpy(o->p + o->len, s, n);
  o->len += n;
}

static void put_wide(struct u8 *o, const wchar_t *w, size_t n) {
  for (size_t i = 0; i < n && !o->truncated; i++) {
    uint32_t c = w[i];
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < n && w[i + 1] >= 0xdc00 && w[i + 1] < 0xe000)
      c = 0x10000 + ((c - 0xd800) << 10) + (w[++i] - 0xdc00);
    char t[4];
    uint32_t k;
    if (c < 0x80) {
      t[0] = (char)c;
      k = 1;
    } else if (c < 0x800) {
      t[0] = (char)(0xc0 | c >> 6);
      t[1] = (char)(0x80 | (c & 0x3f));
      k = 2;
    } else if (c < 0x10000) {
      t[0] = (char)(0xe0 | c >> 12);
      t[1] = (char)(0x80 | ((c >> 6) & 0x3f));
      t[2] = (char)(0x80 | (c & 0x3f));
      k = 3;
    } else {
      t[0] = (char)(0xf0 | c >> 18);
      t[1] = (char)(0x80 | ((c >> 12) & 0x3f));
      t[2] = (char)(0x80 | ((c >> 6) & 0x3f));
      t[3] = (char)(0x80 | (c & 0x3f));
      k = 4;
    }
    if (o->len + k > o->cap) {
      o->truncated = 1;
      return;
    }
    memcpy(o->p + o->len, t, k);
    o->len += k;
  }
}

static int is_alpha(wchar_t c) {
  return (c >= L'A' && c <= L'Z') || (c >= L'a' && c <= L'z');
}

/* An NT name as the Win32 path a user would write. */
static void put_nt(struct u8 *o, const wchar_t *w, size_t n) {
  if (n < 4 || w[0] != L'\\' || w[1] != L'?' || w[2] != L'?' || w[3] != L'\\') {
    put_wide(o, w, n);
    return;
  }
  w += 4;
  n -= 4;
  if (n >= 2 && w[1] == L':' && is_alpha(w[0])) {
    char drive = (char)(w[0] & ~0x20); /* upper case: C: and c: are one drive */
    put_bytes(o, &drive, 1);
    put_wide(o, w + 1, n - 1);
  } else if (n >= 4 && (w[0] | 0x20) == L'u' && (w[1] | 0x20) == L'n' && (w[2] | 0x20) == L'c' && w[3] == L'\\') {
    put_bytes(o, "\\\\", 2);
    put_wide(o, w + 4, n - 4);
  } else {
    put_bytes(o, "\\\\.\\", 4);
    put_wide(o, w, n);
  }
}

const char *xb_process_params(void) {
  const char *peb;
  __asm__("movq %%gs:0x60, %0" : "=r"(peb)); /* TEB.ProcessEnvironmentBlock */
  return *(const char *const *)(peb + 0x20); /* PEB.ProcessParameters */
}

static struct xb_rec *rec_at(uint64_t word) {
  return (struct xb_rec *)(g_xb_log.base + (word & (XB_LISTED - 1)) * 8);
}

static uint64_t *cell_of(HANDLE h) {
  return &g_handles[((uintptr_t)h >> 2) & (XB_HANDLES - 1)];
}

/* The record that opened `h`, with its table word, or NULL. */
static struct xb_rec *opened_by(HANDLE h, uint64_t *word) {
  if (!g_xb_log.hdr || !h) return NULL;
  *word = __atomic_load_n(cell_of(h), __ATOMIC_ACQUIRE);
  if (!*word || (uint32_t)(*word >> 32) != (uint32_t)(uintptr_t)h) return NULL;
  return rec_at(*word);
}

/* base + '\' + path of a recorded open: the full name it opened. */
static void put_rec_path(struct u8 *o, const struct xb_rec *r) {
  const char *data = (const char *)(r + 1);
  put_bytes(o, data, r->base_len);
  if (r->base_len) put_bytes(o, "\\", 1);
  put_bytes(o, data + r->base_len, r->path_len);
}

void xb_handle_opened(HANDLE h, int32_t *slot) {
  if (!slot || !h || h == INVALID_HANDLE_VALUE || (uintptr_t)h >> 32) return;
  uint64_t off = (uint64_t)((char *)slot - offsetof(struct xb_rec, result) - g_xb_log.base) / 8;
  if (off >= XB_LISTED) return;
  __atomic_store_n(cell_of(h), (uint64_t)(uint32_t)(uintptr_t)h << 32 | off, __ATOMIC_RELEASE);
}

/* The PEB's current directory: its handle and DOS path (with a trailing backslash). */
static const UNICODE_STRING *current_dir(HANDLE *handle) {
  const char *params = xb_process_params();
  *handle = *(const HANDLE *)(params + 0x48); /* CurrentDirectory.Handle (x64) */
  return (const UNICODE_STRING *)(params + 0x38); /* CurrentDirectory.DosPath */
}

/* The directory `root` stands for, into `b`. 0 when unknown. */
static int put_root(struct u8 *b, HANDLE root) {
  HANDLE cwd;
  const UNICODE_STRING *dos = current_dir(&cwd);
  if (root == cwd && dos->Buffer) {
    size_t n = dos->Length / sizeof(wchar_t);
    if (n > 3 && dos->Buffer[n - 1] == L'\\') n--; /* keep `C:\` whole */
    put_wide(b, dos->Buffer, n);
    return 1;
  }
  uint64_t word;
  const struct xb_rec *r = opened_by(root, &word);
  if (!r) return 0;
  put_rec_path(b, r);
  return 1;
}

static int32_t *append(uint8_t op, uint32_t arg, const struct u8 *base, const struct u8 *path) {
  if (!g_xb_log.hdr) return NULL;
  struct xb_rec rec = {
      .op = op,
      .src = XB_SRC_DLL,
      .base_len = (uint16_t)(base ? base->len : 0),
      .pid = (uint32_t)GetCurrentProcessId(),
      .arg = arg,
      .result = XB_RESULT_PENDING,
      .path_len = path->len,
      .rflags = (path->truncated || (base && base->truncated)) ? XB_RF_TRUNCATED : 0,
      .tsc = xb_now(),
  };
  struct xb_cursor cur = {(uint64_t)(uintptr_t)TlsGetValue(g_tls_pos), (uint64_t)(uintptr_t)TlsGetValue(g_tls_end)};
  int32_t *slot = xb_log_append_local(&g_xb_log, &cur, &rec, base ? base->p : "", path->p);
  TlsSetValue(g_tls_pos, (void *)(uintptr_t)cur.pos);
  TlsSetValue(g_tls_end, (void *)(uintptr_t)cur.end);
  return slot;
}

int32_t *xb_record_name(uint8_t op, uint32_t arg, const wchar_t *name, size_t len) {
  char pbuf[XB_PATH_BYTES];
  struct u8 path = {pbuf, 0, sizeof pbuf, 0};
  put_nt(&path, name, len);
  return path.len ? append(op, arg, NULL, &path) : NULL;
}

int32_t *xb_record_at(uint8_t op, uint32_t arg, HANDLE root, const wchar_t *name, size_t len) {
  if (!root) return xb_record_name(op, arg, name, len);
  char bbuf[XB_BASE_BYTES], pbuf[XB_PATH_BYTES];
  struct u8 base = {bbuf, 0, sizeof bbuf, 0}, path = {pbuf, 0, sizeof pbuf, 0};
  if (!put_root(&base, root)) {
    xb_log_flag(&g_xb_log, XB_FLAG_UNREADABLE); /* a handle we never saw opened */
    return NULL;
  }
  put_wide(&path, name, len);
  if (!path.len) return append(op, arg, NULL, &base); /* the root itself */
  return append(op, arg, &base, &path);
}

int32_t *xb_record_oa(uint8_t op, uint32_t arg, const OBJECT_ATTRIBUTES *oa) {
  if (!oa || !oa->ObjectName || !oa->ObjectName->Buffer) return NULL;
  return xb_record_at(op, arg, oa->RootDirectory, oa->ObjectName->Buffer, oa->ObjectName->Length / sizeof(wchar_t));
}

int32_t *xb_record_handle(uint8_t op, HANDLE h) {
  uint64_t word;
  const struct xb_rec *r = opened_by(h, &word);
  if (!r) return NULL;
  const char *data = (const char *)(r + 1);
  struct u8 base = {(char *)data, r->base_len, r->base_len, 0};
  struct u8 path = {(char *)data + r->base_len, r->path_len, r->path_len, 0};
  return append(op, 0, r->base_len ? &base : NULL, &path);
}

void xb_record_set_arg(int32_t *slot, uint32_t arg) {
  if (slot) __atomic_store_n((uint32_t *)slot - 1, arg, __ATOMIC_RELEASE); /* arg precedes result */
}

static int has_wildcards(const UNICODE_STRING *s) {
  for (size_t i = 0; i < s->Length / sizeof(wchar_t); i++) {
    wchar_t c = s->Buffer[i];
    if (c == L'*' || c == L'?' || c == L'<' || c == L'>' || c == L'"') return 1;
  }
  return 0;
}

int32_t *xb_record_listing(HANDLE h, const UNICODE_STRING *mask) {
  uint64_t word;
  const struct xb_rec *r = opened_by(h, &word);
  if (r && (word & XB_LISTED)) return NULL;
  /* Once per handle: later calls continue the same listing (or the same lookup). */
  if (r && !__atomic_compare_exchange_n(cell_of(h), &word, word | XB_LISTED, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    return NULL;
  char bbuf[XB_BASE_BYTES], pbuf[XB_PATH_BYTES];
  struct u8 dir = {bbuf, 0, sizeof bbuf, 0}, name = {pbuf, 0, sizeof pbuf, 0};
  if (r) {
    put_rec_path(&dir, r);
  } else if (!put_root(&dir, h)) { /* the current directory's handle is known without a record */
    xb_log_flag(&g_xb_log, XB_FLAG_UNREADABLE); /* opened before we came, or evicted from the table */
    return NULL;
  }
  if (mask && mask->Buffer && mask->Length && !has_wildcards(mask)) {
    /* FindFirstFile on one name: a lookup of that name, not a listing. */
    put_wide(&name, mask->Buffer, mask->Length / sizeof(wchar_t));
    return append(XB_OP_STAT, 0, &dir, &name);
  }
  return append(XB_OP_READDIR, 0, NULL, &dir);
}

void xb_listing_done(int32_t *slot, NTSTATUS status) {
  if (!slot) return;
  const struct xb_rec *r = (const struct xb_rec *)((char *)slot - offsetof(struct xb_rec, result));
  int32_t e = xb_errno_of(status);
  xb_log_set_result(slot, r->op == XB_OP_READDIR && e == XB_ENOENT ? 0 : e);
}
