/*
 * The fixed address of the preload shim's syscall trampoline, which the supervisor's filter lets
 * through and the shim maps: both Linux helpers include this file, so they cannot disagree on it.
 * Only Linux has the page: macOS and Windows trace without a filter.
 */
#ifndef XBENCH_TRAMPOLINE_H
#define XBENCH_TRAMPOLINE_H

/*
 * The trampoline page: the shim maps one page here (MAP_FIXED_NOREPLACE) in every process it is
 * loaded into, and the filter lets through system calls whose instruction pointer lies in it. One
 * address for every process, because the filter is inherited across exec unchanged. Far from
 * where programs, heaps, libraries and stacks land (x86-64: PIE images at 0x55..-0x56.., mmap
 * below 0x7f..; arm64 with 48-bit VAs: PIE at 0xaaaa.., mmap below 0xffff..; with 39-bit VAs,
 * whose whole space ends at 0x80_0000_0000: PIE at 0x55_55.., mmap below 0x7f_ff..). The arm64
 * address lies below 512 GiB, so it exists with 39-bit VAs too, and is 64 KiB-aligned for 64K-page
 * kernels. If something already sits there, the shim makes its calls from libc and the
 * supervisor records them too: slower, still complete.
 */
#if defined(__aarch64__)
#define XB_TRAMPOLINE_ADDR 0x1b5ea00000ull
#else
#define XB_TRAMPOLINE_ADDR 0x1b5ea0000000ull
#endif
#define XB_TRAMPOLINE_SIZE 4096u

#endif
