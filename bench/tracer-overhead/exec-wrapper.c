/*
 * The floor of any launcher-based tracer on this machine: a static program that starts
 * argv[...] with vfork+exec and exits as it did, doing nothing else. With
 * `--preload SO`, the command gets LD_PRELOAD=SO (an empty object: the floor of a preload
 * tracer, which every dynamic program of the tree must load).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int i = 1;
  if (argc > 2 && strcmp(argv[1], "--preload") == 0) {
    if (setenv("LD_PRELOAD", argv[2], 1) != 0) return 125;
    i = 3;
  }
  if (i >= argc) return 125;
  pid_t pid = vfork();
  if (pid < 0) return 125;
  if (pid == 0) {
    execv(argv[i], argv + i);
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) != pid) return 125;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
