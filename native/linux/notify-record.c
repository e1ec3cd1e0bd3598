/*
 * The server's writes into the log (see notify-server.h): each serving thread appends a call's records
 * into a chunk of its own, and the pages S wrote long ago are dropped from its memory, since a
 * trace of millions of calls would otherwise keep the whole log resident in S.
 */
#define _GNU_SOURCE
#include "notify-server.h"

#include <sys/mman.h>

struct xb_log g_log;

static uint64_t g_trimmed = XB_LOG_HEADER_SIZE; /* log bytes below this are unmapped from S */
/* The kernel's page size, which madvise wants its range aligned to: 4 KiB on x86-64; 4, 16 or
 * 64 KiB on arm64. */
uint64_t g_page = PAGE;

/* Keeps S's resident set bounded: drop log pages far behind the tail (they stay in the file). */
void trim_log(void) {
  uint64_t tail = __atomic_load_n(&g_log.hdr->tail, __ATOMIC_RELAXED);
  const uint64_t keep = 4u << 20;
  if (tail > g_log.capacity) tail = g_log.capacity;
  if (tail < keep + XB_LOG_HEADER_SIZE) return;
  uint64_t upto = (tail - keep) & ~(g_page - 1);
  uint64_t from = __atomic_load_n(&g_trimmed, __ATOMIC_RELAXED);
  if (upto < from + (1u << 20)) return;
  if (!__atomic_compare_exchange_n(&g_trimmed, &from, upto, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
  from = (from + g_page - 1) & ~(g_page - 1);
  if (madvise(g_log.base + from, upto - from, MADV_DONTNEED) != 0) xb_log_flag(&g_log, XB_FLAG_LAUNCHER_ERROR);
}

/* Each serving thread appends into its own chunk of the log (see xb_log_append_local). */
static __thread struct xb_cursor t_cur;

void append(const struct call *c, int op, const struct path_read *p) {
  if (!p->present) return;
  if (p->path_len == 0 && !(p->rflags & XB_RF_UNREADABLE)) return; /* "" with AT_EMPTY_PATH: an fd op */
  if (p->rflags & XB_RF_UNREADABLE) xb_log_flag(&g_log, XB_FLAG_UNREADABLE);
  struct xb_rec r = {.op = (uint8_t)op,
                     .src = XB_SRC_SECCOMP,
                     .base_len = (uint16_t)p->base_len,
                     .pid = (uint32_t)c->pid,
                     .arg = op == XB_OP_OPEN ? xb_rec_open_flags(c->arg) : c->arg,
                     .result = p->result,
                     .path_len = p->path_len,
                     .rflags = p->rflags,
                     .tsc = c->tsc};
  xb_log_append_local(&g_log, &t_cur, &r, p->base, p->path);
}
