/*
 * The least seccomp filter a tracer of opens needs: notify openat, allow the rest. The floors
 * (notify-floor.c, filter-install.c) measure against it.
 */
#ifndef XBENCH_FLOOR_FILTER_H
#define XBENCH_FLOOR_FILTER_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>

static struct sock_filter g_floor_filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
static const struct sock_fprog g_floor_prog = {.len = sizeof g_floor_filter / sizeof g_floor_filter[0],
                                               .filter = g_floor_filter};

#endif
