/* Shared record format between the preload shim, the seccomp supervisor and the launcher. */
#ifndef XBENCH_LOG_H
#define XBENCH_LOG_H
#define XBENCH_LOG_VERSION 1
#endif
