/*
 * Inline hooks on ntdll's system-call stubs. Every x64 stub (Windows 8 to 11, and wine's PE
 * ntdll) starts with `mov r10, rcx; mov eax, <id>` (4c 8b d1 b8 xx xx xx xx), which we check
 * before touching anything. The first 5 bytes become `jmp rel32` to a relay in a page we take
 * within +-2 GiB of ntdll; the relay jumps to the hook (`jmp [rip]` + 8-byte address). The
 * original is a trampoline: the same 8 bytes (position independent), then a jump back to
 * stub+8, so the rest of the stub (the int 2e / syscall choice, the syscall, ret) runs in
 * place, as written.
 *
 * Rules: called only from the DLL's attach (one thread: the process is still starting); the
 * 8-byte head is replaced with one aligned atomic store, so a thread racing through the stub
 * sees either the old head or the new one; page protections are restored; no heap.
 */
#include "patch.h"

#include <windows.h>
#include <stdint.h>
#include <string.h>

#define XB_POOL_SIZE 0x10000u
#define XB_SLOT 64u /* relay (14 bytes) + trampoline (8 + 14 bytes), rounded */
#define XB_REACH 0x70000000ll /* stay well inside rel32's +-2 GiB */

static uint8_t *g_pool;
static size_t g_used;

/* A region within rel32 reach of `target`: walk down, then up, 64 KiB at a time. */
static uint8_t *alloc_near(uintptr_t target) {
  SYSTEM_INFO si;
  GetSystemInfo(&si);
  uintptr_t gran = si.dwAllocationGranularity ? si.dwAllocationGranularity : 0x10000u;
  uintptr_t start = target & ~(gran - 1);
  for (intptr_t dir = -1; dir <= 1; dir += 2) {
    for (uintptr_t step = gran; step < (uintptr_t)XB_REACH; step += gran) {
      uintptr_t at = dir < 0 ? start - step : start + step;
      if (dir < 0 && step > start) break;
      if (at < (uintptr_t)si.lpMinimumApplicationAddress || at > (uintptr_t)si.lpMaximumApplicationAddress) continue;
      void *p = VirtualAlloc((void *)at, XB_POOL_SIZE, MEM_RESERVE | MEM_COMMIT, PAGE_EXECUTE_READWRITE);
      if (p) return p;
    }
  }
  return NULL;
}

static void put_abs_jmp(uint8_t *at, const void *target) {
  static const uint8_t jmp[6] = {0xff, 0x25, 0, 0, 0, 0}; /* jmp [rip+0] */
  memcpy(at, jmp, sizeof jmp);
  uint64_t addr = (uint64_t)(uintptr_t)target;
  memcpy(at + 6, &addr, sizeof addr);
}

unsigned long xb_patch_stub(void *fn, void *hook, void **orig) {
  static const uint8_t head[4] = {0x4c, 0x8b, 0xd1, 0xb8};
  uint8_t *stub = fn;
  if (!stub || memcmp(stub, head, sizeof head) != 0 || ((uintptr_t)stub & 7u)) return ERROR_NOT_SUPPORTED;
  if (!g_pool && !(g_pool = alloc_near((uintptr_t)stub))) return ERROR_NOT_ENOUGH_MEMORY;
  if (g_used + XB_SLOT > XB_POOL_SIZE) return ERROR_NOT_ENOUGH_MEMORY;
  uint8_t *relay = g_pool + g_used;
  int64_t rel = (int64_t)(relay - (stub + 5));
  if (rel > INT32_MAX || rel < INT32_MIN) return ERROR_NOT_SUPPORTED; /* pool out of reach */
  uint8_t *tramp = relay + 16;
  put_abs_jmp(relay, hook);
  memcpy(tramp, stub, 8);
  put_abs_jmp(tramp + 8, stub + 8);
  g_used += XB_SLOT;
  FlushInstructionCache(GetCurrentProcess(), relay, XB_SLOT);

  uint64_t word;
  memcpy(&word, stub, 8);
  uint8_t *bytes = (uint8_t *)&word;
  int32_t rel32 = (int32_t)rel;
  bytes[0] = 0xe9;
  memcpy(bytes + 1, &rel32, 4); /* bytes 5..7 keep the id's upper bytes: never executed */
  DWORD old;
  if (!VirtualProtect(stub, 8, PAGE_EXECUTE_READWRITE, &old)) return GetLastError();
  *orig = tramp;
  __atomic_store_n((uint64_t *)stub, word, __ATOMIC_SEQ_CST);
  DWORD ignored;
  unsigned long err = VirtualProtect(stub, 8, old, &ignored) ? 0 : GetLastError();
  FlushInstructionCache(GetCurrentProcess(), stub, 8);
  return err;
}

unsigned long xb_patch_seal(void) {
  DWORD old;
  if (!g_pool) return 0;
  return VirtualProtect(g_pool, XB_POOL_SIZE, PAGE_EXECUTE_READ, &old) ? 0 : GetLastError();
}
