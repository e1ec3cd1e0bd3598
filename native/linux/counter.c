/*
 * xbench-counter.node: the Node-API module a bench process loads under `compare --measure
 * instructions|cycles` to mark what callgrind counts (docs/counting.md).
 *
 * Callgrind runs the bench process with instrumentation off (--instr-atstart=no: start-up,
 * module loading and warm-up run at several times the speed of counted code) and collection
 * off (--collect-atstart=no). The sampler switches instrumentation on around a benchmark's
 * windows, collection on exactly around the code a time-mode batch would time, and dumps the
 * counters at the end of each window, labelled, into a file it then reads. These are
 * valgrind's client requests: a few instructions that do nothing outside valgrind, so the same
 * module loads anywhere.
 *
 * Exports: running() (under valgrind), instrument(on), collect(on) (idempotent: callgrind's
 * request toggles), zero(), dump(label).
 */
#include <node_api.h>
#include <stdbool.h>
#include <callgrind.h>

/* Whether callgrind collects now: its client request toggles, so the module keeps the state. */
static bool collecting;

/* The first argument as a boolean; false when absent or not a boolean. */
static bool flag_arg(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  bool value = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return false;
  if (napi_get_value_bool(env, argv[0], &value) != napi_ok) return false;
  return value;
}

static napi_value running(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  if (napi_get_boolean(env, RUNNING_ON_VALGRIND != 0, &result) != napi_ok) return NULL;
  return result;
}

static napi_value instrument(napi_env env, napi_callback_info info) {
  if (flag_arg(env, info)) {
    CALLGRIND_START_INSTRUMENTATION;
  } else {
    CALLGRIND_STOP_INSTRUMENTATION;
  }
  return NULL;
}

static napi_value collect(napi_env env, napi_callback_info info) {
  bool on = flag_arg(env, info);
  if (on != collecting) {
    CALLGRIND_TOGGLE_COLLECT;
    collecting = on;
  }
  return NULL;
}

static napi_value zero(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  CALLGRIND_ZERO_STATS;
  return NULL;
}

/* Labels longer than this are cut: the label only names the window in the dump's header. */
#define LABEL_MAX 256

static napi_value dump(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  char label[LABEL_MAX];
  size_t length = 0;
  label[0] = '\0';
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc >= 1 &&
      napi_get_value_string_utf8(env, argv[0], label, sizeof label, &length) != napi_ok)
    label[0] = '\0';
  CALLGRIND_DUMP_STATS_AT(label);
  return NULL;
}

static bool export_function(napi_env env, napi_value exports, const char *name, napi_callback callback) {
  napi_value fn;
  return napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, NULL, &fn) == napi_ok &&
         napi_set_named_property(env, exports, name, fn) == napi_ok;
}

NAPI_MODULE_INIT() {
  if (!export_function(env, exports, "running", running) || !export_function(env, exports, "instrument", instrument) ||
      !export_function(env, exports, "collect", collect) || !export_function(env, exports, "zero", zero) ||
      !export_function(env, exports, "dump", dump))
    return NULL;
  return exports;
}
