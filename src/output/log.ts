import { createConsola } from "consola";

/**
 * Human output goes to stderr so that stdout carries only machine output
 * (`--json -`, a traced command's own stdout).
 */
export const log = createConsola({
  stdout: process.stderr,
  stderr: process.stderr,
  formatOptions: { date: false },
});
