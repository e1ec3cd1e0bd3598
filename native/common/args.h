/*
 * The option scanner of the launchers (xbench-supervisor, xbench-mac-launch): options first,
 * then `--` and the command. Each launcher lists its options in a table and handles them in a
 * switch; the scanner owns the rest (matching, values, the `--`, the command after it).
 * Standard C only: every platform builds it.
 */
#ifndef XBENCH_ARGS_H
#define XBENCH_ARGS_H

#include <stddef.h>

/* One option: its full name ("--log") and whether the next argument is its value. */
struct xb_opt {
  const char *name;
  int has_value;
};

/* A scan of argv, from argv[1]: XB_ARGS_START(argc, argv). */
struct xb_args {
  int argc;
  char **argv;
  int i; /* the next argument; after XB_ARGS_DONE, the command's first */
  const char *value; /* the value of the option last returned, NULL for one without */
};
#define XB_ARGS_START(argc, argv)                                                                                      \
  { (argc), (argv), 1, NULL }

/* xb_next_opt's answers besides an index in the table. */
#define XB_ARGS_DONE (-1) /* `--` followed by a command: it starts at argv[i] */
#define XB_ARGS_BAD (-2) /* an unknown option, one without its value, or no command after `--` */

/*
 * The next option of the scan: its index in `table` (`n` entries), with its value in s->value;
 * XB_ARGS_DONE at `--` when a command follows; XB_ARGS_BAD otherwise (nothing consumed, so the
 * options before it have been seen in order, as a launcher that stops at the first mistake wants).
 */
int xb_next_opt(struct xb_args *s, const struct xb_opt *table, size_t n);

#endif
