/** The last `n` lines of a process's output, for one error message that shows what went wrong. */
export function lastLines(text: string, n: number): string {
  return text.trimEnd().split("\n").slice(-n).join("\n");
}
