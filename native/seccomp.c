/* Seccomp supervisor and launcher (static musl).
 * Placeholder until the tracer lands: `xbench-supervisor --version` and nothing else. */
#include <stdio.h>
#include <string.h>
#include "log.h"

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("xbench-supervisor log v%d\n", XBENCH_LOG_VERSION);
    return 0;
  }
  fprintf(stderr, "xbench-supervisor: tracing is not built yet\n");
  return 2;
}
