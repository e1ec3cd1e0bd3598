/*
 * xbench-launch.exe: runs a command traced on Windows.
 *
 * LAUNCHER CLI CONTRACT (src/tracer/launch.ts depends on it)
 *
 *   xbench-launch.exe --log FILE --hook DLL -- CMD [ARGS...]
 *
 *   Creates the record log FILE (../log.h; sparse where NTFS allows; read it only up to the
 *   header's `tail`), starts CMD suspended with the caller's stdin, stdout, stderr,
 *   environment and cwd, loads DLL (xbench-hook.dll) into it, resumes it, and waits for it and
 *   then for every process it started (a job object holds the tree; closing the job, as when the
 *   launcher dies, kills the tree). CMD [ARGS...] is passed on as the exact text of our own
 *   command line after `--`, so its quoting is the caller's. CMD without a directory is searched
 *   in the current directory, then on PATH (.exe appended when it has no extension), as Node's
 *   and Bun's spawn do, so a traced command is the one an untraced spawn would run; failing that,
 *   CreateProcess's own search decides. Exit status: CMD's exit code; 125: the launcher itself could not start (bad
 *   arguments, log not writable); 126/127: CMD could not be started / not found. A child the
 *   DLL could not enter runs untraced, and the log's header says so (XB_FLAG_CHILD_UNTRACED).
 *   Nothing is printed unless the launcher fails. XBENCH_TRACE_LOG_CAPACITY=BYTES sizes the log.
 *
 * Rules: plain Win32, no C runtime allocation; every API error checked; the command is run
 * whatever happens to tracing (a failed injection is recorded, never fatal).
 */
#include "config.h"
#include "inject.h"
#include "logfile.h"

#include <windows.h>
#include <string.h>

#define EXIT_LAUNCHER 125

static void put(char *line, size_t *n, size_t cap, const char *s) {
  while (*s && *n + 1 < cap) line[(*n)++] = *s++;
}

/* One line on stderr: what failed and the Win32 error code. */
static void say(const char *what, unsigned long err) {
  char line[256], digits[16];
  size_t n = 0, d = 0;
  put(line, &n, sizeof line, "xbench-launch: ");
  put(line, &n, sizeof line, what);
  put(line, &n, sizeof line, " (error ");
  do digits[d++] = (char)('0' + err % 10);
  while ((err /= 10) && d < sizeof digits);
  while (d && n + 1 < sizeof line) line[n++] = digits[--d];
  put(line, &n, sizeof line, ")\r\n");
  HANDLE out = GetStdHandle(STD_ERROR_HANDLE);
  DWORD wrote;
  if (out && out != INVALID_HANDLE_VALUE) WriteFile(out, line, (DWORD)n, &wrote, NULL);
}

static int is_space(wchar_t c) {
  return c == L' ' || c == L'\t';
}

/*
 * The next argument of a command line, by the rules of the Microsoft C runtime (2n
 * backslashes + quote: n backslashes, quoting toggles; 2n+1: n and a literal quote), into
 * `out` (cap wide chars). Returns the position after it, or NULL at the end.
 */
static const wchar_t *next_arg(const wchar_t *p, wchar_t *out, size_t cap) {
  while (is_space(*p)) p++;
  if (!*p) return NULL;
  size_t n = 0;
  int quoted = 0;
  while (*p && (quoted || !is_space(*p))) {
    size_t slashes = 0;
    while (*p == L'\\') slashes++, p++;
    if (*p == L'"') {
      for (size_t i = 0; i < slashes / 2 && n + 1 < cap; i++) out[n++] = L'\\';
      if (slashes % 2) {
        if (n + 1 < cap) out[n++] = L'"';
      } else if (quoted && p[1] == L'"') {
        if (n + 1 < cap) out[n++] = L'"';
        p++;
      } else {
        quoted = !quoted;
      }
      p++;
      continue;
    }
    for (size_t i = 0; i < slashes && n + 1 < cap; i++) out[n++] = L'\\';
    if (*p && (quoted || !is_space(*p))) {
      if (n + 1 < cap) out[n++] = *p;
      p++;
    }
  }
  out[n] = 0;
  return p;
}

/* argv[0] has simpler rules: up to the closing quote, or to white space. */
static const wchar_t *skip_program(const wchar_t *p) {
  if (*p == L'"') {
    p++;
    while (*p && *p != L'"') p++;
    return *p ? p + 1 : p;
  }
  while (*p && !is_space(*p)) p++;
  return p;
}

/*
 * Where spawn without tracing would find the program: the first name of `command`, when it has
 * no directory part, looked up in ".;%PATH%". Returns `found` or NULL (CreateProcess decides).
 */
static const wchar_t *find_program(const wchar_t *command, wchar_t *found, DWORD cap) {
  static wchar_t prog[XB_WIN_PATH_MAX], search[32768];
  const wchar_t *end = skip_program(command);
  size_t n = (size_t)(end - command);
  if (*command == L'"') command++, n = n >= 2 ? n - 2 : 0;
  if (!n || n >= XB_WIN_PATH_MAX) return NULL;
  memcpy(prog, command, n * sizeof *prog);
  prog[n] = 0;
  if (wcspbrk(prog, L"\\/:")) return NULL;
  search[0] = L'.';
  search[1] = L';';
  DWORD got = GetEnvironmentVariableW(L"PATH", search + 2, 32768 - 2);
  if (got >= 32768 - 2) search[2] = 0;
  DWORD len = SearchPathW(search, prog, L".exe", cap, found, NULL);
  return len && len < cap ? found : NULL;
}

struct args {
  wchar_t log[XB_WIN_PATH_MAX], hook[XB_WIN_PATH_MAX];
  const wchar_t *command; /* the rest of the line after `--` */
};

static int parse(const wchar_t *line, struct args *a) {
  static wchar_t arg[XB_WIN_PATH_MAX];
  const wchar_t *p = skip_program(line);
  while ((p = next_arg(p, arg, XB_WIN_PATH_MAX))) {
    if (!wcscmp(arg, L"--")) {
      while (is_space(*p)) p++;
      a->command = p;
      return *p && a->log[0] && a->hook[0];
    }
    wchar_t *dest = !wcscmp(arg, L"--log") ? a->log : !wcscmp(arg, L"--hook") ? a->hook : NULL;
    if (!dest || !(p = next_arg(p, dest, XB_WIN_PATH_MAX))) return 0;
  }
  return 0;
}

static uint64_t capacity(void) {
  wchar_t v[32];
  DWORD n = GetEnvironmentVariableW(L"XBENCH_TRACE_LOG_CAPACITY", v, 32);
  if (!n || n >= 32) return XB_WIN_LOG_DEFAULT_CAPACITY;
  uint64_t c = 0;
  for (DWORD i = 0; i < n; i++) {
    if (v[i] < L'0' || v[i] > L'9') return XB_WIN_LOG_DEFAULT_CAPACITY;
    c = c * 10 + (uint64_t)(v[i] - L'0');
  }
  return c >= 2 * XB_LOG_HEADER_SIZE ? c : XB_WIN_LOG_DEFAULT_CAPACITY;
}

/* A job that kills the tree when its last handle (ours) closes. NULL if jobs are refused. */
static HANDLE tree_job(void) {
  HANDLE job = CreateJobObjectW(NULL, NULL);
  if (!job) return NULL;
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
  memset(&limits, 0, sizeof limits);
  /* BREAKAWAY_OK: a program that starts a child with CREATE_BREAKAWAY_FROM_JOB must not get
   * ACCESS_DENIED because of us (that child, still injected, is then not waited for). */
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_BREAKAWAY_OK;
  if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
    CloseHandle(job);
    return NULL;
  }
  return job;
}

/* Waits until no process is left in the job (the command's children and theirs). */
static void wait_tree(HANDLE job) {
  for (;;) {
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION info;
    if (!QueryInformationJobObject(job, JobObjectBasicAccountingInformation, &info, sizeof info, NULL)) return;
    if (info.ActiveProcesses == 0) return;
    Sleep(5);
  }
}

/* Ctrl+C reaches the whole console group: the command decides, we wait for its verdict. A
 * handler (not SetConsoleCtrlHandler(NULL, TRUE)) because children would inherit the latter. */
static BOOL WINAPI ignore_ctrl(DWORD type) {
  (void)type;
  return TRUE;
}

/* Our standard handles, made inheritable so the command gets them as they are. */
static void pass_stdio(STARTUPINFOW *si) {
  const DWORD ids[3] = {STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE};
  HANDLE *slots[3] = {&si->hStdInput, &si->hStdOutput, &si->hStdError};
  for (int i = 0; i < 3; i++) {
    HANDLE h = GetStdHandle(ids[i]);
    *slots[i] = h;
    if (h && h != INVALID_HANDLE_VALUE) SetHandleInformation(h, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
  }
  si->dwFlags |= STARTF_USESTDHANDLES;
}

int main(void) {
  static struct args a;
  static struct xb_win_config cfg;
  static wchar_t command[32768];
  if (!parse(GetCommandLineW(), &a)) {
    say("usage: xbench-launch.exe --log FILE --hook DLL -- CMD [ARGS...]", ERROR_INVALID_PARAMETER);
    return EXIT_LAUNCHER;
  }
  struct xb_log log;
  unsigned long err = xb_win_log_create(&log, a.log, capacity());
  if (err) {
    say("cannot create the trace log", err);
    return EXIT_LAUNCHER;
  }
  cfg.magic = XB_CONFIG_MAGIC;
  memcpy(cfg.log, a.log, sizeof cfg.log);
  memcpy(cfg.dll, a.hook, sizeof cfg.dll);
  size_t len = wcslen(a.command);
  if (len >= sizeof command / sizeof *command) {
    say("command line too long", ERROR_INVALID_PARAMETER);
    return EXIT_LAUNCHER;
  }
  memcpy(command, a.command, (len + 1) * sizeof *command); /* CreateProcessW may write to it */

  SetConsoleCtrlHandler(ignore_ctrl, TRUE);
  HANDLE job = tree_job();
  STARTUPINFOW si;
  memset(&si, 0, sizeof si);
  si.cb = sizeof si;
  pass_stdio(&si);
  PROCESS_INFORMATION pi;
  static wchar_t program[XB_WIN_PATH_MAX];
  const wchar_t *app = find_program(command, program, XB_WIN_PATH_MAX);
  if (!CreateProcessW(app, command, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si, &pi)) {
    err = GetLastError();
    say("cannot start the command", err);
    return err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ? 127 : 126;
  }
  if (job && !AssignProcessToJobObject(job, pi.hProcess)) {
    CloseHandle(job); /* nested jobs refused (old Windows): wait for the command alone */
    job = NULL;
  }
  if (xb_inject(pi.hProcess, &cfg)) xb_log_flag(&log, XB_FLAG_CHILD_UNTRACED);
  if (ResumeThread(pi.hThread) == (DWORD)-1) {
    err = GetLastError();
    say("cannot resume the command", err);
    TerminateProcess(pi.hProcess, EXIT_LAUNCHER);
    return EXIT_LAUNCHER;
  }
  DWORD code = EXIT_LAUNCHER;
  if (WaitForSingleObject(pi.hProcess, INFINITE) != WAIT_OBJECT_0 || !GetExitCodeProcess(pi.hProcess, &code)) {
    xb_log_flag(&log, XB_FLAG_LAUNCHER_ERROR);
    code = EXIT_LAUNCHER;
  }
  if (job) wait_tree(job);
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
  if (!UnmapViewOfFile(log.base)) say("cannot write the trace log", GetLastError());
  return (int)code;
}
