/* Preload shim: interposes libc's file functions in dynamically linked programs.
 * Placeholder until the tracer lands: it loads and does nothing. */
#include "log.h"

__attribute__((constructor)) static void xbench_preload_init(void) {}
