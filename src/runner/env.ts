/**
 * The environment of the processes that run the project's code under test (bench processes
 * and `--build`): xbench's own, less the secrets it may hold. On a pull request that code is
 * the pull request's; the token xbench posts the comment with is xbench's to use, not the
 * code's to read (docs/reliability.md, "What is trusted input").
 */

/** Names read as secrets whatever their prefix: tokens, passwords, keys, credentials. */
const SECRET_NAME = /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH)(_|$)/i;

/** Secrets named otherwise: the Actions runtime's request URL and cache endpoints carry bearer tokens of their own. */
const SECRET_NAMES = new Set(["ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_RUNTIME_URL", "ACTIONS_RESULTS_URL", "ACTIONS_CACHE_URL"]);

/** `XBENCH_PASS_ENV=NAME,NAME2`: variables let through on purpose, though their names read as secrets. */
export const PASS_ENV = "XBENCH_PASS_ENV";

/** Whether a variable's name reads as a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name.toUpperCase()) || SECRET_NAME.test(name);
}

/** `env` without its secrets, except those `XBENCH_PASS_ENV` names. */
export function codeEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const pass = new Set(
    (env[PASS_ENV] ?? "")
      .split(/[\s,]+/)
      .map((name) => name.trim())
      .filter(Boolean),
  );
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretName(name) && !pass.has(name)) continue;
    out[name] = value;
  }
  return out;
}
