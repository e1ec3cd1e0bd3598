/* The launchers' option scanner (args.h). */
#include "args.h"

#include <string.h>

int xb_next_opt(struct xb_args *s, const struct xb_opt *table, size_t n) {
  s->value = NULL;
  if (s->i >= s->argc) return XB_ARGS_BAD; /* the options ended without `--` */
  const char *a = s->argv[s->i];
  if (strcmp(a, "--") == 0) {
    if (s->i + 1 >= s->argc) return XB_ARGS_BAD;
    s->i++;
    return XB_ARGS_DONE;
  }
  for (size_t k = 0; k < n; k++) {
    if (strcmp(a, table[k].name) != 0) continue;
    if (table[k].has_value) {
      if (s->i + 1 >= s->argc) return XB_ARGS_BAD;
      s->value = s->argv[s->i + 1];
      s->i++;
    }
    s->i++;
    return (int)k;
  }
  return XB_ARGS_BAD;
}
